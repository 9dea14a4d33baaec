#include "sim/world/nemesis.h"

#include <signal.h>

#include <algorithm>

#include "sim/core/errors.h"
#include "sim/core/text.h"

namespace locksim {
namespace {

std::string SignedText(Nanos d) {
  return (d < Nanos{0} ? "-" : "+") + FormatDuration(d < Nanos{0} ? -d : d);
}

// A client's request: a Redis command, or an adapter's request (whose
// command name, for a trigger, is "adapter").
bool IsRequest(OpF f) { return f == OpF::kRedis || f == OpF::kAdapter; }

bool Matches(TriggerSpec::Event e, OpF f, OpType type, const std::string& last_sent,
             const std::string& command) {
  using E = TriggerSpec::Event;
  switch (e) {
    case E::kSend:
      return IsRequest(f) && type == OpType::kInvoke &&
             (command.empty() || CommandNameIs(last_sent, command));
    case E::kReply:
      return IsRequest(f) && type != OpType::kInvoke &&
             (command.empty() || CommandNameIs(last_sent, command));
    case E::kAcquire: return f == OpF::kAcquire && type == OpType::kInvoke;
    case E::kAcquired: return f == OpF::kAcquire && type == OpType::kOk;
    case E::kEnter: return f == OpF::kCs && type == OpType::kInvoke;
    case E::kExit: return f == OpF::kCs && type != OpType::kInvoke;
    case E::kRelease: return f == OpF::kRelease && type == OpType::kInvoke;
    case E::kReleased: return f == OpF::kRelease && type != OpType::kInvoke;
  }
  return false;
}

}  // namespace

void Nemesis::CheckSupported(const std::vector<FaultSpec>& faults, bool virtual_world,
                             const std::vector<std::string>& nodes, const std::string& file) {
  if (virtual_world) return;
  (void)nodes;
  using T = FaultSpec::Type;
  for (const FaultSpec& f : faults) {
    std::string why;
    if (f.type == T::kCrash && f.power_loss) {
      why = "a power loss cannot be carried out on real servers: kill -9 keeps what the "
            "kernel has buffered (use --backend virtual)";
    }
    if (!why.empty()) throw InputError(file + ": " + f.path + ": " + why);
  }
}

Nemesis::Nemesis(World& world, std::vector<FaultSpec> faults, Hooks hooks)
    : rt_(world),
      faults_(std::move(faults)),
      hooks_(std::move(hooks)),
      fired_(faults_.size(), false),
      seen_(faults_.size(), 0) {}

void Nemesis::Start() {
  bool any_trigger = false;
  watched_.assign(faults_.size(), -1);
  for (size_t i = 0; i < faults_.size(); ++i) {
    if (faults_[i].at) {
      rt_.At(*faults_[i].at, rt_.nemesis(), [this, i] { Fire(i); });
    } else {
      any_trigger = true;
      if (!faults_[i].on) continue;
      const int target = hooks_.process_of(faults_[i].on->process);
      if (target >= 0) watched_[i] = rt_.MainActor(target);
    }
  }
  if (any_trigger) rt_.history().SetListener([this](int64_t index) { OnOp(index); });
}

std::vector<std::string> Nemesis::Unfired() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < faults_.size(); ++i) {
    if (fired_[i]) continue;
    const FaultSpec& f = faults_[i];
    std::string why = f.path + ": the " + std::string(FaultTypeName(f.type)) + " fault never fired";
    if (f.on) {
      why += " (" + f.on->process + " had " + std::to_string(seen_[i]) + " of the " +
             std::to_string(f.on->count) + " \"" + std::string(TriggerEventName(f.on->event)) +
             "\" event(s)" + (f.on->command.empty() ? "" : " for " + f.on->command) +
             " it waits for";
      if (seen_[i] >= f.on->count) why += "; the run ended before its delay passed";
      why += ")";
    } else {
      why += " (the run ended first)";
    }
    out.push_back(why);
  }
  return out;
}

void Nemesis::OnOp(int64_t index) {
  // The op was stored just now: its fields are read one by one, as the
  // history wrote them (a copy of the whole op loads it in 16-byte pieces,
  // which the store buffer cannot forward from the narrower stores just
  // before: two fifths of this function's time, perf). A fault fired below
  // adds ops; the ones there never move (OpLog).
  const History& h = rt_.history();
  const Op& op = h.ops()[index];
  const int actor = op.actor;
  const OpF what = op.f;
  const OpType type = op.type;
  if (actor == h.nemesis()) return;
  if (IsRequest(what) && type == OpType::kInvoke) {
    if (last_sent_.size() <= static_cast<size_t>(actor)) last_sent_.resize(actor + 1);
    last_sent_[actor] = what == OpF::kAdapter ? "adapter" : std::string(h.command(op).name());
  }
  const int owner = h.owner(actor);
  for (size_t i = 0; i < faults_.size(); ++i) {
    const FaultSpec& f = faults_[i];
    if (!f.on || seen_[i] >= f.on->count) continue;
    if (watched_[i] != owner) continue;  // -1 is no actor's owner
    const std::string& last =
        static_cast<size_t>(actor) < last_sent_.size() ? last_sent_[actor] : "";
    if (!Matches(f.on->event, what, type, last, f.on->command)) continue;
    if (++seen_[i] < f.on->count) continue;
    if (f.on->after.count() == 0) {
      Fire(i);
    } else {
      rt_.At(rt_.Now() + f.on->after, rt_.nemesis(), [this, i] { Fire(i); });
    }
  }
}

int Nemesis::NodeOf(const std::string& name) const {
  const int p = hooks_.process_of(name);
  return p < 0 ? -1 : rt_.PhysicalOf(p);
}

void Nemesis::Record(OpF f, const std::string& value, int subject_process) {
  rt_.history().AddFault(rt_.Now(), f, value,
                         subject_process >= 0 ? rt_.MainActor(subject_process) : -1);
}

void Nemesis::SignalProcess(int process, int signo) {
  if (hooks_.signal_process) hooks_.signal_process(process, signo);
}

void Nemesis::Fire(size_t i) {
  if (fired_[i]) return;
  fired_[i] = true;
  const FaultSpec f = faults_[i];  // a copy: hooks may run scenario code
  using T = FaultSpec::Type;
  switch (f.type) {
    case T::kPause: Pause(f); break;
    case T::kCrash: Crash(f); break;
    case T::kRestart: Restart(f.process); break;
    case T::kFailover: Failover(f); break;
    case T::kClock: Clock(f); break;
    case T::kExpire: Expire(f); break;
    case T::kPartition: Partition(f); break;
    case T::kHeal: HealAll(); break;
    case T::kDelay:
    case T::kDrop: Degrade(f); break;
  }
}

// A client's pause stops its coroutines (and an adapter's process, by
// SIGSTOP); a node's stops the node. It ends by itself: the resume is
// recorded ahead of anything else at that instant.
void Nemesis::Pause(const FaultSpec& f) {
  const int p = hooks_.process_of(f.process);
  const int node = NodeOf(f.process);
  const Nanos end = rt_.Now() + f.duration;
  Record(OpF::kPause, f.process + " for " + FormatDuration(f.duration), p);
  if (node >= 0) {
    rt_.PauseNode(node, end);
  } else {
    rt_.Pause(p, end);
    SignalProcess(p, SIGSTOP);
  }
  rt_.AtFirst(end, rt_.nemesis(), [this, p, client = node < 0, name = f.process] {
    Record(OpF::kResume, name, p);
    // Under a longer pause that began meanwhile, it stays stopped.
    if (client && !rt_.IsPaused(p)) SignalProcess(p, SIGCONT);
  });
}

// A crash of what is up (a node, or a client's process: its coroutines
// never resume, an adapter gets SIGKILL), and its restart if asked for.
void Nemesis::Crash(const FaultSpec& f) {
  const int p = hooks_.process_of(f.process);
  const int node = NodeOf(f.process);
  if (node >= 0) {
    if (!rt_.IsUp(node)) return;
    Record(OpF::kCrash, f.process + (f.power_loss ? " (power loss)" : ""), p);
    rt_.CrashNode(node, f.power_loss);
  } else {
    if (rt_.IsCrashed(p)) return;
    Record(OpF::kCrash, f.process, p);
    rt_.Crash(p);
    SignalProcess(p, SIGKILL);
  }
  if (f.restart_after) {
    rt_.At(rt_.Now() + *f.restart_after, rt_.nemesis(),
           [this, name = f.process] { Restart(name); });
  }
}

// Starts a crashed node or client again; nothing if it is up.
void Nemesis::Restart(const std::string& name) {
  const int p = hooks_.process_of(name);
  const int node = NodeOf(name);
  if (node >= 0) {
    if (rt_.IsUp(node)) return;
    Record(OpF::kRestart, name, p);
    rt_.RestartNode(node);
  } else {
    if (!rt_.IsCrashed(p)) return;
    Record(OpF::kRestart, name, p);
    rt_.Restart(p);
    hooks_.restart_client(name);
  }
}

// Recorded once the world says which replica (if any) took over.
void Nemesis::Failover(const FaultSpec& f) {
  const int p = hooks_.process_of(f.process);
  rt_.Failover(rt_.GroupOf(NodeOf(f.process)), [this, p, name = f.process](int promoted) {
    Record(OpF::kFailover,
           "group of " + name + ": " +
               (promoted < 0 ? std::string("no live replica to promote")
                             : rt_.NodeName(promoted) + " promoted to master"),
           p);
  });
}

void Nemesis::Clock(const FaultSpec& f) {
  const int p = hooks_.process_of(f.process);
  ProcessClock c = rt_.Clock(p);
  std::string what = f.process;
  if (f.offset) {
    c.offset = *f.offset;
    what += " offset " + SignedText(*f.offset);
  }
  if (f.jump) {
    c.offset += *f.jump;
    what += " jumps " + SignedText(*f.jump);
  }
  if (f.drift_ppm) {
    c.drift_ppm = *f.drift_ppm;
    what += " drifts " + std::to_string(*f.drift_ppm) + " ppm";
  }
  what += " (offset now " + SignedText(c.offset) + ")";
  Record(OpF::kClock, what, p);
  rt_.SetClock(p, c);
  if (const int node = NodeOf(f.process); node >= 0) {
    rt_.NodeClockChanged(node);  // keys may expire at once
  }
}

// The key goes (or gets a TTL) on the node named, else on every master.
void Nemesis::Expire(const FaultSpec& f) {
  const std::string key = f.key.empty() ? hooks_.lock_key : f.key;
  std::vector<int> targets;
  if (const int node = f.process.empty() ? -1 : NodeOf(f.process); node >= 0) {
    targets.push_back(node);
  } else {
    for (int g = 0; g < rt_.NodeCount(); ++g) targets.push_back(rt_.MasterOf(g));
  }
  for (int t : targets) {
    Record(OpF::kExpire,
           key + " on " + rt_.NodeName(t) +
               (f.ttl ? " gets ttl " + FormatDuration(*f.ttl) : " deleted"),
           rt_.node_process(t));
    rt_.ExpireKey(t, key, f.ttl);
  }
}

void Nemesis::Partition(const FaultSpec& f) {
  const std::string links = LinksText(f);
  Record(OpF::kPartition, links);
  ForLinks(f, [this](int a, int b) { rt_.SetPartitioned(a, b, true); });
  if (f.duration.count() == 0) return;  // until a heal, or the end
  rt_.At(rt_.Now() + f.duration, rt_.nemesis(), [this, f, links] {
    Record(OpF::kHeal, links);
    ForLinks(f, [this](int a, int b) { rt_.SetPartitioned(a, b, false); });
  });
}

void Nemesis::HealAll() {
  Record(OpF::kHeal, "every link");
  rt_.HealAll();
}

// Extra latency (delay) or lost messages (drop) on the links, for a while.
void Nemesis::Degrade(const FaultSpec& f) {
  const bool delay = f.type == FaultSpec::Type::kDelay;
  const std::string links = LinksText(f);
  Record(delay ? OpF::kDelay : OpF::kDrop,
         links + (delay ? " +" + FormatDuration(f.latency)
                        : " " + std::to_string(f.loss_percent) + "% lost"));
  auto apply = [this, delay, f](int a, int b, bool on) {
    if (delay) {
      rt_.SetExtraLatency(a, b, on ? f.latency : Nanos{0});
    } else {
      rt_.SetLoss(a, b, on ? f.loss_percent : 0);
    }
  };
  ForLinks(f, [&](int a, int b) { apply(a, b, true); });
  if (f.duration.count() == 0) return;
  rt_.At(rt_.Now() + f.duration, rt_.nemesis(), [this, f, links, apply, delay] {
    Record(OpF::kHeal, std::string(delay ? "delay " : "loss ") + links + " over");
    ForLinks(f, [&](int a, int b) { apply(a, b, false); });
  });
}

std::string Nemesis::LinksText(const FaultSpec& f) {
  return Join(f.from, ",") + " | " + Join(f.to, ",");
}

void Nemesis::ForLinks(const FaultSpec& f, const std::function<void(int, int)>& each) const {
  for (const std::string& a : f.from) {
    for (const std::string& b : f.to) {
      const int pa = hooks_.process_of(a), pb = hooks_.process_of(b);
      if (pa != pb) each(pa, pb);
    }
  }
}

}  // namespace locksim
