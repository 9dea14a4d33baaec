// locksim's own macro figures, each a plain measurement; the driver
// (locksim_bench.cc) puts them beside their peers and goals.
#ifndef LOCKSIM_BENCH_FIGURES_H_
#define LOCKSIM_BENCH_FIGURES_H_

#include <cstdint>
#include <string>

namespace locksim::bench {

// The CPU time of one virtual run of `scenario_path` (the best of
// `repeats`, the machine being shared), and what it simulated.
struct VirtualRunTiming {
  double wall_seconds = 0;
  double simulated_seconds = 0;
  int64_t redis_commands = 0;
  int64_t acquisitions = 0;
};
VirtualRunTiming TimeVirtualRun(const std::string& scenario_path, int repeats);

// Seeds 1..seeds of `scenario_path`, one after the other on this core: the
// CPU time per seed, and the mean Redis commands per run.
struct SweepTiming {
  double seconds_per_seed = 0;
  double commands_per_seed = 0;
};
SweepTiming TimeSeedSweep(const std::string& scenario_path, int seeds);

// One real run of `scenario_path` (it starts its own redis-servers): the
// acquire + release cycles per second, from the first acquire to the last
// release in the run's own history (server start-up excluded).
struct RealCycles {
  double cycles_per_second = 0;
  int64_t cycles = 0;
};
// `record_states` false: the lock key's states are not recorded (what the
// recording costs, RunOptions::record_states). `spin` false: the harness
// sleeps in ppoll() at once while a reply is due (RunOptions::reply_spin
// 0: what the spin is worth).
RealCycles MeasureRealCycles(const std::string& scenario_path, const std::string& redis_server,
                             bool record_states = true, bool spin = true);

// Explore's throughput: seeds 1..seeds of `algorithm` under `faults`
// (explore's fault classes, "pause,clock"), on `jobs` threads, in seeds
// per second of wall time (jobs share the machine, so CPU time would not
// show whether they scale).
double ExploreSeedsPerSecond(const std::string& algorithm, const std::string& faults,
                             uint64_t seeds, int jobs);

// The peak resident memory (bytes) of a child process that builds a
// synthetic history of `ops` operations and checks it: this program run
// again with --history-memory-child.
int64_t MeasureHistoryPeakMemory(int64_t ops);
// What that child does; returns its exit code.
int HistoryMemoryChild(int64_t ops);
// The child of MeasureRealCycles (this program run again with
// --real-cycles-child): one real run, its cycles and cycles per second on
// stdout.
int RealCyclesChild(const std::string& scenario_path, const std::string& redis_server,
                    bool record_states, bool spin);

}  // namespace locksim::bench

#endif  // LOCKSIM_BENCH_FIGURES_H_
