// RunResult: what one run of one scenario found, as plain data: the
// scenario as it ran, its history, and what the checkers made of it. The
// runner (sim/run/runner.h) produces it; the report writers (reports/) and
// the commands read it without knowing how it was made.
#ifndef LOCKSIM_SIM_RESULT_RUN_RESULT_H_
#define LOCKSIM_SIM_RESULT_RUN_RESULT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/check/checker.h"
#include "sim/check/liveness.h"
#include "sim/check/workload.h"
#include "sim/core/history.h"
#include "sim/core/verdict.h"
#include "sim/scenario/scenario.h"

namespace locksim {

// Where a run ran: the virtual world (VirtualRedis, simulated time) or the
// real one (redis-server processes, wall-clock time).
enum class Backend { kVirtual, kReal };
// "virtual", "real".
std::string_view BackendName(Backend b);

// What a third-party library did besides answering (adapter-driven
// clients, docs/adapters.md): the errors it raised, and the clients whose
// library process died or hung, which the run carried on without.
struct LibraryError {
  std::string op;    // "acquire", "release"
  std::string text;  // as the adapter gave it: "ConnectionError: ..."
  int64_t count = 0;
  std::string first_client;
  Nanos first{0};  // true time of the first
};
struct LibraryFailure {
  Nanos time{0};
  std::string client;
  std::string what;  // "exited with status 1 while serving acquire"
  std::string stderr_tail;  // its stderr's last lines
};
struct LibraryReport {
  std::string name;  // "redis-py 4.3.4", from the adapter's hello
  std::vector<LibraryError> errors;  // by first appearance
  std::vector<LibraryFailure> failures;  // in time order
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
  // Set when the run stopped before its duration because its history
  // reached RunOptions::max_ops: what the verdict covers.
  std::string stopped_early;
  History history;
  CheckResult check;
  WorkloadEffect effect;  // what the workload's invariant says
  int64_t acquisitions = 0;
  int64_t failed_acquisitions = 0;   // acquire fail: timed out
  int64_t errored_acquisitions = 0;  // acquire info: the lock code raised
  int64_t redis_commands = 0;  // the history's redis invokes (a library's too)
  LivenessResult liveness;
  // Faults whose trigger never fired: the run did not test what the
  // scenario says it tests.
  std::vector<std::string> unfired;
  // With RunOptions::record_choices: every choice point the run met.
  std::vector<ChoicePoint> choice_points;
  // Entries of the scenario's "choices" the run did not apply (also in
  // `unfired`, each saying why).
  int64_t unapplied_choices = 0;
  // Set for an adapter-driven variant.
  std::optional<LibraryReport> library;

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

}  // namespace locksim

#endif  // LOCKSIM_SIM_RESULT_RUN_RESULT_H_
