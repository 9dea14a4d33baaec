// The commands of `locksim`, each in its own file of sim/cli/. Each takes
// the arguments after its name and returns the exit code: 0 no violation
// (or every expectation met), 1 violations found (or an expectation not
// met), 2 bad input or usage; InputError, HarnessError and po::error are
// turned into exit codes by main.
#ifndef LOCKSIM_SIM_CLI_COMMANDS_H_
#define LOCKSIM_SIM_CLI_COMMANDS_H_

#include <string>
#include <vector>

namespace locksim {

// run_command.cc: `run` (one run in detail, or a suite of expectations)
// and `check` (always the suite).
int RunCommand(const std::vector<std::string>& args, bool suite_only);
// compare_command.cc
int CompareCommand(const std::vector<std::string>& args);
int ReportCommand(const std::vector<std::string>& args);
// explore_command.cc
int ExploreCommand(const std::vector<std::string>& args);
int MergeCommand(const std::vector<std::string>& args);
// verify_command.cc
int VerifyCommand(const std::vector<std::string>& args);
// list_command.cc
int ListCommand(const std::vector<std::string>& args);
// serve_command.cc
int ServeCommand(const std::vector<std::string>& args);

}  // namespace locksim

#endif  // LOCKSIM_SIM_CLI_COMMANDS_H_
