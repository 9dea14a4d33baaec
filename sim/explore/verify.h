// Bounded verification (`locksim verify`): instead of drawing faults from
// seeds, as explore does, enumerate every placement of them within a bound
// and run each one on the virtual Redis. It ends with the first violation
// (shrunk into a replayable scenario file) or with "no violation in N
// distinct schedules within bound B". docs/verify.md says what the bound
// means and what a verified cell does and does not promise.
//
// The world. One small scenario per (algorithm, shape): `clients` clients
// (A, B, C... starting `start_gap` apart) each taking the lock `iterations` times
// and holding it `hold`, on a network whose latency is fixed (200us one
// way): with no random latency, two runs of the same schedule are the same
// run, and the order of deliveries changes only through a choice below.
//
// The choices. A schedule is a list of faults, each placed at an instant
// of the run it lands in: the true time of one of the first `events`
// distinct instants at which a client did something (a step of the lock,
// a command sent, a reply read). A fault fires at that instant before
// what the instant's events do next (the nemesis's timed faults go first;
// not before a client's first steps at its start, nor before events an
// earlier pause deferred to that instant), so a pause "at A's SET reply"
// stops A before it reads the reply. What a
// fault can be at an instant:
//   pause         each client with an event there, paused for `pause`;
//   client-clock  each such client's clock stepped by +2 and -2 leases;
//   client-crash  each such client killed (not restarted);
//   node-clock    each master's clock stepped 2 leases forward;
//   node-crash    each master killed and restarted 10ms later, empty;
//   expire        the lock's key removed on every master (an operator);
// and, within a separate budget of `max_delays`, deviations from the
// default schedule at the run's choice points (sim/world/chooser.h) up to
// the last of those instants: a message delivered `delay` late, or a tie
// (events of one process due at once) broken for another stream. They go
// into the scenario's "choices", which a ScriptedChooser applies.
//
// The search. Depth-first, a schedule's next choice no earlier than its
// last one (at the same instant: a fault that sorts after it, or a
// deviation at a later point; faults before deviations), so each set of
// choices is reached once. States already seen are skipped: after a run,
// its state is the text of its whole history, the nemesis's records of the
// faults included, and the choice points it met. Two runs with the same
// text did the same thing at the same time on every client and node (a fault
// with nothing to act on, such as a crash of a node already down, leaves
// no record); a second one is not expanded when the first had at least
// its budget left and no later lower bound. The text is compared in full:
// the hash only finds the candidates, so a collision never merges two
// states. Every run is checked, skipped or not.
//
// --jobs J splits the tree by its first choice: each subtree has its own
// record of states seen, so the counts and the finding are the same for
// any J.
#ifndef LOCKSIM_SIM_EXPLORE_VERIFY_H_
#define LOCKSIM_SIM_EXPLORE_VERIFY_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/time.h"

namespace locksim {

struct VerifySpec {
  std::string algorithm;
  std::vector<std::string> faults;  // classes, canonical order (generate.h)
  // The bound.
  int max_faults = 2;   // K: faults per schedule
  int events = 40;      // E: each at one of the first E instants of its run
  int max_delays = 0;   // D: deviations per schedule
  // The world's shape.
  int clients = 2;
  Nanos start_gap = std::chrono::milliseconds(10);  // between the clients' starts
  int iterations = 1;
  Nanos ttl = std::chrono::seconds(1);
  Nanos hold = std::chrono::milliseconds(800);
  Nanos retry_delay = std::chrono::milliseconds(100);
  int tries = 0;  // tries per acquisition; 0: the variant's own (Redlock: 4)
  Nanos pause{0};  // 0: one and a half leases
  Nanos delay{0};  // 0: one lease
  uint64_t seed = 1;  // the processes' own draws (tokens, retry jitter)
  // Skip states already seen (off: every schedule of the bound is run, as
  // a test counts them by hand).
  bool state_cache = true;
  // The hash that files states for the cache (tests give a colliding one).
  std::function<uint64_t(const std::string&)> hash;
};

// The fault classes verify places (above), without "none", in canonical order.
std::vector<std::string> PlacedFaultClasses();

// Throws InputError naming the option for an algorithm verify cannot run
// (unknown, a rate limiter, an adapter-driven client), a fault class it
// does not place, or a bound out of range.
void CheckVerifySpec(const VerifySpec& spec);

// The command line that runs this search again, every option of the bound
// and the world spelled out.
std::string VerifyCommandLine(const VerifySpec& spec);

// What "within bound B" says: "up to 2 faults (pause), each at one of the
// first 40 instants; 2 clients x 1 iteration, lease 1s, hold 800ms, pause
// 1.5s".
std::string BoundText(const VerifySpec& spec);

struct VerifyFinding {
  int64_t ordinal = 0;  // 1-based: the runs before it, in depth-first order, plus one
  std::string verdict;
  std::vector<std::string> tokens;
  std::string kind;  // explore's: "<tokens>--<fault classes>"
  nlohmann::ordered_json schedule;    // the faults as placed, before shrinking
  nlohmann::ordered_json deviations;  // and the deviations ("choices")
  std::string text;  // the shrunk scenario file, with its "expect"
  int shrink_runs = 0;
};

struct VerifyProgress {
  int64_t runs = 0;
  int64_t skipped = 0;
  int64_t subtrees_done = 0;
  int64_t subtrees = 0;
};

struct VerifyResult {
  int64_t schedules = 0;  // distinct schedules run (not skipped)
  int64_t skipped = 0;    // runs whose state had been seen: not expanded
  // The fault-free run: its instants at which a client acted, and the
  // last of the first `events` of them (how far into it the bound reaches).
  int64_t instants = 0;
  Nanos horizon{0};
  // Without a finding, the whole bound was searched.
  std::optional<VerifyFinding> finding;
};

// The scenario document of `spec`'s world with `faults` and `choices` (the
// base document with neither for empty arrays).
nlohmann::ordered_json VerifyScenario(const VerifySpec& spec, const nlohmann::ordered_json& faults,
                                      const nlohmann::ordered_json& choices = nullptr);

// Runs the search on `jobs` threads. `progress` is called (under a lock)
// every few runs. Deterministic: the result does not depend on `jobs`.
VerifyResult RunVerify(const VerifySpec& spec, int jobs,
                       const std::function<void(const VerifyProgress&)>& progress = {});

// summary.json: the spec, the bound, the counts and the finding's kind,
// ordinal and file; `seconds` is the wall time taken (the one field that
// varies from run to run).
nlohmann::ordered_json VerifySummaryJson(const VerifySpec& spec, const VerifyResult& result,
                                         double seconds);

}  // namespace locksim

#endif  // LOCKSIM_SIM_EXPLORE_VERIFY_H_
