// `locksim compare`: every algorithm against every scenario file, several
// seeds per cell. A cell is one (scenario, algorithm) pair; its verdict is
// the worst of its seeds' (violated > deadlock > degraded > safe). A cell whose kind does not match the
// scenario's (a rate limiter on a lock scenario, or a lock on a limiter's)
// is skipped: its invariant is not the one the scenario checks; so is a
// cell whose faults the backend cannot carry out yet. A cell
// whose scenario has an "expect" entry for its algorithm runs as that entry
// says (its lock and fault overrides), and is judged against it.
#ifndef LOCKSIM_SIM_RUN_COMPARE_H_
#define LOCKSIM_SIM_RUN_COMPARE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/result/compare_result.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"

namespace locksim {

struct CompareOptions {
  std::vector<std::string> algorithms;  // ids in this order; empty: all
  std::vector<std::string> scenario_paths;  // files or folders
  int seeds = 1;  // seeds scenario.seed, scenario.seed + 1, ...
  RunOptions run;  // backend, time scale, redis-server (algorithm and seed ignored)
};

// Called after each run: runs done, runs in all, "scenario · algorithm".
using CompareProgress = std::function<void(int done, int total, const std::string& cell)>;

// Throws InputError (unknown algorithm, bad scenario, no files) and
// HarnessError, as RunScenario does.
CompareResult RunCompare(const CompareOptions& options, const CompareProgress& progress = {});

}  // namespace locksim

#endif  // LOCKSIM_SIM_RUN_COMPARE_H_
