#include "sim/scenario/scenario.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/core/errors.h"
#include "sim/scenario/fault_parse.h"
#include "sim/scenario/object_reader.h"

namespace locksim {
namespace {

void CheckAlgorithm(const ObjectReader& r, const std::string& path,
                    const std::string& id) {
  if (FindAlgorithm(id) == nullptr) {
    r.Fail(path, "unknown algorithm \"" + id + "\" (known: " + AlgorithmIds() + ")");
  }
}

LockOverrides ParseLock(const json& j, const std::string& path, const std::string& file) {
  LockOverrides out;
  ObjectReader lock(j, path, file,
                    {"key", "ttl", "retry_delay", "acquire_timeout", "tries",
                     "renewal_interval", "drift_factor_ppm", "parallel", "node_timeout", "limit"});
  auto duration = [&](const char* name, std::optional<Nanos>* o) {
    if (!lock.Has(name)) return;
    Nanos d{0};
    lock.Duration(name, &d);
    *o = d;
  };
  if (lock.Has("key")) {
    std::string key;
    lock.String("key", &key);
    if (key.empty()) lock.Fail(lock.Path("key"), "must not be empty");
    out.key = key;
  }
  duration("ttl", &out.ttl);
  duration("retry_delay", &out.retry_delay);
  duration("acquire_timeout", &out.acquire_timeout);
  duration("renewal_interval", &out.renewal_interval);
  duration("node_timeout", &out.node_timeout);
  if (out.renewal_interval && *out.renewal_interval < std::chrono::milliseconds(1)) {
    lock.Fail(lock.Path("renewal_interval"), "must be at least 1ms");
  }
  if (lock.Has("limit")) {
    int64_t limit = 0;
    lock.Integer("limit", &limit, 1, INT64_MAX / 2);
    out.limit = limit;
  }
  if (lock.Has("tries")) {
    int64_t tries = 0;
    lock.Integer("tries", &tries, 1, INT64_MAX);
    out.tries = tries;
  }
  if (lock.Has("drift_factor_ppm")) {
    int64_t ppm = 0;
    lock.Integer("drift_factor_ppm", &ppm, 0, 1000000);
    out.drift_factor_ppm = ppm;
  }
  if (lock.Has("parallel")) {
    bool parallel = true;
    lock.Bool("parallel", &parallel);
    out.parallel = parallel;
  }
  if (out.ttl && *out.ttl < std::chrono::milliseconds(1)) {
    lock.Fail(lock.Path("ttl"), "must be at least 1ms (Redis PX is in ms)");
  }
  return out;
}

// The top-level fields but the sections below.
void ParseHeader(const ObjectReader& top, const std::string& file, Scenario* out) {
  Scenario& s = *out;
  top.String("name", &s.name);
  if (s.name.empty()) {
    size_t slash = file.find_last_of('/');
    s.name = file.substr(slash == std::string::npos ? 0 : slash + 1);
    if (s.name.size() > 5 && s.name.ends_with(".json")) s.name.resize(s.name.size() - 5);
  }
  top.String("description", &s.description);
  top.String("source", &s.source);
  top.String("algorithm", &s.algorithm);
  if (!s.algorithm.empty()) CheckAlgorithm(top, top.Path("algorithm"), s.algorithm);
  int64_t seed = 1;
  top.Integer("seed", &seed, 0, INT64_MAX);
  s.seed = static_cast<uint64_t>(seed);
  top.Duration("duration", &s.duration, /*required=*/true);
  if (s.duration.count() == 0) top.Fail(top.Path("duration"), "must be more than 0s");
  if (top.Has("real_time_scale")) {
    std::string text_scale, error;
    top.String("real_time_scale", &text_scale);
    auto scale = ParseTimeScale(text_scale, &error);
    if (!scale) top.Fail(top.Path("real_time_scale"), error);
    s.real_time_scale = *scale;
  }
  int64_t nodes = 1;
  top.Integer("nodes", &nodes, 1, 9);
  s.nodes = static_cast<int>(nodes);
}

NetworkSpec ParseNetwork(const ObjectReader& net, const std::string& file) {
  NetworkSpec n;
  net.Duration("timeout", &n.timeout);
  if (!net.Has("latency")) return n;
  ObjectReader lat(net.Get("latency"), net.Path("latency"), file, {"min", "max"});
  lat.Duration("min", &n.latency_min);
  lat.Duration("max", &n.latency_max);
  if (n.latency_min > n.latency_max) lat.Fail(lat.Path("min"), "is greater than max");
  if (n.latency_min.count() == 0) {
    // With instant messages a retry loop would never let time advance.
    lat.Fail(lat.Path("min"), "must be more than 0s: a message takes time");
  }
  return n;
}

RedisSpec ParseRedis(const ObjectReader& r) {
  RedisSpec redis;
  int64_t replicas = 0;
  r.Integer("replicas", &replicas, 0, 8);
  redis.replicas = static_cast<int>(replicas);
  r.Duration("replication_lag", &redis.replication_lag);
  if (r.Has("persistence")) {
    std::string name;
    r.String("persistence", &name);
    const std::optional<Persistence> p = ParsePersistence(name);
    if (!p) {
      r.Fail(r.Path("persistence"),
             "expected one of none, aof-always, aof-everysec, rdb, got \"" + name + "\"");
    }
    redis.persistence = *p;
  }
  r.Duration("rdb_interval", &redis.rdb_interval);
  return redis;
}

WorkloadSpec ParseWorkload(const ObjectReader& w) {
  WorkloadSpec spec;
  std::string type;
  w.String("type", &type, /*required=*/true);
  auto parsed = ParseWorkloadName(type);
  if (!parsed) {
    w.Fail(w.Path("type"), "unknown workload \"" + type +
                               "\" (known: none, counter, inventory, token-refresh, scheduled-job, "
                               "commands)");
  }
  spec.type = *parsed;
  w.Array("commands", [&](const json& c, const std::string& cpath) {
    if (!c.is_array() || c.empty()) w.Fail(cpath, "expected a command: a non-empty array of strings");
    std::vector<std::string> cmd;
    for (const json& arg : c) {
      if (!arg.is_string()) w.Fail(cpath, "expected a command: a non-empty array of strings");
      cmd.push_back(arg.get<std::string>());
    }
    spec.commands.push_back(std::move(cmd));
  });
  w.Array("replies", [&](const json& r, const std::string& rpath) {
    if (!r.is_string()) w.Fail(rpath, "expected a reply as redis-cli prints it, e.g. \"OK\"");
    spec.replies.push_back(r.get<std::string>());
  });
  if ((spec.type == WorkloadSpec::Type::kCommands) != w.Has("commands") ||
      spec.commands.size() != spec.replies.size()) {
    w.Fail(w.Path("commands"), "a \"commands\" workload needs \"commands\" and as many "
                               "\"replies\" (and only it takes them)");
  }
  w.Integer("stock", &spec.stock, 0, INT64_MAX / 2);
  w.Duration("token_ttl", &spec.token_ttl);
  w.Duration("tick", &spec.tick);
  if (spec.token_ttl.count() == 0 || spec.tick.count() == 0) {
    w.Fail(w.Path(spec.tick.count() == 0 ? "tick" : "token_ttl"), "must be more than 0s");
  }
  return spec;
}

LivenessSpec ParseLiveness(const ObjectReader& l) {
  LivenessSpec spec;
  l.Duration("deadlock_after", &spec.deadlock_after);
  if (l.Has("max_retries_per_acquisition")) {
    const json& v = l.Get("max_retries_per_acquisition");
    if (!v.is_number() || v.get<double>() < 0) {
      l.Fail(l.Path("max_retries_per_acquisition"), "expected a number >= 0, got " + v.dump());
    }
    spec.max_retries_per_acquisition = v.get<double>();
  }
  return spec;
}

ClientSpec ParseClient(const json& j, const std::string& path, const std::string& file,
                       Names* known, Nanos run_duration) {
  ObjectReader c(j, path, file,
                 {"name", "start", "iterations", "threads", "hold", "think", "reenter"});
  ClientSpec spec;
  c.String("name", &spec.name, /*required=*/true);
  if (spec.name.empty() || spec.name == "nemesis" || known->IsNode(spec.name)) {
    c.Fail(c.Path("name"),
           "must be a non-empty name other than \"nemesis\" and the Redis nodes' (" +
               known->NodeList() + ")");
  }
  if (!known->clients.insert(spec.name).second) {
    c.Fail(c.Path("name"), "duplicate client name \"" + spec.name + "\"");
  }
  c.Duration("start", &spec.start);
  if (spec.start >= run_duration) {
    c.Fail(c.Path("start"), "the client would start after the run ends (duration " +
                                FormatDuration(run_duration) + ")");
  }
  c.Integer("iterations", &spec.iterations, 0, INT64_MAX);
  c.Integer("threads", &spec.threads, 1, 64);
  if (spec.threads > 1) {
    for (int64_t t = 1; t <= spec.threads; ++t) known->threads.insert(spec.name + "." + std::to_string(t));
  }
  c.Duration("hold", &spec.hold);
  c.Duration("think", &spec.think);
  c.Bool("reenter", &spec.reenter);
  return spec;
}

// One entry of "expect", under `label`.
Expectation ParseExpectation(const json& value, const std::string& label, const std::string& path,
                             const std::string& file, const Names& known, Nanos run_duration) {
  Expectation x;
  x.label = label;
  ObjectReader r(value, path, file,
                 {"algorithm", "verdict", "overlaps", "kinds", "invariant", "lock", "faults",
                  "note"});
  x.algorithm = label;
  r.String("algorithm", &x.algorithm);
  CheckAlgorithm(r, r.Has("algorithm") ? r.Path("algorithm") : path, x.algorithm);
  std::string verdict;
  r.String("verdict", &verdict, /*required=*/true);
  const std::optional<Verdict> parsed = ParseVerdict(verdict);
  if (!parsed) {
    r.Fail(r.Path("verdict"), "expected \"safe\", \"violated\", \"deadlock\" or "
                              "\"degraded\", got \"" + verdict + "\"");
  }
  x.verdict = *parsed;
  if (r.Has("invariant")) {
    std::string inv;
    r.String("invariant", &inv);
    if (inv != "holds" && inv != "broken") {
      r.Fail(r.Path("invariant"), "expected \"holds\" or \"broken\", got \"" + inv + "\"");
    }
    x.invariant_holds = inv == "holds";
  }
  if (r.Has("overlaps")) {
    x.has_overlaps = true;
    r.Array("overlaps", [&](const json& p, const std::string& ppath) {
      if (!p.is_string()) r.Fail(ppath, "expected a string \"A/B\", got " + TypeName(p));
      std::string pair = p.get<std::string>();
      size_t slash = pair.find('/');
      auto named = [&](const std::string& n) {
        return known.clients.contains(n) || known.threads.contains(n);
      };
      if (slash == std::string::npos || !named(pair.substr(0, slash)) ||
          !named(pair.substr(slash + 1))) {
        r.Fail(ppath, "expected two client (or thread: \"A.1\") names \"A/B\", got \"" +
                          pair + "\"");
      }
      x.overlaps.push_back(pair);
    });
  }
  r.Array("kinds", [&](const json& k, const std::string& kpath) {
    const std::optional<ViolationKind> kind =
        k.is_string() ? ParseViolationKind(k.get<std::string>()) : std::nullopt;
    if (!kind) r.Fail(kpath, "expected \"mutual-exclusion\" or \"foreign-write\", got " + k.dump());
    x.kinds.push_back(*kind);
  });
  if (r.Has("lock")) x.lock = ParseLock(r.Get("lock"), r.Path("lock"), file);
  if (r.Has("faults")) {
    std::vector<FaultSpec> faults;
    r.Array("faults", [&](const json& j, const std::string& fpath) {
      faults.push_back(ParseFault(j, fpath, file, known, run_duration));
    });
    x.faults = std::move(faults);
  }
  return x;
}

// {"point": 7, "at": "10.2ms", "message": "A->redis0", "delay": "1s"}, or
// {"point": 9, "at": "10.4ms", "among": ["A->redis0", "B->redis0"], "first": "B->redis0"}.
ChoiceSpec ParseChoice(const json& j, const std::string& path, const std::string& file,
                       const std::vector<ChoiceSpec>& before) {
  ObjectReader r(j, path, file, {"point", "at", "message", "delay", "among", "first"});
  ChoiceSpec c;
  r.Integer("point", &c.point, 1, INT64_MAX, /*required=*/true);
  if (!before.empty() && c.point <= before.back().point) {
    r.Fail(r.Path("point"), "must be greater than the previous choice's (" +
                                std::to_string(before.back().point) + "): one entry per point, in order");
  }
  r.Duration("at", &c.at, /*required=*/true);
  if (r.Has("message") == r.Has("among")) {
    r.Fail(path, "needs either \"message\" and \"delay\" (a message delivered later) or "
                 "\"among\" and \"first\" (a tie broken otherwise)");
  }
  if (r.Has("message")) {
    c.tie = false;
    r.String("message", &c.message, /*required=*/true);
    r.Duration("delay", &c.delay, /*required=*/true);
    if (c.delay <= Nanos{0}) r.Fail(r.Path("delay"), "must be more than 0");
    if (c.delay > std::chrono::hours(1)) r.Fail(r.Path("delay"), "must be at most 1h");
    if (r.Has("first")) r.Fail(r.Path("first"), "belongs to a tie (\"among\"), not a message");
    return c;
  }
  c.tie = true;
  if (r.Has("delay")) r.Fail(r.Path("delay"), "belongs to a message, not a tie (\"among\")");
  r.Array("among", [&](const json& v, const std::string& at) {
    if (!v.is_string()) r.Fail(at, "expected a string, got " + TypeName(v));
    c.among.push_back(v.get<std::string>());
  }, /*required=*/true);
  if (c.among.size() < 2) r.Fail(r.Path("among"), "a tie needs at least two streams");
  r.String("first", &c.first, /*required=*/true);
  const auto it = std::find(c.among.begin(), c.among.end(), c.first);
  if (it == c.among.end()) r.Fail(r.Path("first"), "\"" + c.first + "\" is not among the tie's streams");
  if (it == c.among.begin()) {
    r.Fail(r.Path("first"), "\"" + c.first + "\" runs first anyway (FIFO order): not a deviation");
  }
  return c;
}

json ParseJson(const std::string& text, const std::string& file) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    // parse_error, and out_of_range for a number too large for a double
    // ("1e999"; found by the scenario fuzzer's sibling, tests/fuzz/).
    std::string what = e.what();
    size_t pos = what.find("] ");  // drop "[json.exception.parse_error.101] "
    if (pos != std::string::npos) what = what.substr(pos + 2);
    throw InputError(file + ": $: not valid JSON: " + what);
  }
}

}  // namespace

Scenario ParseScenarioDoc(const json& root, const std::string& file) {
  Scenario s;
  s.file = file;
  ObjectReader top(root, "$", file,
                   {"name", "description", "source", "algorithm", "seed",
                    "duration", "real_time_scale", "nodes", "network", "redis", "lock", "workload",
                    "clients", "faults", "choices", "liveness", "expect"});
  ParseHeader(top, file, &s);
  auto section = [&](const char* key, std::initializer_list<std::string_view> fields) {
    return ObjectReader(top.Get(key), top.Path(key), file, fields);
  };
  if (top.Has("network")) s.network = ParseNetwork(section("network", {"latency", "timeout"}), file);
  if (top.Has("redis")) {
    s.redis = ParseRedis(
        section("redis", {"replicas", "replication_lag", "persistence", "rdb_interval"}));
  }
  if (top.Has("workload")) {
    s.workload = ParseWorkload(
        section("workload", {"type", "stock", "token_ttl", "tick", "commands", "replies"}));
  }
  if (top.Has("lock")) s.lock = ParseLock(top.Get("lock"), top.Path("lock"), file);
  if (top.Has("liveness")) {
    s.liveness =
        ParseLiveness(section("liveness", {"deadlock_after", "max_retries_per_acquisition"}));
  }
  Names known;
  known.nodes = s.NodeNames();
  top.Array(
      "clients",
      [&](const json& j, const std::string& path) {
        s.clients.push_back(ParseClient(j, path, file, &known, s.duration));
      },
      /*required=*/true);
  if (s.clients.empty()) top.Fail(top.Path("clients"), "needs at least one client");
  top.Array("faults", [&](const json& j, const std::string& path) {
    s.faults.push_back(ParseFault(j, path, file, known, s.duration));
  });
  top.Array("choices", [&](const json& j, const std::string& path) {
    s.choices.push_back(ParseChoice(j, path, file, s.choices));
  });
  if (top.Has("expect")) {
    const json& e = top.Get("expect");
    if (!e.is_object()) top.Fail(top.Path("expect"), "expected an object, got " + TypeName(e));
    for (const auto& [label, value] : e.items()) {
      s.expect[label] = ParseExpectation(value, label, top.Path("expect") + "." + label, file,
                                         known, s.duration);
    }
  }
  if (s.algorithm.empty() && !s.expect.empty()) s.algorithm = s.expect.begin()->second.algorithm;
  return s;
}

Scenario ParseScenario(const std::string& text, const std::string& file) {
  return ParseScenarioDoc(ParseJson(text, file), file);
}

Scenario LoadScenario(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open the scenario file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(path + ": cannot read the scenario file");
  return ParseScenario(buffer.str(), path);
}

Scenario Scaled(const Scenario& s, TimeScale scale, const std::string& option) {
  Scenario out = s;
  auto apply = [&](Nanos& d) {
    const __int128 scaled = static_cast<__int128>(d.count()) * scale.num / scale.den;
    if (scaled > INT64_MAX / 4) {
      throw InputError(option + ": scaling " + s.file + " by " + scale.ToString() +
                       " makes a duration too large (" + FormatDuration(d) + ")");
    }
    d = Nanos(static_cast<int64_t>(scaled));
  };
  apply(out.duration);
  apply(out.network.latency_min);
  apply(out.network.latency_max);
  apply(out.redis.replication_lag);
  apply(out.workload.token_ttl);
  apply(out.workload.tick);
  apply(out.redis.rdb_interval);
  for (std::optional<Nanos>* d : {&out.lock.ttl, &out.lock.retry_delay, &out.lock.acquire_timeout,
                                      &out.lock.renewal_interval}) {
    if (*d) apply(**d);
  }
  for (ClientSpec& c : out.clients) {
    apply(c.start);
    apply(c.hold);
    apply(c.think);
  }
  if (out.network.timeout.count() > 0) apply(out.network.timeout);
  apply(out.liveness.deadlock_after);
  auto faults = [&](std::vector<FaultSpec>& list) {
    for (FaultSpec& f : list) {
      if (f.at) apply(*f.at);
      if (f.on) apply(f.on->after);
      apply(f.duration);
      for (std::optional<Nanos>* d : {&f.restart_after, &f.offset, &f.jump, &f.ttl}) {
        if (*d) {
          const bool negative = **d < Nanos{0};
          Nanos magnitude = negative ? -**d : **d;
          apply(magnitude);
          **d = negative ? -magnitude : magnitude;
        }
      }
      apply(f.latency);
    }
  };
  faults(out.faults);
  for (ChoiceSpec& c : out.choices) {
    apply(c.at);
    apply(c.delay);
  }
  for (auto& [label, x] : out.expect) {
    if (x.faults) faults(*x.faults);
    if (x.lock) {
      for (std::optional<Nanos>* d : {&x.lock->ttl, &x.lock->retry_delay,
                                          &x.lock->acquire_timeout, &x.lock->renewal_interval}) {
        if (*d) apply(**d);
      }
    }
  }
  return out;
}

std::string_view TriggerEventName(TriggerSpec::Event e) {
  using E = TriggerSpec::Event;
  switch (e) {
    case E::kSend: return "send";
    case E::kReply: return "reply";
    case E::kAcquire: return "acquire";
    case E::kAcquired: return "acquired";
    case E::kEnter: return "enter";
    case E::kExit: return "exit";
    case E::kRelease: return "release";
    case E::kReleased: return "released";
  }
  return "?";
}

std::string_view FaultTypeName(FaultSpec::Type t) {
  using T = FaultSpec::Type;
  switch (t) {
    case T::kPause: return "pause";
    case T::kCrash: return "crash";
    case T::kRestart: return "restart";
    case T::kFailover: return "failover";
    case T::kClock: return "clock";
    case T::kExpire: return "expire";
    case T::kPartition: return "partition";
    case T::kHeal: return "heal";
    case T::kDelay: return "delay";
    case T::kDrop: return "drop";
  }
  return "?";
}

std::vector<std::string> Scenario::NodeNames() const {
  std::vector<std::string> out;
  for (int g = 0; g < nodes; ++g) {
    out.push_back("redis" + std::to_string(g));
    for (int r = 1; r <= redis.replicas; ++r) {
      out.push_back("redis" + std::to_string(g) + "r" + std::to_string(r));
    }
  }
  return out;
}

Scenario ForExpectation(const Scenario& s, const Expectation& x) {
  Scenario out = s;
  out.algorithm = x.algorithm;
  if (x.lock) {
    const LockOverrides& o = *x.lock;
    if (o.key) out.lock.key = o.key;
    if (o.ttl) out.lock.ttl = o.ttl;
    if (o.retry_delay) out.lock.retry_delay = o.retry_delay;
    if (o.acquire_timeout) out.lock.acquire_timeout = o.acquire_timeout;
    if (o.tries) out.lock.tries = o.tries;
    if (o.limit) out.lock.limit = o.limit;
    if (o.renewal_interval) out.lock.renewal_interval = o.renewal_interval;
    if (o.drift_factor_ppm) out.lock.drift_factor_ppm = o.drift_factor_ppm;
    if (o.parallel) out.lock.parallel = o.parallel;
    if (o.node_timeout) out.lock.node_timeout = o.node_timeout;
  }
  if (x.faults) out.faults = *x.faults;
  return out;
}

}  // namespace locksim
