// Liveness figures of one run, read from its history alone: how long an
// acquisition takes, how often it retries, how many Redis commands it costs,
// and how many acquisitions the run completes per simulated second.
//
// An acquisition is a thread's `acquire` invoke followed by its `acquire`
// ok (a success), fail (timed out) or info (the lock code raised an error).
// Within it:
//   - commands are the thread's `redis` invoke ops between the two (for an
//     adapter-driven client, its library's own, as the proxy saw them; the
//     `adapter` requests to the library are not Redis commands);
//   - repeated commands (the figures' "retries") are the commands that
//     repeat the acquisition's first one (same node, same command name in
//     any case, EVALSHA counted as EVAL), so SET NX PX sent three times is
//     two retries, whatever else each attempt sends. Not to be confused with
//     LivenessResult::aborted_transactions (EXECs answered nil).
// Only successful acquisitions count towards latency, commands and retries
// per acquisition; failed ones are counted apart.
#ifndef LOCKSIM_SIM_CHECK_ACQUISITION_STATS_H_
#define LOCKSIM_SIM_CHECK_ACQUISITION_STATS_H_

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/history.h"

namespace locksim {

struct AcquisitionStats {
  int64_t acquisitions = 0;         // acquire ok
  int64_t failed_acquisitions = 0;  // acquire fail: timed out
  int64_t errored_acquisitions = 0;  // acquire info: the library raised
  // Commands repeating the acquisition's first one (above), within
  // successful acquisitions. JSON: retries_per_acquisition.
  int64_t repeated_commands = 0;
  int64_t commands = 0;             // within successful acquisitions
  Nanos simulated{0};               // the run's length (sum, once merged)
  // ns, one per acquisition, in no particular order, so that pooling the
  // runs of a cell (one Merge per seed) is linear in their number, not
  // quadratic: StatsToJson selects its percentiles (Percentile).
  std::vector<int64_t> latencies;

  // Pools another run's figures into these (a cell over its seeds, a
  // variant over its cells).
  void Merge(const AcquisitionStats& other);
};

AcquisitionStats ComputeAcquisitionStats(const History& history, Nanos end);

// Nearest-rank percentile of values in any order (p in 1..100), selected
// in linear time (their order changes); 0 when empty.
int64_t Percentile(std::vector<int64_t>* values, int p);

// {"acquisitions", "failed_acquisitions", "errored_acquisitions", "latency_p50", "latency_p99",
//  "latency_max", "retries_per_acquisition", "commands_per_acquisition",
//  "throughput_per_s"}; the per-acquisition figures and the throughput are
// rounded to 3 decimals (null without any acquisition; the throughput null
// only when nothing was tried), latencies are ns.
// (By value: a variant's pooled figures are moved in, a cell's copied,
// since selecting the percentiles reorders the latencies.)
nlohmann::ordered_json StatsToJson(AcquisitionStats stats);

}  // namespace locksim

#endif  // LOCKSIM_SIM_CHECK_ACQUISITION_STATS_H_
