#include "sim/cli/files.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "sim/core/errors.h"

namespace locksim {

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  if (in) ss << in.rdbuf();
  if (!in) throw InputError(path.string() + ": cannot read");
  return ss.str();
}

void WriteFile(const std::filesystem::path& path, const std::string& text,
               const std::string& option) {
  WriteFile(path, [&text](std::ostream& out) { out << text; }, option);
}

void WriteFile(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write,
               const std::string& option) {
  if (path == "-") {
    write(std::cout);
    std::cout << std::flush;
    if (!std::cout) throw InputError(option + ": cannot write to stdout");
    return;
  }
  std::ofstream out(path, std::ios::binary);
  try {
    write(out);
  } catch (...) {
    // No half-written file is left to be read as a whole one (on stdout
    // the part written stays: the error that follows says it stopped).
    out.close();
    std::error_code ignored;
    if (std::filesystem::is_regular_file(path, ignored)) std::filesystem::remove(path, ignored);
    throw;
  }
  out.close();
  if (!out) throw InputError(option + ": cannot write " + path.string());
}

std::filesystem::path EnsureFolder(const std::string& dir, const std::string& option) {
  if (dir.empty()) throw InputError(option + ": empty folder name");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    throw InputError(option + ": cannot create folder " + dir +
                     (ec ? ": " + ec.message() : std::string()));
  }
  return dir;
}

}  // namespace locksim
