// The result of `locksim compare` as plain data: the cells of the matrix
// (scenario x algorithm), each with its runs' verdicts, its pooled liveness
// figures and the run that describes it. sim/run/compare.h produces it;
// reports/compare_json.h writes it without knowing how it was made.
#ifndef LOCKSIM_SIM_RESULT_COMPARE_RESULT_H_
#define LOCKSIM_SIM_RESULT_COMPARE_RESULT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/check/acquisition_stats.h"
#include "sim/core/verdict.h"
#include "sim/result/run_result.h"
#include "sim/result/search_result.h"
#include "sim/scenario/scenario.h"

namespace locksim {

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
  // For each adapter-driven algorithm: the library it drives and the
  // version its manifest pins ("redis-py 4.3.4"), which the reports name.
  std::map<std::string, std::string> libraries;
  Backend backend = Backend::kVirtual;
  int seeds = 1;
  std::vector<CompareCell> cells;  // scenario-major, algorithms in order
  // With `compare --search N`: the matrix that search gives.
  std::optional<SearchResult> search;
};

// How bad a verdict is, for taking the worst: safe 0, degraded 1,
// deadlock 2, violated 3.
int VerdictRank(Verdict verdict);

}  // namespace locksim

#endif  // LOCKSIM_SIM_RESULT_COMPARE_RESULT_H_
