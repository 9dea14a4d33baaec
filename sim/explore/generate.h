// Scenarios generated from seeds, for explore and for compare's searched
// matrix: what a seed draws, within the fault classes asked for.
//
// The fault classes (the searched matrix's columns, in this order):
//   none          no fault: what the lock does to itself (F11's retry
//                 storm, F12's EXPIRE 0, F14's re-entry);
//   pause         a client's pause (a GC, a stop; F1, F2, F5, F6, F10) or,
//                 now and then, a Redis node's;
//   client-clock  a client's clock offset (F4);
//   node-clock    a Redis node's clock jump (F9);
//   client-crash  a client's crash, often right after one of the lock's
//                 own commands (F3, F15);
//   node-crash    a Redis node's crash and restart, with the persistence
//                 drawn too (F8);
//   failover      a replica promoted after its master (F7);
//   partition     links cut between clients and nodes;
//   delay-drop    links slowed or lossy;
//   expire        the key removed or its TTL cut by an operator.
// On the command line "clock", "crash", "delay" and "drop" name the pairs
// they belong to, and "all" every class.
//
// Besides the faults a seed draws the shape of the run: two to eight
// clients, a TTL from 100ms to 10s (sub-second ones included: F12), the
// workload (counter, inventory, token-refresh, scheduled-job), a client
// with two threads or one that re-enters its lock (F14), replicas with a
// lag for any lock, a socket timeout, and triggers on the lock's own
// commands (its SETNX, its GET before the DEL). A rate limiter gets clients
// sending requests through it, judged by the limiter's own invariant.
//
// Everything is a function of (spec, seed).
#ifndef LOCKSIM_SIM_EXPLORE_GENERATE_H_
#define LOCKSIM_SIM_EXPLORE_GENERATE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/run/runner.h"

namespace locksim {

// The fault classes in their canonical order (the comment above).
const std::vector<std::string>& FaultClasses();
// "pause,clock" -> {"pause", "client-clock", "node-clock"} in canonical
// order, without repeats; "all" -> every class. Throws InputError naming
// `option` for an unknown or empty name.
std::vector<std::string> ParseFaultClasses(const std::string& text, const std::string& option);

struct ExploreSpec {
  std::string algorithm;            // a lock or a rate limiter
  std::vector<std::string> faults;  // canonical order
  // Filled by MakeExploreSpec:
  bool limiter = false;
  // The Redis commands the variant sends, by name (upper case), in the
  // order a probe run first sent them: what "send"/"reply" triggers aim at.
  std::vector<std::string> commands;
  // Where the seeds run: the virtual Redis, or real redis-server processes
  // (explore --backend real: bounded by a seed budget, one seed at a time,
  // not byte-identical; explore.h says what is kept).
  Backend backend = Backend::kVirtual;
  std::optional<TimeScale> time_scale;  // real: the scenario's by default
  std::string redis_server = "redis-server";
  bool single_threaded = false;  // an adapter-driven client: no "threads"
};

// How a seed of `spec` runs (algorithm, backend, time scale, server), and
// the command that runs that seed again (RunOptions::replay: what a broken
// invariant names, since the scenario is in no file).
RunOptions SeedRunOptions(const ExploreSpec& spec, uint64_t seed);
// `locksim explore --algorithm ID --faults F --first-seed N --seeds 1
// --jobs 1`, with the backend, time scale and redis-server binary when they
// are not the default.
std::string ExploreReplayCommand(const ExploreSpec& spec, uint64_t seed);

// The spec of `algorithm` under `faults`, run where `where` says (its
// backend, time_scale and redis_server): whether it is a limiter, and its
// commands, from one fault-free probe run there. Throws InputError for an
// unknown algorithm or one that cannot run there (an adapter-driven one on
// the virtual Redis).
ExploreSpec MakeExploreSpec(const std::string& algorithm, std::vector<std::string> faults,
                            const RunOptions& where = {});

// The scenario document (scenario-file JSON, no "expect") for one seed.
nlohmann::ordered_json GenerateScenario(const ExploreSpec& spec, uint64_t seed);

}  // namespace locksim

#endif  // LOCKSIM_SIM_EXPLORE_GENERATE_H_
