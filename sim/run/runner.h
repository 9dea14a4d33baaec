// Runs one scenario with one algorithm on one backend and checks it: the
// result (sim/result/run_result.h) is plain data.
#ifndef LOCKSIM_SIM_RUN_RUNNER_H_
#define LOCKSIM_SIM_RUN_RUNNER_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "sim/result/run_result.h"
#include "sim/scenario/scenario.h"

namespace locksim {

class ScriptStatePool;  // sim/vredis/script_lua.h

// The shortest TTL a real run compresses a whole-seconds variant to.
inline constexpr Nanos kMinWholeSecondsTtl = std::chrono::seconds(10);

// 4 000 000 operations: 124 MB at the peak for 2 000 clients retrying.
inline constexpr int64_t kDefaultMaxOps = 4'000'000;

struct RunOptions {
  // An "expect" label: runs that expectation's algorithm with its lock and
  // fault overrides, and judges the run against it.
  std::string label;
  std::string algorithm;  // empty: the label's, else the scenario's own
  Backend backend = Backend::kVirtual;
  std::optional<uint64_t> seed;             // empty: the scenario's own
  std::optional<TimeScale> time_scale;      // empty: 1 virtual, scenario's real
  std::string redis_server = "redis-server";  // binary for the real backend
  // --adapter PATH: an adapter manifest (*.json) or a bare adapter program.
  // Without `algorithm` (and label) it is the variant, under its own name
  // (the manifest's id, or the program's file stem); with the id of an
  // adapter-driven variant, its program replaces that variant's. With one
  // of locksim's own variants: InputError.
  std::string adapter;
  // A run stops once its history holds this many operations (memory: 32
  // bytes an op, and its value unless it repeats the actor's last one), and
  // says so in its result: the verdict covers what was recorded until then.
  // 0: no cap but the history's own (History::kMaxOps).
  int64_t max_ops = kDefaultMaxOps;
  // Systematic mode (locksim verify): the run's choice points
  // (sim/world/chooser.h) are recorded in RunResult::choice_points. A
  // scenario's "choices" are applied either way.
  bool record_choices = false;
  // Whether each violation lists the events that led to it
  // (Violation::events, what a result JSON shows). Explore's seeds and
  // verify's schedules keep only a run's verdict, violation kinds and
  // sections, never write its JSON, and leave them out.
  bool explain = true;
  // Whether the world records the lock key's states on each node (the
  // history's node lanes, which the checks of F2, F5 and F6 read). Only
  // `make bench` turns it off, to measure what the recording costs a real
  // run (docs/performance.md): without it those checks see nothing.
  bool record_states = true;
  // Real backend: how long the poll loop polls for a due reply without
  // sleeping (WorldOptions::reply_spin); unset, the world's default. Only
  // `make bench` sets it, to 0, to show what the spin is worth.
  std::optional<Nanos> reply_spin;
  // The command that replays this run, for the message of a broken
  // simulator invariant. Empty: ReplayRunCommand's, right for a scenario
  // file; a generated scenario (explore's seeds and their shrinking) names
  // the command that generates it again.
  std::string replay;
  // Virtual backend: Lua states the run's nodes take and give back, for a
  // thread that runs many scenarios one after another (compare, explore,
  // verify); see ScriptStatePool (sim/vredis/script_lua.h). Null: each node
  // makes its own. Must outlive the run.
  ScriptStatePool* script_states = nullptr;
  // Called every few thousand events with the true time and the history's
  // size, for a progress line; must not touch the run.
  std::function<void(Nanos now, Nanos duration, int64_t ops)> progress;
};

// A pool for RunOptions::script_states, for one thread's runs.
std::shared_ptr<ScriptStatePool> NewScriptStatePool();

// Throws InputError for bad options (unknown algorithm, missing server) and
// HarnessError when the harness fails.
RunResult RunScenario(const Scenario& scenario, const RunOptions& options);

// The `locksim run` command that gives a run of `options` on `file` again,
// for the messages that name one (a broken invariant, a crash note): the
// variant (--label, else --algorithm, and --adapter), the seed, and the
// world: " --backend B", then " --time-scale S" and " --redis-server PATH"
// when they are not the defaults (without them a real run, or a compressed
// one, replays as another).
std::string ReplayRunCommand(const std::string& file, const RunOptions& options);

}  // namespace locksim

#endif  // LOCKSIM_SIM_RUN_RUNNER_H_
