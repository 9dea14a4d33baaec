#include "sim/scenario/scenario_files.h"

#include <algorithm>
#include <filesystem>

#include "sim/core/errors.h"

namespace locksim {

std::vector<std::string> ListScenarioFiles(const std::vector<std::string>& paths,
                                           const std::string& option) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::string> in_dir;
      for (const auto& e : std::filesystem::directory_iterator(p)) {
        const std::string name = e.path().filename().string();
        if (e.path().extension() == ".json" && name != "schema.json") {
          in_dir.push_back(e.path().string());
        }
      }
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else if (std::filesystem::exists(p, ec)) {
      files.push_back(p);
    } else {
      throw InputError(option + ": " + p + ": no such file or folder");
    }
  }
  if (files.empty()) throw InputError(option + ": no scenario files found");
  return files;
}

}  // namespace locksim
