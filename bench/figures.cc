#include "bench/figures.h"

#include <sys/resource.h>

#include <cstdio>
#include <ctime>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include "bench/peer.h"
#include "bench/synthetic_history.h"
#include "sim/check/checker.h"
#include "sim/core/errors.h"
#include "sim/explore/explore.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"

namespace locksim::bench {
namespace {

// Benchmarks measure the host, not the virtual world. A virtual run is one
// thread on one core, so its cost is this process's CPU time (as Google
// Benchmark's items_per_second): on a shared machine, wall time would also
// count the time other engineers' builds held the core.
double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

}  // namespace

VirtualRunTiming TimeVirtualRun(const std::string& scenario_path, int repeats) {
  const Scenario scenario = LoadScenario(scenario_path);
  VirtualRunTiming best;
  for (int i = 0; i < repeats; ++i) {
    const double start = CpuSeconds();
    const RunResult r = RunScenario(scenario, RunOptions{});
    const double wall = CpuSeconds() - start;
    if (i == 0 || wall < best.wall_seconds) {
      best.wall_seconds = wall;
      best.simulated_seconds = std::chrono::duration<double>(r.end).count();
      best.redis_commands = r.redis_commands;
      best.acquisitions = r.acquisitions;
    }
  }
  return best;
}

SweepTiming TimeSeedSweep(const std::string& scenario_path, int seeds) {
  const Scenario scenario = LoadScenario(scenario_path);
  // As `locksim compare --seeds` runs them: one after another, the nodes'
  // Lua states handed on from run to run.
  const std::shared_ptr<ScriptStatePool> script_states = NewScriptStatePool();
  int64_t commands = 0;
  const double start = CpuSeconds();
  for (int seed = 1; seed <= seeds; ++seed) {
    RunOptions options;
    options.seed = static_cast<uint64_t>(seed);
    options.script_states = script_states.get();
    commands += RunScenario(scenario, options).redis_commands;
  }
  SweepTiming t;
  t.seconds_per_seed = (CpuSeconds() - start) / seeds;
  t.commands_per_seed = static_cast<double>(commands) / seeds;
  return t;
}

namespace {

RealCycles MeasureRealCyclesHere(const std::string& scenario_path, const std::string& redis_server,
                                 bool record_states, bool spin) {
  const Scenario scenario = LoadScenario(scenario_path);
  RunOptions options;
  options.backend = Backend::kReal;
  options.redis_server = redis_server;
  options.record_states = record_states;
  if (!spin) options.reply_spin = Nanos{0};
  const RunResult r = RunScenario(scenario, options);
  Nanos first{-1}, last{0};
  int64_t cycles = 0;
  for (const Op& op : r.history.ops()) {
    if (op.f == OpF::kAcquire && op.type == OpType::kInvoke && first < Nanos(0)) first = op.time;
    if (op.f == OpF::kRelease && op.type == OpType::kOk) {
      last = op.time;
      ++cycles;
    }
  }
  if (cycles == 0 || last <= first) throw HarnessError(scenario_path + ": no cycle completed");
  RealCycles out;
  out.cycles = cycles;
  out.cycles_per_second = static_cast<double>(cycles) / std::chrono::duration<double>(last - first).count();
  return out;
}

}  // namespace

int RealCyclesChild(const std::string& scenario_path, const std::string& redis_server,
                    bool record_states, bool spin) {
  const RealCycles c = MeasureRealCyclesHere(scenario_path, redis_server, record_states, spin);
  std::printf("%lld %.17g\n", static_cast<long long>(c.cycles), c.cycles_per_second);
  return 0;
}

// Each run in a child process of its own, as each of redis-benchmark's
// rounds is: on these virtual machines a real run's speed depended on what
// its process had run before. Six Redlock runs in a row in one process
// made 5.3 k cycles/s, then 3.4-3.8 k (2026-12-02); a fresh process, as
// `locksim run` is, makes the first figure every time.
RealCycles MeasureRealCycles(const std::string& scenario_path, const std::string& redis_server,
                             bool record_states, bool spin) {
  std::vector<std::string> argv = {"/proc/self/exe", "--real-cycles-child", scenario_path,
                                   "--redis-server", redis_server};
  if (!record_states) argv.push_back("--unrecorded");
  if (!spin) argv.push_back("--asleep");
  const std::string text = RunCapture(argv);
  RealCycles r;
  std::istringstream in(text);
  if (!(in >> r.cycles >> r.cycles_per_second)) {
    throw HarnessError(scenario_path + ": the run's child printed: " + text);
  }
  return r;
}

double ExploreSeedsPerSecond(const std::string& algorithm, const std::string& faults,
                             uint64_t seeds, int jobs) {
  const ExploreSpec spec = MakeExploreSpec(algorithm, ParseFaultClasses(faults, "faults"));
  SeedPlan plan;
  plan.count = seeds;
  const auto start = std::chrono::steady_clock::now();
  // Findings go to a sink that drops them, as explore's writer keeps none.
  RunExplore(spec, plan, jobs, nullptr, nullptr, FindingSink{nullptr, [](Finding&&) {}});
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return static_cast<double>(seeds) / wall;
}

int HistoryMemoryChild(int64_t ops) {
  SyntheticHistory h = MakeSyntheticHistory(ops);
  const CheckResult r = CheckMutualExclusion(h.history, h.end);
  return r.violations.empty() ? 1 : 0;  // it must have found the planted overlaps
}

int64_t MeasureHistoryPeakMemory(int64_t ops) {
  rusage usage{};
  RunCapture({"/proc/self/exe", "--history-memory-child", std::to_string(ops)}, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // ru_maxrss is in KiB on Linux
}

}  // namespace locksim::bench
