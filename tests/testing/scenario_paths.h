// Where the bundled scenarios are, for tests.
#ifndef LOCKSIM_TESTS_TESTING_SCENARIO_PATHS_H_
#define LOCKSIM_TESTS_TESTING_SCENARIO_PATHS_H_

#include <string>

namespace locksim {
inline std::string ScenarioPath(const std::string& name) {
  return std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/" + name + ".json";
}
}  // namespace locksim

#endif  // LOCKSIM_TESTS_TESTING_SCENARIO_PATHS_H_
