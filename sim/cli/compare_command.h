// The `compare` and `report` commands of the command line (sim/cli/main.cc
// dispatches to them). They throw what the other commands throw
// (InputError, HarnessError, boost::program_options errors); main() turns
// those into exit codes 2 and 3.
//
//   locksim compare [--algorithms a,b|all] [--scenarios FILES|DIR...]
//                   [--seeds N] [--backend virtual|real] [--time-scale R]
//                   [--redis-server PATH] [--out DIR] [-q]
//     runs the matrix, writes DIR/results.json, report.html, summary.md and
//     junit.xml, prints the matrix. Exit 0 when every cell is safe and as
//     its scenario expects, 1 otherwise.
//   locksim report results.json [--out report.html] [--markdown summary.md]
//                  [--junit junit.xml]
//     redraws the reports from a results.json. Exit 0 once written.
#ifndef LOCKSIM_SIM_CLI_COMPARE_COMMAND_H_
#define LOCKSIM_SIM_CLI_COMPARE_COMMAND_H_

#include <string>
#include <vector>

namespace locksim {

int CompareCommand(const std::vector<std::string>& args);
int ReportCommand(const std::vector<std::string>& args);

}  // namespace locksim

#endif  // LOCKSIM_SIM_CLI_COMPARE_COMMAND_H_
