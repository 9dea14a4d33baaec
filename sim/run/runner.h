// Runs one scenario with one algorithm on one backend and checks it.
#ifndef LOCKSIM_SIM_RUN_RUNNER_H_
#define LOCKSIM_SIM_RUN_RUNNER_H_

#include <optional>
#include <string>

#include "sim/check/checker.h"
#include "sim/core/history.h"
#include "sim/check/liveness.h"
#include "sim/scenario/scenario.h"

namespace locksim {

enum class Backend { kVirtual, kReal };

// The shortest TTL a real run compresses a whole-seconds variant to.
inline constexpr Nanos kMinWholeSecondsTtl = std::chrono::seconds(10);
std::string_view BackendName(Backend b);

struct RunOptions {
  // An "expect" label: runs that expectation's algorithm with its lock and
  // fault overrides, and judges the run against it.
  std::string label;
  std::string algorithm;  // empty: the label's, else the scenario's own
  Backend backend = Backend::kVirtual;
  std::optional<uint64_t> seed;             // empty: the scenario's own
  std::optional<TimeScale> time_scale;      // empty: 1 virtual, scenario's real
  std::string redis_server = "redis-server";  // binary for the real backend
  // An adapter-driven variant (redis-py) runs this program instead of its
  // own adapter (--adapter): to try an adapter for another library. Other
  // variants ignore it.
  std::string adapter;
};

struct RunResult {
  Scenario scenario;  // as run: durations already scaled, overrides applied
  std::string label;  // the expectation it ran for ("" : none)
  std::string algorithm;
  Backend backend = Backend::kVirtual;
  uint64_t seed = 0;
  TimeScale time_scale;
  std::string scale_note;  // why time_scale is not the scenario's, if so
  Nanos end{0};  // true time at which the run stopped
  History history;
  CheckResult check;
  WorkloadEffect effect;  // what the workload's invariant says
  int64_t acquisitions = 0;
  int64_t failed_acquisitions = 0;
  int64_t redis_commands = 0;
  LivenessResult liveness;
  // Faults whose trigger never fired: the run did not test what the
  // scenario says it tests.
  std::vector<std::string> unfired;

  bool limiter = false;  // a rate limiter: safety is its invariant
  bool violated() const { return limiter ? !effect.safety_holds : !check.ok(); }
  // violated > deadlock > degraded > safe
  Verdict verdict() const {
    if (violated()) return Verdict::kViolated;
    if (liveness.deadlock) return Verdict::kDeadlock;
    if (liveness.degraded) return Verdict::kDegraded;
    return Verdict::kSafe;
  }
  // "A/B" for each distinct overlapping pair, in order of first overlap.
  std::vector<std::string> OverlapPairs() const;
  // The violation kinds found, in order of first appearance.
  std::vector<ViolationKind> Kinds() const;
  // The expectation this run is judged against (by label, else by
  // algorithm id), or null.
  const Expectation* expectation() const;
  // Whether that expectation holds (and every trigger fired); empty when
  // there is none.
  std::optional<bool> ExpectationMet() const;
};

// Throws InputError for bad options (unknown algorithm, missing server) and
// HarnessError when the harness fails.
RunResult RunScenario(const Scenario& scenario, const RunOptions& options);

}  // namespace locksim

#endif  // LOCKSIM_SIM_RUN_RUNNER_H_
