// A scenario: the clients, their workload, the lock parameters and the
// faults of one story, loaded from a JSON file (format: docs/scenarios.md).
// Loading validates everything; an error names the file and the JSON path
// ("f.json: $.clients[1].hold: negative duration \"-5s\"") and is thrown as
// InputError.
#ifndef LOCKSIM_SIM_SCENARIO_H_
#define LOCKSIM_SIM_SCENARIO_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lockimpls/lock.h"
#include "sim/resource.h"
#include "sim/time.h"

namespace locksim {

struct ClientSpec {
  std::string name;
  Nanos start{0};          // when its first acquire begins
  int64_t iterations = 1;  // acquire -> hold -> release cycles; 0: until the end
  int64_t threads = 1;     // threads of the process, each running the cycles
  Nanos hold{0};           // time spent inside the critical section
  Nanos think{0};          // pause between a release and the next acquire
};

struct FaultSpec {
  enum class Type { kPause };
  Type type = Type::kPause;
  std::string process;  // a client name
  Nanos at{0};
  Nanos duration{0};
};

struct NetworkSpec {
  Nanos latency_min = std::chrono::microseconds(100);  // one way, per message
  Nanos latency_max = std::chrono::microseconds(500);
};

// The Redis deployment behind each node (group) the lock talks to.
struct RedisSpec {
  int replicas = 0;                                  // per node, asynchronous
  Nanos replication_lag = std::chrono::milliseconds(1);
  std::string persistence = "none";  // none, aof-always, aof-everysec, rdb
  Nanos rdb_interval = std::chrono::seconds(60);
};

struct Expectation {
  std::string verdict;                // "safe" or "violated"
  std::vector<std::string> overlaps;  // "A/B": the pairs that overlap
  bool has_overlaps = false;          // whether "overlaps" was given
  std::optional<bool> invariant_holds;  // the workload's invariant, if given
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
  std::map<std::string, Expectation> expect;  // by algorithm id
};

// Reads and validates a scenario file. Throws InputError.
Scenario LoadScenario(const std::string& path);
// Validates scenario text; `file` is used in messages. Throws InputError.
Scenario ParseScenario(const std::string& text, const std::string& file);
// The same scenario with every duration multiplied by `scale`. Throws
// InputError naming `option` if a duration would overflow.
Scenario Scaled(const Scenario& s, TimeScale scale, const std::string& option = "--time-scale");

}  // namespace locksim

#endif  // LOCKSIM_SIM_SCENARIO_H_
