#include "sim/scenario/fault_parse.h"

#include <cstdint>
#include <optional>

namespace locksim {
namespace {

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

// Reads one fault: its type's own fields, then when it fires.
class FaultParser {
 public:
  FaultParser(const json& j, const std::string& path, const std::string& file,
              const Names& names)
      : j_(j),
        path_(path),
        file_(file),
        names_(names),
        r_(j, path, file,
           {"type", "process", "at", "on", "duration", "restart_after", "power_loss", "offset",
            "jump", "drift_ppm", "key", "ttl", "between", "latency", "loss_percent", "note"}) {
    f_.path = path;
  }

  FaultSpec Parse(Nanos run_duration) {
    r_.String("type", &type_, /*required=*/true);
    auto parsed = ParseFaultType(type_);
    if (!parsed) {
      r_.Fail(r_.Path("type"), "unknown fault \"" + type_ +
                                   "\" (known: pause, crash, restart, failover, clock, expire, "
                                   "partition, heal, delay, drop)");
    }
    f_.type = *parsed;
    switch (f_.type) {
      case FaultSpec::Type::kPause: Pause(); break;
      case FaultSpec::Type::kCrash: Crash(); break;
      case FaultSpec::Type::kRestart:
        Allowed({"process"});
        Target(true, true);
        break;
      case FaultSpec::Type::kFailover:
        Allowed({"process"});
        Target(false, true);
        break;
      case FaultSpec::Type::kClock: Clock(); break;
      case FaultSpec::Type::kExpire: Expire(); break;
      case FaultSpec::Type::kPartition:
        Allowed({"between", "duration"});
        Links();
        r_.Duration("duration", &f_.duration);
        break;
      case FaultSpec::Type::kHeal: Allowed({}); break;
      case FaultSpec::Type::kDelay:
        Allowed({"between", "duration", "latency"});
        Links();
        r_.Duration("duration", &f_.duration);
        r_.Duration("latency", &f_.latency, /*required=*/true);
        break;
      case FaultSpec::Type::kDrop:
        Allowed({"between", "duration", "loss_percent"});
        Links();
        r_.Duration("duration", &f_.duration);
        r_.Integer("loss_percent", &f_.loss_percent, 1, 99, /*required=*/true);
        break;
    }
    When(run_duration);
    return f_;
  }

 private:
  // Which fields each fault takes: anything else is a mistake worth naming.
  void Allowed(std::initializer_list<std::string_view> fields) {
    static constexpr std::string_view kCommon[] = {"type", "at", "on", "note"};
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      const std::string& key = it.key();
      if (std::find(std::begin(kCommon), std::end(kCommon), key) == std::end(kCommon) &&
          std::find(fields.begin(), fields.end(), key) == fields.end()) {
        r_.Fail(r_.Path(key), "not a field of a " + type_ + " fault");
      }
    }
  }

  // "process": a client, a Redis node, or either.
  void Target(bool clients, bool nodes) {
    r_.String("process", &f_.process, /*required=*/true);
    const bool is_client = names_.clients.contains(f_.process);
    const bool is_node = names_.IsNode(f_.process);
    if ((clients && is_client) || (nodes && is_node)) return;
    std::string expected = clients && nodes ? "a client (" + names_.ClientList() +
                                                  ") or a Redis node (" + names_.NodeList() + ")"
                           : clients ? "a client (" + names_.ClientList() + ")"
                                     : "a Redis node (" + names_.NodeList() + ")";
    r_.Fail(r_.Path("process"), "expected " + expected + ", got \"" + f_.process + "\"");
  }

  // "between": two lists of processes, the links between them.
  void Links() {
    if (!r_.Has("between")) {
      r_.Fail(r_.Path("between"), "required field is missing (two lists of processes, "
                                  "e.g. [[\"A\"], [\"redis0\"]])");
    }
    const json& b = r_.Get("between");
    if (!b.is_array() || b.size() != 2 || !b[0].is_array() || !b[1].is_array()) {
      r_.Fail(r_.Path("between"), "expected two lists of processes, e.g. [[\"A\"], [\"redis0\"]]");
    }
    for (int side = 0; side < 2; ++side) {
      for (size_t i = 0; i < b[side].size(); ++i) {
        const std::string p = r_.Path("between") + "[" + std::to_string(side) + "][" +
                              std::to_string(i) + "]";
        if (!b[side][i].is_string()) {
          r_.Fail(p, "expected a process name, got " + TypeName(b[side][i]));
        }
        const std::string name = b[side][i].get<std::string>();
        if (!names_.clients.contains(name) && !names_.IsNode(name)) {
          r_.Fail(p, "names no client (" + names_.ClientList() + ") or Redis node (" +
                         names_.NodeList() + "): \"" + name + "\"");
        }
        (side == 0 ? f_.from : f_.to).push_back(name);
      }
      if (b[side].empty()) r_.Fail(r_.Path("between"), "each side needs at least one process");
    }
  }

  void Pause() {
    Allowed({"process", "duration"});
    Target(true, true);
    r_.Duration("duration", &f_.duration, /*required=*/true);
    if (f_.duration.count() == 0) r_.Fail(r_.Path("duration"), "must be more than 0s");
  }

  void Crash() {
    Allowed({"process", "restart_after", "power_loss"});
    Target(true, true);
    if (r_.Has("restart_after")) {
      Nanos d{0};
      r_.Duration("restart_after", &d);
      f_.restart_after = d;
    }
    r_.Bool("power_loss", &f_.power_loss);
    if (f_.power_loss && !names_.IsNode(f_.process)) {
      r_.Fail(r_.Path("power_loss"), "only a Redis node loses unsynced data in a power loss");
    }
  }

  void Clock() {
    Allowed({"process", "offset", "jump", "drift_ppm"});
    Target(true, true);
    int given = 0;
    if (r_.Has("offset")) f_.offset = SignedDuration(r_, "offset"), ++given;
    if (r_.Has("jump")) f_.jump = SignedDuration(r_, "jump"), ++given;
    if (r_.Has("drift_ppm")) {
      int64_t ppm = 0;
      r_.Integer("drift_ppm", &ppm, -999999, 1000000000);
      f_.drift_ppm = ppm;
      ++given;
    }
    if (given == 0) r_.Fail(path_, "a clock fault needs \"offset\", \"jump\" or \"drift_ppm\"");
  }

  void Expire() {
    Allowed({"process", "key", "ttl"});
    if (r_.Has("process")) Target(false, true);
    r_.String("key", &f_.key);
    if (r_.Has("ttl")) {
      Nanos d{0};
      r_.Duration("ttl", &d);
      if (d < std::chrono::milliseconds(1)) r_.Fail(r_.Path("ttl"), "must be at least 1ms");
      f_.ttl = d;
    }
  }

  // "at" a time before the run ends, or "on" a client's event.
  void When(Nanos run_duration) {
    if (r_.Has("at") == r_.Has("on")) {
      r_.Fail(path_, "needs exactly one of \"at\" (a time) or \"on\" (an event)");
    }
    if (!r_.Has("at")) {
      f_.on = Trigger();
      return;
    }
    Nanos at{0};
    r_.Duration("at", &at);
    if (at >= run_duration) {
      r_.Fail(r_.Path("at"), "the fault would fire after the run ends (duration " +
                                 FormatDuration(run_duration) + ")");
    }
    f_.at = at;
  }

  TriggerSpec Trigger() {
    ObjectReader on(r_.Get("on"), r_.Path("on"), file_,
                    {"process", "event", "command", "count", "after"});
    TriggerSpec t;
    on.String("process", &t.process, /*required=*/true);
    if (!names_.clients.contains(t.process)) {
      on.Fail(on.Path("process"), "expected a client (" + names_.ClientList() + "), got \"" +
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
    return t;
  }

  const json& j_;
  const std::string& path_;
  const std::string& file_;
  const Names& names_;
  ObjectReader r_;
  FaultSpec f_;
  std::string type_;
};

}  // namespace

FaultSpec ParseFault(const json& j, const std::string& path, const std::string& file,
                     const Names& names, Nanos run_duration) {
  return FaultParser(j, path, file, names).Parse(run_duration);
}

}  // namespace locksim
