// `locksim compare`: every algorithm against every scenario file, several
// seeds per cell. A cell is one (scenario, algorithm) pair; its verdict is
// the worst of its seeds' (violated > deadlock > degraded > safe, any other
// verdict between degraded and safe). A cell whose kind does not match the
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

#include "sim/check/acquisition_stats.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"

namespace locksim {

struct CompareOptions {
  std::vector<std::string> algorithms;  // ids in this order; empty: all
  std::vector<std::string> scenario_paths;  // files or folders
  int seeds = 1;  // seeds scenario.seed, scenario.seed + 1, ...
  RunOptions run;  // backend, time scale, redis-server (algorithm and seed ignored)
};

struct CellRun {
  uint64_t seed = 0;
  Verdict verdict = Verdict::kSafe;
  int64_t violations = 0;             // overlapping pairs of sections
  std::optional<bool> expectation_met;  // empty: no expectation
};

struct CompareCell {
  size_t scenario = 0;  // index into CompareResult::scenarios
  std::string algorithm;
  std::string skipped;  // why the cell did not run; empty when it ran
  // Ran with its expectation's own lock parameters or faults (the
  // scenario's "expect" entry for this algorithm overrides them).
  bool overrides = false;
  std::vector<CellRun> runs;
  AcquisitionStats stats;  // pooled over the seeds
  // The first run whose verdict is not "safe" or whose expectation failed,
  // with its history: the counterexample the report draws.
  std::optional<RunResult> counterexample;
  // The first run, kept only when no run failed.
  std::optional<RunResult> representative;

  // The worst of the runs' verdicts; nullopt when the cell was skipped.
  std::optional<Verdict> Worst() const;
  // Worst()'s name, or "skipped".
  std::string_view VerdictText() const;
  int64_t Violations() const;   // summed over the runs
  std::optional<bool> ExpectationMet() const;  // every seed met it
  // The run that describes the cell (its overlaps, workload effects): the
  // counterexample, else the first run; nullptr when skipped.
  const RunResult* Shown() const;
};

struct CompareResult {
  std::vector<Scenario> scenarios;
  std::vector<std::string> algorithms;
  Backend backend = Backend::kVirtual;
  int seeds = 1;
  std::vector<CompareCell> cells;  // scenario-major, algorithms in order
};

// How bad a verdict is, for taking the worst: safe 0, degraded 1,
// deadlock 2, violated 3.
int VerdictRank(Verdict verdict);

// Called after each run: runs done, runs in all, "scenario · algorithm".
using CompareProgress = std::function<void(int done, int total, const std::string& cell)>;

// Throws InputError (unknown algorithm, bad scenario, no files) and
// HarnessError, as RunScenario does.
CompareResult RunCompare(const CompareOptions& options, const CompareProgress& progress = {});

}  // namespace locksim

#endif  // LOCKSIM_SIM_RUN_COMPARE_H_
