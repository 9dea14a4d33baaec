#include "sim/core/resources.h"

#include <filesystem>
#include <system_error>

namespace locksim {
namespace {

namespace fs = std::filesystem;

// PREFIX when this executable is PREFIX/bin/... and PREFIX/share/locksim
// exists; empty otherwise (a build tree, a test binary).
fs::path InstallPrefix() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const fs::path prefix = exe.parent_path().parent_path();
  if (exe.parent_path().filename() != "bin") return {};
  if (!fs::is_directory(prefix / "share" / "locksim", ec)) return {};
  return prefix;
}

}  // namespace

std::string ClockShimPath() {
  const fs::path prefix = InstallPrefix();
  if (!prefix.empty()) return (prefix / "lib" / "locksim" / "liblocksim_clockshim.so").string();
  return LOCKSIM_CLOCKSHIM_PATH;
}

std::string DataPath(const std::string& relative) {
  const fs::path prefix = InstallPrefix();
  if (!prefix.empty()) return (prefix / "share" / "locksim" / relative).string();
  return (fs::path(LOCKSIM_SOURCE_DIR) / relative).string();
}

std::string NodeModulesPath() {
  const fs::path prefix = InstallPrefix();
  if (!prefix.empty()) return (prefix / "lib" / "locksim" / "node_modules").string();
  return (fs::path(LOCKSIM_BINARY_DIR) / "node" / "node_modules").string();
}

}  // namespace locksim
