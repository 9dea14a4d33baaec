// The `explore` and `merge` commands of the command line (sim/cli/main.cc
// dispatches to them; the search itself is sim/explore/explore.h). They throw what
// the other commands throw (InputError, HarnessError, boost::program_options
// errors); main() turns those into exit codes 2 and 3.
//
//   locksim explore --algorithm ID [--faults pause,clock,...|all]
//                   [--seeds N | --time SECONDS] [--first-seed S]
//                   [--jobs J] [--shard i/N] [--out DIR] [-q]
//     generates and runs a scenario per seed, shrinks each violation into
//     DIR/findings/<kind>-seed<N>.json and writes DIR/summary.json. Exit 0
//     when no seed found a violation, 1 otherwise. Wall times and the
//     progress bar go to stderr only: DIR is the same whatever --jobs is.
//   locksim merge DIR... [--out DIR]
//     combines the outputs of the shards of one sweep into the output the
//     unsharded run would have written. Exit as explore.
#ifndef LOCKSIM_SIM_CLI_EXPLORE_COMMAND_H_
#define LOCKSIM_SIM_CLI_EXPLORE_COMMAND_H_

#include <string>
#include <vector>

namespace locksim {

int ExploreCommand(const std::vector<std::string>& args);
int MergeCommand(const std::vector<std::string>& args);

}  // namespace locksim

#endif  // LOCKSIM_SIM_CLI_EXPLORE_COMMAND_H_
