// A folder of a test's own under the system's temporary folder
// (<prefix>-XXXXXX, made by mkdtemp), removed however the test ends.
#ifndef LOCKSIM_TESTS_TESTING_TEMP_DIR_H_
#define LOCKSIM_TESTS_TESTING_TEMP_DIR_H_

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace locksim {

struct TempDir {
  explicit TempDir(const std::string& prefix) {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp(" + tmpl + ") failed");
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string path;
};

}  // namespace locksim

#endif  // LOCKSIM_TESTS_TESTING_TEMP_DIR_H_
