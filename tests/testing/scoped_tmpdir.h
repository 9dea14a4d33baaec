// TMPDIR set for the scope of one test, and put back however it ends: the
// real servers' folders (and so their Unix sockets' paths) follow it.
#ifndef LOCKSIM_TESTS_TESTING_SCOPED_TMPDIR_H_
#define LOCKSIM_TESTS_TESTING_SCOPED_TMPDIR_H_

#include <stdlib.h>

#include <filesystem>
#include <string>

#include "tests/testing/temp_dir.h"

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

// TMPDIR, for the scope of one test, a folder whose path is too long for a
// server's Unix socket (120 characters and more): servers start on TCP
// alone. The folder is removed however the test ends.
class TmpdirTooLongForASocket {
 public:
  TmpdirTooLongForASocket()
      : base_("locksim-longtmp"), path_(MakeDeep(base_.path)), scoped_(path_) {}
  const std::string& path() const { return path_; }

 private:
  static std::string MakeDeep(const std::string& base) {
    const std::string deep = base + "/" + std::string(120, 'd');
    std::filesystem::create_directories(deep);
    return deep;
  }
  TempDir base_;
  std::string path_;
  ScopedTmpdir scoped_;
};

}  // namespace locksim

#endif  // LOCKSIM_TESTS_TESTING_SCOPED_TMPDIR_H_
