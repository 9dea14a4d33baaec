#include "sim/scenario.h"

#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/errors.h"

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
                    "clients", "faults", "expect"});
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
    ObjectReader net(top.Get("network"), top.Path("network"), file, {"latency"});
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
    r.String("persistence", &s.redis.persistence);
    if (s.redis.persistence != "none" && s.redis.persistence != "aof-always" &&
        s.redis.persistence != "aof-everysec" && s.redis.persistence != "rdb") {
      r.Fail(r.Path("persistence"), "expected one of none, aof-always, aof-everysec, rdb, got \"" +
                                        s.redis.persistence + "\"");
    }
    r.Duration("rdb_interval", &s.redis.rdb_interval);
  }

  if (top.Has("workload")) {
    ObjectReader w(top.Get("workload"), top.Path("workload"), file,
                   {"type", "stock", "token_ttl", "tick"});
    std::string type;
    w.String("type", &type, /*required=*/true);
    auto parsed = ParseWorkloadName(type);
    if (!parsed) {
      w.Fail(w.Path("type"), "unknown workload \"" + type +
                                 "\" (known: none, counter, inventory, token-refresh, scheduled-job)");
    }
    s.workload.type = *parsed;
    w.Integer("stock", &s.workload.stock, 0, INT64_MAX / 2);
    w.Duration("token_ttl", &s.workload.token_ttl);
    w.Duration("tick", &s.workload.tick);
    if (s.workload.token_ttl.count() == 0 || s.workload.tick.count() == 0) {
      w.Fail(w.Path(s.workload.tick.count() == 0 ? "tick" : "token_ttl"), "must be more than 0s");
    }
  }

  if (top.Has("lock")) {
    ObjectReader lock(top.Get("lock"), top.Path("lock"), file,
                      {"key", "ttl", "retry_delay", "acquire_timeout", "tries",
                       "renewal_interval", "drift_factor_ppm", "parallel", "limit"});
    auto duration = [&](const char* name, std::optional<Nanos>* out) {
      if (!lock.Has(name)) return;
      Nanos d{0};
      lock.Duration(name, &d);
      *out = d;
    };
    if (lock.Has("key")) {
      std::string key;
      lock.String("key", &key);
      s.lock.key = key;
    }
    duration("ttl", &s.lock.ttl);
    duration("retry_delay", &s.lock.retry_delay);
    duration("acquire_timeout", &s.lock.acquire_timeout);
    duration("renewal_interval", &s.lock.renewal_interval);
    if (s.lock.renewal_interval && *s.lock.renewal_interval < std::chrono::milliseconds(1)) {
      lock.Fail(lock.Path("renewal_interval"), "must be at least 1ms");
    }
    if (lock.Has("limit")) {
      int64_t limit = 0;
      lock.Integer("limit", &limit, 1, INT64_MAX / 2);
      s.lock.limit = limit;
    }
    if (lock.Has("tries")) {
      int64_t tries = 0;
      lock.Integer("tries", &tries, 1, INT64_MAX);
      s.lock.tries = tries;
    }
    if (lock.Has("drift_factor_ppm")) {
      int64_t ppm = 0;
      lock.Integer("drift_factor_ppm", &ppm, 0, 1000000);
      s.lock.drift_factor_ppm = ppm;
    }
    if (lock.Has("parallel")) {
      bool parallel = true;
      lock.Bool("parallel", &parallel);
      s.lock.parallel = parallel;
    }
    if (s.lock.ttl && *s.lock.ttl < std::chrono::milliseconds(1)) {
      lock.Fail(lock.Path("ttl"), "must be at least 1ms (Redis PX is in ms)");
    }
  }

  std::set<std::string> names;
  top.Array(
      "clients",
      [&](const json& j, const std::string& path) {
        ObjectReader c(j, path, file,
                       {"name", "start", "iterations", "threads", "hold", "think"});
        ClientSpec spec;
        c.String("name", &spec.name, /*required=*/true);
        if (spec.name.empty() || spec.name == "nemesis") {
          c.Fail(c.Path("name"), "must be a non-empty name other than \"nemesis\"");
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
        s.clients.push_back(spec);
      },
      /*required=*/true);
  if (s.clients.empty()) top.Fail(top.Path("clients"), "needs at least one client");

  top.Array("faults", [&](const json& j, const std::string& path) {
    ObjectReader f(j, path, file, {"type", "process", "at", "duration"});
    FaultSpec spec;
    std::string type;
    f.String("type", &type, /*required=*/true);
    if (type != "pause") f.Fail(f.Path("type"), "unknown fault \"" + type + "\" (known: pause)");
    f.String("process", &spec.process, /*required=*/true);
    if (!names.contains(spec.process)) {
      f.Fail(f.Path("process"), "names no client: \"" + spec.process + "\"");
    }
    f.Duration("at", &spec.at, /*required=*/true);
    f.Duration("duration", &spec.duration, /*required=*/true);
    if (spec.at >= s.duration) {
      f.Fail(f.Path("at"), "the fault would fire after the run ends (duration " +
                               FormatDuration(s.duration) + ")");
    }
    s.faults.push_back(spec);
  });

  if (top.Has("expect")) {
    const json& e = top.Get("expect");
    if (!e.is_object()) top.Fail(top.Path("expect"), "expected an object, got " + TypeName(e));
    for (const auto& [algo, value] : e.items()) {
      const std::string path = top.Path("expect") + "." + algo;
      CheckAlgorithm(top, path, algo);
      Expectation x;
      ObjectReader r(value, path, file, {"verdict", "overlaps", "invariant"});
      r.String("verdict", &x.verdict, /*required=*/true);
      if (x.verdict != "safe" && x.verdict != "violated") {
        r.Fail(r.Path("verdict"), "expected \"safe\" or \"violated\", got \"" + x.verdict + "\"");
      }
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
      s.expect[algo] = x;
    }
  }
  if (s.algorithm.empty() && !s.expect.empty()) s.algorithm = s.expect.begin()->first;
  if (s.algorithm.empty()) {
    top.Fail("$", "names no algorithm: give \"algorithm\" or an \"expect\" entry");
  }
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
  for (FaultSpec& f : out.faults) {
    apply(f.at);
    apply(f.duration);
  }
  return out;
}

}  // namespace locksim
