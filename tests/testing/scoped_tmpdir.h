// TMPDIR set for the scope of one test, and put back however it ends: the
// real servers' folders (and so their Unix sockets' paths) follow it.
#ifndef LOCKSIM_TESTS_TESTING_SCOPED_TMPDIR_H_
#define LOCKSIM_TESTS_TESTING_SCOPED_TMPDIR_H_

#include <stdlib.h>

#include <string>

namespace locksim {

class ScopedTmpdir {
 public:
  explicit ScopedTmpdir(const std::string& dir) {
    const char* old = getenv("TMPDIR");
    had_ = old != nullptr;
    if (had_) saved_ = old;
    setenv("TMPDIR", dir.c_str(), 1);
  }
  ~ScopedTmpdir() { had_ ? setenv("TMPDIR", saved_.c_str(), 1) : unsetenv("TMPDIR"); }
  ScopedTmpdir(const ScopedTmpdir&) = delete;
  ScopedTmpdir& operator=(const ScopedTmpdir&) = delete;

 private:
  bool had_ = false;
  std::string saved_;
};

}  // namespace locksim

#endif  // LOCKSIM_TESTS_TESTING_SCOPED_TMPDIR_H_
