#include "sim/explore/generate.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

#include "lockimpls/lock.h"
#include "sim/core/errors.h"
#include "sim/core/random.h"
#include "sim/core/text.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"

namespace locksim {
namespace {

using ojson = nlohmann::ordered_json;
using std::chrono::milliseconds;

// Generation draws from its own stream, apart from the run's (which the
// virtual world seeds with the same seed): "explore" in ASCII.
constexpr uint64_t kGenerationSalt = 0x6578706c6f7265ULL;

std::string Ms(int64_t ms) { return FormatDuration(milliseconds(ms)); }

std::string Pick(Random& rng, const std::vector<std::string>& from) {
  return from[rng.Uniform(from.size())];
}

bool Chance(Random& rng, int percent) { return static_cast<int>(rng.Uniform(100)) < percent; }

// What one seed's scenario is made of: the names the faults can aim at,
// the lease, and the lock's own commands.
struct Cast {
  std::vector<std::string> clients;
  std::vector<std::string> masters;
  int64_t ttl_ms = 0;
  const std::vector<std::string>* commands = nullptr;
  bool limiter = false;  // its clients send requests: no acquire, no section
  bool single_threaded = false;  // no client with "threads" (an adapter's)
  int64_t horizon_ms = 20000;  // faults at a time fire before this
};

// A step of about a fiftieth of the lease (at least 10ms): delays and
// durations scale with it, so a sub-second lease still meets its faults.
int64_t Step(const Cast& cast) { return std::max<int64_t>(10, cast.ttl_ms / 50 / 10 * 10); }

// A duration from one step up to `times_ttl` leases.
std::string UpToTtl(Random& rng, const Cast& cast, int64_t times_ttl) {
  const int64_t step = Step(cast);
  return Ms(rng.Between(1, std::max<int64_t>(1, times_ttl * cast.ttl_ms / step)) * step);
}

// A fault of a client fires at a time, or on an event of a client: right
// after it acquired, as it enters or leaves its section, as it starts or
// ends its release, or on its n-th reply to (or before its n-th sending of)
// one of the lock's own commands, which lands faults where locks are
// fragile far more often than a time drawn blindly (a crash right after
// SETNX's reply: F3; a pause between the check and the DEL: F6; a pause
// between SET's OK and reading it: F10).
void ClientTiming(ojson& fault, Random& rng, const Cast& cast, const std::string& target) {
  if (Chance(rng, 30)) {
    fault["at"] = Ms(rng.Between(0, cast.horizon_ms / 100) * 100);
    return;
  }
  static constexpr const char* kEvents[] = {"acquired", "enter", "exit", "release",
                                            "released"};
  ojson on;
  on["process"] = !target.empty() && Chance(rng, 75) ? target : Pick(rng, cast.clients);
  // Half of them on the lock's own commands, where its gaps are.
  const std::string event = cast.limiter || Chance(rng, 50)
                                ? (Chance(rng, 50) ? "reply" : "send")
                                : kEvents[rng.Uniform(std::size(kEvents))];
  on["event"] = event;
  if (event == "reply" || event == "send") {
    if (!cast.commands->empty() && Chance(rng, 85)) on["command"] = Pick(rng, *cast.commands);
    on["count"] = rng.Between(1, 3);
  }
  if (Chance(rng, 50)) on["after"] = Ms(rng.Between(1, 20) * Step(cast));
  fault["on"] = on;
}

// A fault of a Redis node, a link or the key matters while someone holds
// the lock there: mostly shortly after a client acquired it.
void NodeTiming(ojson& fault, Random& rng, const Cast& cast) {
  if (Chance(rng, 25) || cast.limiter) {
    fault["at"] = Ms(rng.Between(0, cast.horizon_ms / 100) * 100);
    return;
  }
  ojson on;
  on["process"] = Pick(rng, cast.clients);
  on["event"] = "acquired";
  on["after"] = Ms(rng.Between(0, std::max<int64_t>(1, cast.ttl_ms / 2 / Step(cast))) * Step(cast));
  fault["on"] = on;
}

ojson Between(Random& rng, const Cast& cast) {
  return ojson::array({ojson::array({Pick(rng, cast.clients)}),
                       ojson::array({Pick(rng, cast.masters)})});
}

// One fault of class `cls` (FaultClasses()).
ojson GenerateFault(const std::string& cls, Random& rng, const Cast& cast) {
  ojson f;
  std::string client;  // the client acted on, if it is one
  auto on_client = [&] {
    client = Pick(rng, cast.clients);
    f["process"] = client;
  };
  if (cls == "pause") {
    f["type"] = "pause";
    if (Chance(rng, 80)) {
      on_client();
    } else {
      f["process"] = Pick(rng, cast.masters);
    }
    f["duration"] = UpToTtl(rng, cast, 3);
  } else if (cls == "client-clock") {
    f["type"] = "clock";
    on_client();
    f["offset"] = (Chance(rng, 25) ? "-" : "+") + UpToTtl(rng, cast, 2);
  } else if (cls == "node-clock") {
    f["type"] = "clock";
    f["process"] = Pick(rng, cast.masters);
    f["jump"] = (Chance(rng, 25) ? "-" : "+") + UpToTtl(rng, cast, 3);
  } else if (cls == "client-crash") {
    f["type"] = "crash";
    on_client();
    if (Chance(rng, 50)) f["restart_after"] = UpToTtl(rng, cast, 2);
  } else if (cls == "node-crash") {
    f["type"] = "crash";
    // It comes back: a node that stays down is an outage, which no lock
    // survives and no lock is to blame for.
    f["process"] = Pick(rng, cast.masters);
    f["restart_after"] = UpToTtl(rng, cast, 2);
  } else if (cls == "failover") {
    f["type"] = "failover";
    f["process"] = Pick(rng, cast.masters);
  } else if (cls == "partition") {
    f["type"] = "partition";
    f["between"] = Between(rng, cast);
    f["duration"] = UpToTtl(rng, cast, 3);
  } else if (cls == "delay-drop") {
    f["between"] = Between(rng, cast);
    if (Chance(rng, 50)) {
      f["type"] = "delay";
      f["latency"] = UpToTtl(rng, cast, 2);
    } else {
      f["type"] = "drop";
      f["loss_percent"] = rng.Between(10, 90);
    }
    f["duration"] = UpToTtl(rng, cast, 3);
  } else if (cls == "expire") {
    f["type"] = "expire";
    if (cast.masters.size() > 1 && Chance(rng, 50)) f["process"] = Pick(rng, cast.masters);
    if (Chance(rng, 33)) f["ttl"] = Ms(rng.Between(1, cast.ttl_ms));
  }
  if (client.empty()) {
    NodeTiming(f, rng, cast);
  } else {
    ClientTiming(f, rng, cast, client);
  }
  return f;
}

// The longest a fault of `faults` keeps a node or a link away, in ms.
int64_t LongestOutage(const ojson& faults) {
  int64_t longest = 0;
  for (const ojson& f : faults) {
    int64_t sum = 0;  // a delayed link's last message arrives a latency late
    // A node clock set back keeps a key that much longer.
    for (const char* field : {"duration", "restart_after", "latency", "jump"}) {
      if (!f.contains(field)) continue;
      std::string text = f[field].get<std::string>();
      if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.erase(0, 1);
      std::string error;
      const Nanos d = ParseDuration(text, &error).value_or(Nanos{0});
      sum += std::chrono::duration_cast<milliseconds>(d).count();
    }
    longest = std::max(longest, sum);
  }
  return longest;
}

// A lost reply with no socket timeout hangs its client for ever, as any
// client library so configured would (explore.cc refuses such a run): a
// timeout for lossy links.
void TimeoutForLossyLinks(ojson& doc) {
  const bool lossy = std::any_of(doc["faults"].begin(), doc["faults"].end(),
                                 [](const ojson& f) { return f["type"] == "drop"; });
  if (lossy && !doc.contains("network")) doc["network"] = {{"timeout", "1s"}};
}

// The faults of a seed: one to three (four for Redlock's three nodes) of
// the classes asked for; none when "none" is the only class, and now and
// then when it is one of them.
ojson GenerateFaults(const ExploreSpec& spec, Random& rng, const Cast& cast) {
  ojson faults = ojson::array();
  std::vector<std::string> classes;
  for (const std::string& c : spec.faults) {
    if (c != "none") classes.push_back(c);
  }
  if (classes.empty()) return faults;
  if (Has(spec.faults, "none") && rng.Uniform(classes.size() + 1) == 0) return faults;
  const int64_t n = rng.Between(1, cast.masters.size() > 1 ? 4 : 3);
  for (int64_t i = 0; i < n; ++i) faults.push_back(GenerateFault(Pick(rng, classes), rng, cast));
  return faults;
}

// The Redis deployment: a replica with a lag for a failover, and now and
// then for any lock; the persistence a node crash meets.
ojson GenerateRedis(const ExploreSpec& spec, Random& rng) {
  ojson redis = ojson::object();
  if (Has(spec.faults, "failover") || Chance(rng, 15)) {
    redis["replicas"] = 1;
    redis["replication_lag"] = Ms(rng.Between(1, 100));
  }
  if (Has(spec.faults, "node-crash")) {
    static constexpr const char* kPersistence[] = {"none", "none", "aof-everysec", "aof-always",
                                                   "rdb"};
    redis["persistence"] = kPersistence[rng.Uniform(std::size(kPersistence))];
  }
  return redis;
}

// What the critical section does, and what a violation costs.
ojson GenerateWorkload(Random& rng, const Cast& cast) {
  const int64_t draw = static_cast<int64_t>(rng.Uniform(100));
  if (draw < 55) return {{"type", "counter"}};
  if (draw < 70) return {{"type", "inventory"}, {"stock", rng.Between(1, 3)}};
  const int64_t period = std::max<int64_t>(1000, rng.Between(2, 4) * cast.ttl_ms);
  if (draw < 85) return {{"type", "token-refresh"}, {"token_ttl", Ms(period)}};
  return {{"type", "scheduled-job"}, {"tick", Ms(period)}};
}

// The clients of a lock: within the lease contract (explore.cc), their
// work at most 80% of the TTL; one of them now and then with two threads,
// or re-entering its lock.
ojson GenerateClients(Random& rng, const Cast& cast) {
  const int64_t step = Step(cast);
  ojson clients = ojson::array();
  for (const std::string& name : cast.clients) {
    ojson c;
    c["name"] = name;
    c["start"] = Ms(rng.Between(0, 50) * 100);
    c["hold"] = Ms(rng.Between(1, std::max<int64_t>(1, cast.ttl_ms * 8 / 10 / step)) * step);
    c["iterations"] = rng.Between(1, 3);
    const int64_t think = rng.Between(0, 10) * 100;
    if (think > 0) c["think"] = Ms(think);
    clients.push_back(c);
  }
  if (Chance(rng, 10)) {
    // Drawn either way, so that a seed gives the same scenario otherwise.
    const size_t threaded = rng.Uniform(clients.size());
    if (!cast.single_threaded) clients[threaded]["threads"] = 2;
  }
  if (Chance(rng, 10)) clients[rng.Uniform(clients.size())]["reenter"] = true;
  return clients;
}

// Clients of a rate limiter: requests until the end, `think` apart.
ojson GenerateLimiterClients(Random& rng, const Cast& cast) {
  ojson clients = ojson::array();
  for (const std::string& name : cast.clients) {
    clients.push_back({{"name", name},
                       {"start", Ms(rng.Between(0, 10) * 100)},
                       {"iterations", 0},
                       {"think", Ms(rng.Between(5, 30) * 10)}});
  }
  return clients;
}

ojson GenerateLimiterScenario(const ExploreSpec& spec, Random& rng, uint64_t seed, Cast cast) {
  // A window of whole seconds (EXPIRE takes seconds), now and then less
  // (EXPIRE 0).
  cast.ttl_ms = Chance(rng, 20) ? rng.Between(1, 9) * 100 : rng.Between(1, 3) * 1000;
  cast.masters = {"redis0"};
  const int64_t n_clients = rng.Between(1, 3);
  for (int64_t i = 0; i < n_clients; ++i) cast.clients.push_back(std::string(1, char('A' + i)));
  ojson doc;
  doc["algorithm"] = spec.algorithm;
  doc["seed"] = seed;
  cast.horizon_ms = 5000;
  doc["duration"] = "10s";
  doc["lock"] = {{"ttl", Ms(cast.ttl_ms)}, {"limit", rng.Between(2, 10)}};
  doc["clients"] = GenerateLimiterClients(rng, cast);
  doc["faults"] = GenerateFaults(spec, rng, cast);
  TimeoutForLossyLinks(doc);
  doc["liveness"] = {
      {"deadlock_after", Ms(std::max<int64_t>(3000, 3 * cast.ttl_ms) + LongestOutage(doc["faults"]))}};
  return doc;
}

}  // namespace

const std::vector<std::string>& FaultClasses() {
  static const std::vector<std::string> kClasses = {
      "none",         "pause",    "client-clock", "node-clock", "client-crash",
      "node-crash",   "failover", "partition",    "delay-drop", "expire"};
  return kClasses;
}

std::vector<std::string> ParseFaultClasses(const std::string& text, const std::string& option) {
  const std::vector<std::string>& known = FaultClasses();
  const std::map<std::string, std::vector<std::string>> aliases = {
      {"clock", {"client-clock", "node-clock"}},
      {"crash", {"client-crash", "node-crash"}},
      {"delay", {"delay-drop"}},
      {"drop", {"delay-drop"}},
      {"all", known}};
  std::set<std::string> asked;
  std::stringstream ss(text);
  std::string item;
  bool any = false;
  while (std::getline(ss, item, ',')) {
    any = true;
    const size_t a = item.find_first_not_of(" \t");
    const size_t b = item.find_last_not_of(" \t");
    const std::string name = a == std::string::npos ? "" : item.substr(a, b - a + 1);
    if (auto alias = aliases.find(name); alias != aliases.end()) {
      asked.insert(alias->second.begin(), alias->second.end());
      continue;
    }
    if (!Has(known, name)) {
      throw InputError(option + ": unknown fault class \"" + name + "\" (known: " +
                       Join(known, ", ") + "; clock, crash, delay, drop; or all)");
    }
    asked.insert(name);
  }
  if (!any) throw InputError(option + ": no fault class given (known: " + Join(known, ", ") + ")");
  std::vector<std::string> out;
  for (const std::string& k : known) {
    if (asked.contains(k)) out.push_back(k);
  }
  return out;
}

RunOptions SeedRunOptions(const ExploreSpec& spec, uint64_t seed) {
  RunOptions o;
  o.algorithm = spec.algorithm;
  o.backend = spec.backend;
  o.time_scale = spec.time_scale;
  o.redis_server = spec.redis_server;
  o.replay = ExploreReplayCommand(spec, seed);
  o.explain = false;
  return o;
}

std::string ExploreReplayCommand(const ExploreSpec& spec, uint64_t seed) {
  std::string out = "locksim explore --algorithm " + spec.algorithm + " --faults ";
  for (size_t i = 0; i < spec.faults.size(); ++i) out += (i ? "," : "") + spec.faults[i];
  if (spec.faults.empty()) out += "none";
  if (spec.backend == Backend::kReal) {
    out += " --backend real";
    if (spec.time_scale) out += " --time-scale " + spec.time_scale->ToString();
    if (spec.redis_server != RunOptions{}.redis_server) out += " --redis-server " + spec.redis_server;
  }
  return out + " --first-seed " + std::to_string(seed) + " --seeds 1 --jobs 1";
}

ExploreSpec MakeExploreSpec(const std::string& algorithm, std::vector<std::string> faults,
                            const RunOptions& where) {
  const AlgorithmInfo* algo = FindAlgorithm(algorithm);
  if (algo == nullptr) {
    throw InputError("--algorithm: unknown algorithm \"" + algorithm + "\" (known: " +
                     AlgorithmIds() + ")");
  }
  if (algo->real_only() && where.backend != Backend::kReal) {
    throw InputError("--algorithm: " + algorithm +
                     " drives a third-party client on real servers: explore it with "
                     "--backend real (and a --time-scale)");
  }
  ExploreSpec spec;
  spec.algorithm = algorithm;
  spec.faults = std::move(faults);
  spec.limiter = algo->is_limiter();
  spec.backend = where.backend;
  spec.time_scale = where.time_scale;
  spec.redis_server = where.redis_server;
  spec.single_threaded = algo->real_only();
  // A probe: two clients, a few cycles, no fault. What they send is what
  // this variant sends.
  ojson probe;
  probe["algorithm"] = algorithm;
  probe["duration"] = "10s";
  if (algorithm == "redlock") probe["nodes"] = 3;
  probe["lock"] = spec.limiter ? ojson{{"ttl", "1s"}, {"limit", 2}}
                               : ojson{{"ttl", "2s"}, {"retry_delay", "100ms"}};
  probe["clients"] = ojson::array({{{"name", "A"}, {"iterations", 3}, {"hold", "100ms"}},
                                   {{"name", "B"}, {"iterations", 3}, {"hold", "100ms"}}});
  // (Every explore of the variant runs it first: its first seed's command
  // replays it.)
  const RunResult r = RunScenario(ParseScenarioDoc(probe, "explore-probe"),
                                  SeedRunOptions(spec, 1));
  for (const Op& op : r.history.ops()) {
    if (op.f != OpF::kRedis || op.type != OpType::kInvoke) continue;
    std::string name(r.history.command(op).name());
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (!Has(spec.commands, name)) spec.commands.push_back(name);
  }
  return spec;
}

ojson GenerateScenario(const ExploreSpec& spec, uint64_t seed) {
  Random rng(seed ^ kGenerationSalt);
  Cast cast;
  cast.commands = &spec.commands;
  cast.limiter = spec.limiter;
  cast.single_threaded = spec.single_threaded;
  if (spec.limiter) return GenerateLimiterScenario(spec, rng, seed, cast);
  // A lease from 100ms to 10s; a quarter of them under a second.
  cast.ttl_ms = Chance(rng, 25) ? rng.Between(1, 9) * 100 : rng.Between(10, 100) * 100;
  const bool redlock = spec.algorithm == "redlock";
  const int nodes = redlock ? 3 : 1;
  for (int i = 0; i < nodes; ++i) cast.masters.push_back("redis" + std::to_string(i));
  // Without faults, contention is the story (F11): up to eight clients.
  const bool faultless = spec.faults == std::vector<std::string>{"none"};
  const int64_t n_clients = rng.Between(2, faultless ? 8 : 4);
  for (int64_t i = 0; i < n_clients; ++i) cast.clients.push_back(std::string(1, char('A' + i)));

  ojson doc;
  doc["algorithm"] = spec.algorithm;
  doc["seed"] = seed;
  doc["duration"] = "1m";
  if (nodes > 1) doc["nodes"] = nodes;
  // Redlock gives up on a node that does not answer (redlock-rb's socket
  // timeout); the others wait for ever, as their documents do, or now and
  // then time out as a client library configured so does.
  if (redlock) {
    doc["network"] = {{"timeout", "50ms"}};
  } else if (Chance(rng, 15)) {
    doc["network"] = {{"timeout", Ms(rng.Between(1, 20) * 100)}};
  }
  const ojson redis = GenerateRedis(spec, rng);
  if (!redis.empty()) doc["redis"] = redis;
  doc["workload"] = GenerateWorkload(rng, cast);
  // Now and then clients with short work poll without pausing, as seed
  // 000's loop does (F11's retry storm).
  const int64_t retry_ms =
      cast.ttl_ms <= 1000 && Chance(rng, 50) ? 0
                      : std::min<int64_t>(rng.Between(1, 10) * 50, std::max<int64_t>(10, cast.ttl_ms / 2));
  // Clients keep trying for the whole run: a lock that never comes back is
  // the deadlock verdict's to find, after a lease and a second.
  doc["lock"] = {{"ttl", Ms(cast.ttl_ms)}, {"retry_delay", Ms(retry_ms)}, {"acquire_timeout", "1m"}};
  doc["clients"] = GenerateClients(rng, cast);
  doc["faults"] = GenerateFaults(spec, rng, cast);
  TimeoutForLossyLinks(doc);
  // Stuck for a lease, a second and the longest outage a fault causes is
  // the lock's doing, not the outage's.
  doc["liveness"] = {{"deadlock_after", Ms(cast.ttl_ms + 1000 + LongestOutage(doc["faults"]))},
                     {"max_retries_per_acquisition", 1}};
  return doc;
}

}  // namespace locksim
