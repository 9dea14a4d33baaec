// Runs one scenario with one algorithm on one backend and checks it.
#ifndef LOCKSIM_SIM_RUNNER_H_
#define LOCKSIM_SIM_RUNNER_H_

#include <optional>
#include <string>

#include "sim/checker.h"
#include "sim/history.h"
#include "sim/scenario.h"

namespace locksim {

enum class Backend { kVirtual, kReal };
std::string_view BackendName(Backend b);

struct RunOptions {
  std::string algorithm;  // empty: the scenario's own
  Backend backend = Backend::kVirtual;
  std::optional<uint64_t> seed;             // empty: the scenario's own
  std::optional<TimeScale> time_scale;      // empty: 1 virtual, scenario's real
  std::string redis_server = "redis-server";  // binary for the real backend
};

struct RunResult {
  Scenario scenario;  // as run: durations already scaled
  std::string algorithm;
  Backend backend = Backend::kVirtual;
  uint64_t seed = 0;
  TimeScale time_scale;
  Nanos end{0};  // true time at which the run stopped
  History history;
  CheckResult check;
  WorkloadEffect effect;  // what the workload's invariant says
  int64_t acquisitions = 0;
  int64_t failed_acquisitions = 0;
  int64_t redis_commands = 0;

  bool limiter = false;  // a rate limiter: the verdict is its invariant
  bool violated() const { return limiter ? !effect.holds : !check.ok(); }
  std::string_view verdict() const { return violated() ? "violated" : "safe"; }
  // "A/B" for each distinct overlapping pair, in order of first overlap.
  std::vector<std::string> OverlapPairs() const;
  // Whether the scenario's "expect" entry for this algorithm holds; empty
  // when the scenario has none.
  std::optional<bool> ExpectationMet() const;
};

// Throws InputError for bad options (unknown algorithm, missing server) and
// HarnessError when the harness fails.
RunResult RunScenario(const Scenario& scenario, const RunOptions& options);

}  // namespace locksim

#endif  // LOCKSIM_SIM_RUNNER_H_
