// A scenario: the clients, their workload, the lock parameters and the
// faults of one story, loaded from a JSON file (format: docs/scenarios.md).
// Loading validates everything; an error names the file and the JSON path
// ("f.json: $.clients[1].hold: negative duration \"-5s\"") and is thrown as
// InputError.
#ifndef LOCKSIM_SIM_SCENARIO_SCENARIO_H_
#define LOCKSIM_SIM_SCENARIO_SCENARIO_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "lockimpls/lock.h"
#include "sim/check/liveness.h"
#include "sim/check/workload.h"
#include "sim/core/persistence.h"
#include "sim/core/time.h"
#include "sim/core/verdict.h"
#include "sim/scenario/choice.h"

namespace locksim {

struct ClientSpec {
  std::string name;
  Nanos start{0};          // when its first acquire begins
  int64_t iterations = 1;  // acquire -> hold -> release cycles; 0: until the end
  int64_t threads = 1;     // threads of the process, each running the cycles
  Nanos hold{0};           // time spent inside the critical section
  Nanos think{0};          // pause between a release and the next acquire
  // Seed 004's nested call: halfway through the section the thread takes
  // the same lock again, holds it for a quarter of `hold`, and releases it
  // in a `finally` (whether or not the inner acquire succeeded).
  bool reenter = false;
};

// When a fault fires: at a time, or on an event of a client ("right after
// A's SETNX reply", "when A enters its critical section").
struct TriggerSpec {
  // send     the client is about to send `command` (it is stopped before
  //          the bytes leave);
  // reply    the reply to `command` has reached the client, which has not
  //          read it yet;
  // acquire, acquired, enter, exit, release, released: the client starts
  //          acquiring, has acquired, enters / leaves its critical section,
  //          starts releasing, has released.
  enum class Event { kSend, kReply, kAcquire, kAcquired, kEnter, kExit, kRelease, kReleased };
  std::string process;  // a client (any of its threads)
  Event event = Event::kReply;
  std::string command;  // send/reply: the command's name, any case; empty: any
  int64_t count = 1;    // the count-th such event
  Nanos after{0};       // fire this long after the event
};
std::string_view TriggerEventName(TriggerSpec::Event e);

struct FaultSpec {
  enum class Type {
    kPause, kCrash, kRestart, kFailover, kClock, kExpire, kPartition, kHeal, kDelay, kDrop
  };
  Type type = Type::kPause;
  std::string path;     // "$.faults[2]": names the fault in messages and reports
  std::string process;  // the target: a client or a Redis node ("redis0")
  std::optional<Nanos> at;
  std::optional<TriggerSpec> on;
  Nanos duration{0};    // pause; partition, delay, drop (0: until healed / the end)
  std::optional<Nanos> restart_after;  // crash: restart this long after
  bool power_loss = false;             // node crash: also lose what was not fsynced
  // clock: set the offset, jump by an amount, or set the drift rate.
  std::optional<Nanos> offset;
  std::optional<Nanos> jump;
  std::optional<int64_t> drift_ppm;
  // expire: the key (default: the lock's) on the node (default: every
  // master) disappears now, or with `ttl` gets that TTL.
  std::string key;
  std::optional<Nanos> ttl;
  // partition, delay, drop: the links between each process of the first
  // set and each of the second, both ways.
  std::vector<std::string> from;
  std::vector<std::string> to;
  Nanos latency{0};          // delay: extra one-way latency
  int64_t loss_percent = 0;  // drop: share of the messages lost (TCP resends them)
};
std::string_view FaultTypeName(FaultSpec::Type t);

struct NetworkSpec {
  Nanos latency_min = std::chrono::microseconds(100);  // one way, per message
  Nanos latency_max = std::chrono::microseconds(500);
  Nanos timeout{0};  // the clients' socket timeout; 0: none (wait for ever)
};

// The Redis deployment behind each node (group) the lock talks to.
struct RedisSpec {
  int replicas = 0;                                  // per node, asynchronous
  Nanos replication_lag = std::chrono::milliseconds(1);
  Persistence persistence = Persistence::kNone;
  Nanos rdb_interval = std::chrono::seconds(60);
};

// One expected outcome. The key of an "expect" entry is a label: the
// algorithm id itself, or a name for a variation ("redlock delayed-restart")
// that gives its algorithm and overrides the lock settings or the faults.
struct Expectation {
  std::string label;
  std::string algorithm;              // default: the label
  Verdict verdict = Verdict::kSafe;
  std::vector<std::string> overlaps;  // "A/B": the pairs that overlap
  bool has_overlaps = false;          // whether "overlaps" was given
  std::vector<ViolationKind> kinds;   // violation kinds that must all appear
  std::optional<bool> invariant_holds;  // the workload's invariant, if given
  std::optional<LockOverrides> lock;    // over the scenario's "lock"
  std::optional<std::vector<FaultSpec>> faults;  // instead of the scenario's
};

struct Scenario {
  std::string file;  // as given on the command line
  std::string name;
  std::string description;
  std::string source;
  std::string algorithm;  // default algorithm for `run`
  uint64_t seed = 1;
  Nanos duration{0};  // the run stops here at the latest
  TimeScale real_time_scale;  // default --time-scale on the real backend
  int nodes = 1;
  NetworkSpec network;
  RedisSpec redis;
  WorkloadSpec workload;
  LockOverrides lock;  // over the variant's defaults
  std::vector<ClientSpec> clients;
  std::vector<FaultSpec> faults;
  // Deviations from the default schedule (sim/world/chooser.h), by point:
  // what locksim verify writes into a counterexample. Virtual backend only.
  std::vector<ChoiceSpec> choices;
  LivenessSpec liveness;
  std::map<std::string, Expectation> expect;  // by label
  // Names of the Redis node processes, in order ("redis0", "redis0r1"...).
  std::vector<std::string> NodeNames() const;
};

// The scenario as one expectation runs it: its algorithm, lock settings and
// faults applied.
Scenario ForExpectation(const Scenario& s, const Expectation& x);

// Reads and validates a scenario file. Throws InputError.
Scenario LoadScenario(const std::string& path);
// Validates scenario text; `file` is used in messages. Throws InputError.
Scenario ParseScenario(const std::string& text, const std::string& file);
// The same for a document already held as JSON, as explore and verify make
// theirs: what ParseScenario(doc.dump(), file) gives, without the text (only
// an out-of-range integer's message can tell a signed one from unsigned).
Scenario ParseScenarioDoc(const nlohmann::ordered_json& doc, const std::string& file);
// The same scenario with every duration multiplied by `scale`. Throws
// InputError naming `option` if a duration would overflow.
Scenario Scaled(const Scenario& s, TimeScale scale, const std::string& option = "--time-scale");

}  // namespace locksim

#endif  // LOCKSIM_SIM_SCENARIO_SCENARIO_H_
