// Scenario files named on a command line: files as given, folders expanded
// to their *.json files (but schema.json) in name order.
#ifndef LOCKSIM_SIM_SCENARIO_SCENARIO_FILES_H_
#define LOCKSIM_SIM_SCENARIO_SCENARIO_FILES_H_

#include <string>
#include <vector>

namespace locksim {

// Throws InputError naming `option` when a path does not exist or nothing
// is found.
std::vector<std::string> ListScenarioFiles(const std::vector<std::string>& paths,
                                           const std::string& option);

}  // namespace locksim

#endif  // LOCKSIM_SIM_SCENARIO_SCENARIO_FILES_H_
