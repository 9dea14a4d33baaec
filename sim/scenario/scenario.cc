#include "sim/scenario/scenario.h"

#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/core/errors.h"

namespace locksim {
namespace {

using json = nlohmann::json;

std::string TypeName(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return "a number";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    default: return "something else";
  }
}

// Walks one JSON object, remembering which fields it read, so that an
// unknown (misspelt) field is an error rather than silently ignored.
class ObjectReader {
 public:
  ObjectReader(const json& j, std::string path, const std::string& file,
               std::vector<std::string> fields)
      : j_(j), path_(std::move(path)), file_(file), fields_(std::move(fields)) {
    if (!j_.is_object()) Fail(path_, "expected an object, got " + TypeName(j_));
    for (const auto& [key, value] : j_.items()) {
      if (std::find(fields_.begin(), fields_.end(), key) == fields_.end()) {
        std::string known;
        for (const std::string& f : fields_) known += (known.empty() ? "" : ", ") + f;
        Fail(Path(key), "unknown field (expected one of: " + known + ")");
      }
    }
  }

  bool Has(const std::string& key) const { return j_.contains(key); }
  const json& Get(const std::string& key) const { return j_.at(key); }
  std::string Path(const std::string& key) const { return path_ + "." + key; }

  [[noreturn]] void Fail(const std::string& path, const std::string& what) const {
    throw InputError(file_ + ": " + path + ": " + what);
  }

  const json* Find(const std::string& key, bool required) const {
    if (!j_.contains(key)) {
      if (required) Fail(Path(key), "required field is missing");
      return nullptr;
    }
    return &j_.at(key);
  }

  void String(const std::string& key, std::string* out, bool required = false) const {
    if (const json* v = Find(key, required)) {
      if (!v->is_string()) Fail(Path(key), "expected a string, got " + TypeName(*v));
      *out = v->get<std::string>();
    }
  }

  void Duration(const std::string& key, Nanos* out, bool required = false) const {
    if (const json* v = Find(key, required)) {
      if (!v->is_string()) {
        Fail(Path(key), "expected a duration string such as \"250ms\", got " +
                            TypeName(*v));
      }
      std::string error;
      auto d = ParseDuration(v->get<std::string>(), &error);
      if (!d) Fail(Path(key), error);
      *out = *d;
    }
  }

  void Bool(const std::string& key, bool* out, bool required = false) const {
    if (const json* v = Find(key, required)) {
      if (!v->is_boolean()) Fail(Path(key), "expected true or false, got " + TypeName(*v));
      *out = v->get<bool>();
    }
  }

  void Integer(const std::string& key, int64_t* out, int64_t min, int64_t max,
               bool required = false) const {
    if (const json* v = Find(key, required)) {
      if (!v->is_number_integer()) {
        Fail(Path(key), "expected an integer, got " + TypeName(*v));
      }
      if (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(max)) {
        Fail(Path(key), "must be at most " + std::to_string(max));
      }
      int64_t x = v->get<int64_t>();
      if (x < min || x > max) {
        Fail(Path(key), "must be between " + std::to_string(min) + " and " +
                            std::to_string(max) + ", got " + std::to_string(x));
      }
      *out = x;
    }
  }

  void Array(const std::string& key,
             const std::function<void(const json&, const std::string&)>& each,
             bool required = false) const {
    if (const json* v = Find(key, required)) {
      if (!v->is_array()) Fail(Path(key), "expected an array, got " + TypeName(*v));
      for (size_t i = 0; i < v->size(); ++i) {
        each((*v)[i], Path(key) + "[" + std::to_string(i) + "]");
      }
    }
  }

 private:
  const json& j_;
  std::string path_;
  const std::string& file_;
  std::vector<std::string> fields_;
};

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
                     "renewal_interval", "drift_factor_ppm", "parallel", "limit"});
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

// "+2s", "-500ms" or "2s": a duration with an optional sign.
Nanos SignedDuration(const ObjectReader& r, const std::string& key) {
  const json& v = r.Get(key);
  if (!v.is_string()) {
    r.Fail(r.Path(key), "expected a duration string such as \"-2s\" or \"+500ms\", got " +
                            TypeName(v));
  }
  std::string text = v.get<std::string>();
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text = text.substr(1);
  }
  std::string error;
  auto d = ParseDuration(text, &error);
  if (!d) r.Fail(r.Path(key), error);
  return negative ? -*d : *d;
}

struct Names {
  std::set<std::string> clients;
  std::vector<std::string> nodes;
  bool IsNode(const std::string& n) const {
    return std::find(nodes.begin(), nodes.end(), n) != nodes.end();
  }
  std::string NodeList() const {
    std::string out;
    for (const std::string& n : nodes) out += (out.empty() ? "" : ", ") + n;
    return out;
  }
  std::string ClientList() const {
    std::string out;
    for (const std::string& n : clients) out += (out.empty() ? "" : ", ") + n;
    return out;
  }
};

std::optional<TriggerSpec::Event> ParseTriggerEvent(std::string_view name) {
  for (auto e : {TriggerSpec::Event::kSend, TriggerSpec::Event::kReply,
                 TriggerSpec::Event::kAcquire, TriggerSpec::Event::kAcquired,
                 TriggerSpec::Event::kEnter, TriggerSpec::Event::kExit,
                 TriggerSpec::Event::kRelease, TriggerSpec::Event::kReleased}) {
    if (TriggerEventName(e) == name) return e;
  }
  return std::nullopt;
}

std::optional<FaultSpec::Type> ParseFaultType(std::string_view name) {
  using T = FaultSpec::Type;
  for (T t : {T::kPause, T::kCrash, T::kRestart, T::kFailover, T::kClock, T::kExpire,
              T::kPartition, T::kHeal, T::kDelay, T::kDrop}) {
    if (FaultTypeName(t) == name) return t;
  }
  return std::nullopt;
}

FaultSpec ParseFault(const json& j, const std::string& path, const std::string& file,
                     const Names& names, Nanos run_duration) {
  FaultSpec f;
  f.path = path;
  ObjectReader r(j, path, file,
                 {"type", "process", "at", "on", "duration", "restart_after", "power_loss",
                  "offset", "jump", "drift_ppm", "key", "ttl", "between", "latency",
                  "loss_percent", "note"});
  std::string type;
  r.String("type", &type, /*required=*/true);
  auto parsed = ParseFaultType(type);
  if (!parsed) {
    r.Fail(r.Path("type"), "unknown fault \"" + type +
                               "\" (known: pause, crash, restart, failover, clock, expire, "
                               "partition, heal, delay, drop)");
  }
  f.type = *parsed;
  using T = FaultSpec::Type;
  // Which fields each fault takes: anything else is a mistake worth naming.
  auto allowed = [&](std::initializer_list<const char*> fields) {
    static const char* kCommon[] = {"type", "at", "on", "note"};
    for (const auto& [key, value] : j.items()) {
      bool ok = std::find_if(std::begin(kCommon), std::end(kCommon),
                             [&](const char* c) { return key == c; }) != std::end(kCommon);
      for (const char* a : fields) ok = ok || key == a;
      if (!ok) r.Fail(r.Path(key), "not a field of a " + type + " fault");
    }
  };
  auto target = [&](bool clients, bool nodes) {
    r.String("process", &f.process, /*required=*/true);
    const bool is_client = names.clients.contains(f.process);
    const bool is_node = names.IsNode(f.process);
    if ((clients && is_client) || (nodes && is_node)) return;
    std::string expected = clients && nodes ? "a client (" + names.ClientList() +
                                                  ") or a Redis node (" + names.NodeList() + ")"
                           : clients ? "a client (" + names.ClientList() + ")"
                                     : "a Redis node (" + names.NodeList() + ")";
    r.Fail(r.Path("process"), "expected " + expected + ", got \"" + f.process + "\"");
  };
  auto links = [&]() {
    if (!r.Has("between")) {
      r.Fail(r.Path("between"), "required field is missing (two lists of processes, "
                                "e.g. [[\"A\"], [\"redis0\"]])");
    }
    const json& b = r.Get("between");
    if (!b.is_array() || b.size() != 2 || !b[0].is_array() || !b[1].is_array()) {
      r.Fail(r.Path("between"), "expected two lists of processes, e.g. [[\"A\"], [\"redis0\"]]");
    }
    for (int side = 0; side < 2; ++side) {
      for (size_t i = 0; i < b[side].size(); ++i) {
        const std::string p = r.Path("between") + "[" + std::to_string(side) + "][" +
                              std::to_string(i) + "]";
        if (!b[side][i].is_string()) r.Fail(p, "expected a process name, got " + TypeName(b[side][i]));
        const std::string name = b[side][i].get<std::string>();
        if (!names.clients.contains(name) && !names.IsNode(name)) {
          r.Fail(p, "names no client (" + names.ClientList() + ") or Redis node (" +
                        names.NodeList() + "): \"" + name + "\"");
        }
        (side == 0 ? f.from : f.to).push_back(name);
      }
      if (b[side].empty()) r.Fail(r.Path("between"), "each side needs at least one process");
    }
  };
  switch (f.type) {
    case T::kPause:
      allowed({"process", "duration"});
      target(true, true);
      r.Duration("duration", &f.duration, /*required=*/true);
      if (f.duration.count() == 0) r.Fail(r.Path("duration"), "must be more than 0s");
      break;
    case T::kCrash:
      allowed({"process", "restart_after", "power_loss"});
      target(true, true);
      if (r.Has("restart_after")) {
        Nanos d{0};
        r.Duration("restart_after", &d);
        f.restart_after = d;
      }
      r.Bool("power_loss", &f.power_loss);
      if (f.power_loss && !names.IsNode(f.process)) {
        r.Fail(r.Path("power_loss"), "only a Redis node loses unsynced data in a power loss");
      }
      break;
    case T::kRestart:
      allowed({"process"});
      target(true, true);
      break;
    case T::kFailover:
      allowed({"process"});
      target(false, true);
      break;
    case T::kClock: {
      allowed({"process", "offset", "jump", "drift_ppm"});
      target(true, true);
      int given = 0;
      if (r.Has("offset")) f.offset = SignedDuration(r, "offset"), ++given;
      if (r.Has("jump")) f.jump = SignedDuration(r, "jump"), ++given;
      if (r.Has("drift_ppm")) {
        int64_t ppm = 0;
        r.Integer("drift_ppm", &ppm, -999999, 1000000000);
        f.drift_ppm = ppm;
        ++given;
      }
      if (given == 0) {
        r.Fail(path, "a clock fault needs \"offset\", \"jump\" or \"drift_ppm\"");
      }
      break;
    }
    case T::kExpire:
      allowed({"process", "key", "ttl"});
      if (r.Has("process")) target(false, true);
      r.String("key", &f.key);
      if (r.Has("ttl")) {
        Nanos d{0};
        r.Duration("ttl", &d);
        if (d < std::chrono::milliseconds(1)) r.Fail(r.Path("ttl"), "must be at least 1ms");
        f.ttl = d;
      }
      break;
    case T::kPartition:
      allowed({"between", "duration"});
      links();
      r.Duration("duration", &f.duration);
      break;
    case T::kHeal:
      allowed({});
      break;
    case T::kDelay:
      allowed({"between", "duration", "latency"});
      links();
      r.Duration("duration", &f.duration);
      r.Duration("latency", &f.latency, /*required=*/true);
      break;
    case T::kDrop:
      allowed({"between", "duration", "loss_percent"});
      links();
      r.Duration("duration", &f.duration);
      r.Integer("loss_percent", &f.loss_percent, 1, 99, /*required=*/true);
      break;
  }
  if (r.Has("at") == r.Has("on")) {
    r.Fail(path, "needs exactly one of \"at\" (a time) or \"on\" (an event)");
  }
  if (r.Has("at")) {
    Nanos at{0};
    r.Duration("at", &at);
    if (at >= run_duration) {
      r.Fail(r.Path("at"), "the fault would fire after the run ends (duration " +
                               FormatDuration(run_duration) + ")");
    }
    f.at = at;
  } else {
    ObjectReader on(r.Get("on"), r.Path("on"), file,
                    {"process", "event", "command", "count", "after"});
    TriggerSpec t;
    on.String("process", &t.process, /*required=*/true);
    if (!names.clients.contains(t.process)) {
      on.Fail(on.Path("process"), "expected a client (" + names.ClientList() + "), got \"" +
                                      t.process + "\"");
    }
    std::string event;
    on.String("event", &event, /*required=*/true);
    auto e = ParseTriggerEvent(event);
    if (!e) {
      on.Fail(on.Path("event"), "unknown event \"" + event +
                                    "\" (known: send, reply, acquire, acquired, enter, exit, "
                                    "release, released)");
    }
    t.event = *e;
    on.String("command", &t.command);
    if (!t.command.empty() && t.event != TriggerSpec::Event::kSend &&
        t.event != TriggerSpec::Event::kReply) {
      on.Fail(on.Path("command"), "only \"send\" and \"reply\" events name a command");
    }
    on.Integer("count", &t.count, 1, INT64_MAX);
    on.Duration("after", &t.after);
    f.on = t;
  }
  return f;
}

}  // namespace

Scenario ParseScenario(const std::string& text, const std::string& file) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    size_t pos = what.find("] ");  // drop "[json.exception.parse_error.101] "
    if (pos != std::string::npos) what = what.substr(pos + 2);
    throw InputError(file + ": $: not valid JSON: " + what);
  }

  Scenario s;
  s.file = file;
  ObjectReader top(root, "$", file,
                   {"name", "description", "source", "algorithm", "seed",
                    "duration", "real_time_scale", "nodes", "network", "redis", "lock", "workload",
                    "clients", "faults", "liveness", "expect"});
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

  if (top.Has("network")) {
    ObjectReader net(top.Get("network"), top.Path("network"), file, {"latency", "timeout"});
    net.Duration("timeout", &s.network.timeout);
    if (net.Has("latency")) {
      ObjectReader lat(net.Get("latency"), net.Path("latency"), file, {"min", "max"});
      lat.Duration("min", &s.network.latency_min);
      lat.Duration("max", &s.network.latency_max);
      if (s.network.latency_min > s.network.latency_max) {
        lat.Fail(lat.Path("min"), "is greater than max");
      }
      if (s.network.latency_min.count() == 0) {
        // With instant messages a retry loop would never let time advance.
        lat.Fail(lat.Path("min"), "must be more than 0s: a message takes time");
      }
    }
  }

  if (top.Has("redis")) {
    ObjectReader r(top.Get("redis"), top.Path("redis"), file,
                   {"replicas", "replication_lag", "persistence", "rdb_interval"});
    int64_t replicas = 0;
    r.Integer("replicas", &replicas, 0, 8);
    s.redis.replicas = static_cast<int>(replicas);
    r.Duration("replication_lag", &s.redis.replication_lag);
    if (r.Has("persistence")) {
      std::string name;
      r.String("persistence", &name);
      const std::optional<Persistence> p = ParsePersistence(name);
      if (!p) {
        r.Fail(r.Path("persistence"),
               "expected one of none, aof-always, aof-everysec, rdb, got \"" + name + "\"");
      }
      s.redis.persistence = *p;
    }
    r.Duration("rdb_interval", &s.redis.rdb_interval);
  }

  if (top.Has("workload")) {
    ObjectReader w(top.Get("workload"), top.Path("workload"), file,
                   {"type", "stock", "token_ttl", "tick", "commands", "replies"});
    std::string type;
    w.String("type", &type, /*required=*/true);
    auto parsed = ParseWorkloadName(type);
    if (!parsed) {
      w.Fail(w.Path("type"), "unknown workload \"" + type +
                                 "\" (known: none, counter, inventory, token-refresh, scheduled-job, "
                                 "commands)");
    }
    s.workload.type = *parsed;
    w.Array("commands", [&](const json& c, const std::string& cpath) {
      if (!c.is_array() || c.empty()) w.Fail(cpath, "expected a command: a non-empty array of strings");
      std::vector<std::string> cmd;
      for (const json& arg : c) {
        if (!arg.is_string()) w.Fail(cpath, "expected a command: a non-empty array of strings");
        cmd.push_back(arg.get<std::string>());
      }
      s.workload.commands.push_back(std::move(cmd));
    });
    w.Array("replies", [&](const json& r, const std::string& rpath) {
      if (!r.is_string()) w.Fail(rpath, "expected a reply as redis-cli prints it, e.g. \"OK\"");
      s.workload.replies.push_back(r.get<std::string>());
    });
    if ((s.workload.type == WorkloadSpec::Type::kCommands) != w.Has("commands") ||
        s.workload.commands.size() != s.workload.replies.size()) {
      w.Fail(w.Path("commands"), "a \"commands\" workload needs \"commands\" and as many "
                                 "\"replies\" (and only it takes them)");
    }
    w.Integer("stock", &s.workload.stock, 0, INT64_MAX / 2);
    w.Duration("token_ttl", &s.workload.token_ttl);
    w.Duration("tick", &s.workload.tick);
    if (s.workload.token_ttl.count() == 0 || s.workload.tick.count() == 0) {
      w.Fail(w.Path(s.workload.tick.count() == 0 ? "tick" : "token_ttl"), "must be more than 0s");
    }
  }

  if (top.Has("lock")) s.lock = ParseLock(top.Get("lock"), top.Path("lock"), file);

  if (top.Has("liveness")) {
    ObjectReader l(top.Get("liveness"), top.Path("liveness"), file,
                   {"deadlock_after", "max_retries_per_acquisition"});
    l.Duration("deadlock_after", &s.liveness.deadlock_after);
    if (l.Has("max_retries_per_acquisition")) {
      const json& v = l.Get("max_retries_per_acquisition");
      if (!v.is_number() || v.get<double>() < 0) {
        l.Fail(l.Path("max_retries_per_acquisition"), "expected a number >= 0, got " + v.dump());
      }
      s.liveness.max_retries_per_acquisition = v.get<double>();
    }
  }

  Names known;
  known.nodes = s.NodeNames();
  std::set<std::string>& names = known.clients;
  top.Array(
      "clients",
      [&](const json& j, const std::string& path) {
        ObjectReader c(j, path, file,
                       {"name", "start", "iterations", "threads", "hold", "think", "reenter"});
        ClientSpec spec;
        c.String("name", &spec.name, /*required=*/true);
        if (spec.name.empty() || spec.name == "nemesis" || known.IsNode(spec.name)) {
          c.Fail(c.Path("name"),
                 "must be a non-empty name other than \"nemesis\" and the Redis nodes' (" +
                     known.NodeList() + ")");
        }
        if (!names.insert(spec.name).second) {
          c.Fail(c.Path("name"), "duplicate client name \"" + spec.name + "\"");
        }
        c.Duration("start", &spec.start);
        if (spec.start >= s.duration) {
          c.Fail(c.Path("start"), "the client would start after the run ends (duration " +
                                      FormatDuration(s.duration) + ")");
        }
        c.Integer("iterations", &spec.iterations, 0, INT64_MAX);
        c.Integer("threads", &spec.threads, 1, 64);
        c.Duration("hold", &spec.hold);
        c.Duration("think", &spec.think);
        c.Bool("reenter", &spec.reenter);
        s.clients.push_back(spec);
      },
      /*required=*/true);
  if (s.clients.empty()) top.Fail(top.Path("clients"), "needs at least one client");

  top.Array("faults", [&](const json& j, const std::string& path) {
    s.faults.push_back(ParseFault(j, path, file, known, s.duration));
  });

  if (top.Has("expect")) {
    const json& e = top.Get("expect");
    if (!e.is_object()) top.Fail(top.Path("expect"), "expected an object, got " + TypeName(e));
    for (const auto& [label, value] : e.items()) {
      const std::string path = top.Path("expect") + "." + label;
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
          if (slash == std::string::npos || !names.contains(pair.substr(0, slash)) ||
              !names.contains(pair.substr(slash + 1))) {
            r.Fail(ppath, "expected two client names \"A/B\", got \"" + pair + "\"");
          }
          x.overlaps.push_back(pair);
        });
      }
      r.Array("kinds", [&](const json& k, const std::string& kpath) {
        const std::optional<ViolationKind> kind =
            k.is_string() ? ParseViolationKind(k.get<std::string>()) : std::nullopt;
        if (!kind) {
          r.Fail(kpath, "expected \"mutual-exclusion\" or \"foreign-write\", got " + k.dump());
        }
        x.kinds.push_back(*kind);
      });
      if (r.Has("lock")) x.lock = ParseLock(r.Get("lock"), r.Path("lock"), file);
      if (r.Has("faults")) {
        std::vector<FaultSpec> faults;
        r.Array("faults", [&](const json& j, const std::string& fpath) {
          faults.push_back(ParseFault(j, fpath, file, known, s.duration));
        });
        x.faults = std::move(faults);
      }
      s.expect[label] = x;
    }
  }
  if (s.algorithm.empty() && !s.expect.empty()) s.algorithm = s.expect.begin()->second.algorithm;
  return s;
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
  }
  if (x.faults) out.faults = *x.faults;
  return out;
}

}  // namespace locksim
