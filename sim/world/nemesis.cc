#include "sim/world/nemesis.h"

#include <signal.h>

#include <algorithm>

#include "sim/core/errors.h"

namespace locksim {
namespace {

std::string SignedText(Nanos d) {
  return (d < Nanos{0} ? "-" : "+") + FormatDuration(d < Nanos{0} ? -d : d);
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

// A client's request: a Redis command, or an adapter's request (whose
// command name, for a trigger, is "adapter").
bool IsRequest(const Op& op) { return op.f == OpF::kRedis || op.f == OpF::kAdapter; }

bool Matches(TriggerSpec::Event e, const Op& op, const std::string& last_sent,
             const std::string& command) {
  using E = TriggerSpec::Event;
  switch (e) {
    case E::kSend:
      return IsRequest(op) && op.type == OpType::kInvoke &&
             (command.empty() || CommandNameIs(last_sent, command));
    case E::kReply:
      return IsRequest(op) && op.type != OpType::kInvoke &&
             (command.empty() || CommandNameIs(last_sent, command));
    case E::kAcquire: return op.f == OpF::kAcquire && op.type == OpType::kInvoke;
    case E::kAcquired: return op.f == OpF::kAcquire && op.type == OpType::kOk;
    case E::kEnter: return op.f == OpF::kCs && op.type == OpType::kInvoke;
    case E::kExit: return op.f == OpF::kCs && op.type != OpType::kInvoke;
    case E::kRelease: return op.f == OpF::kRelease && op.type == OpType::kInvoke;
    case E::kReleased: return op.f == OpF::kRelease && op.type != OpType::kInvoke;
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
  for (size_t i = 0; i < faults_.size(); ++i) {
    if (faults_[i].at) {
      rt_.At(*faults_[i].at, rt_.nemesis(), [this, i] { Fire(i); });
    } else {
      any_trigger = true;
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
             "\" event(s)" + (f.on->command.empty() ? "" : " for " + f.on->command) + " it waits for";
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
  // A copy: a fault fired below adds ops and may move them.
  const History& h = rt_.history();
  const Op op = h.ops()[index];
  if (op.actor == h.nemesis()) return;
  if (IsRequest(op) && op.type == OpType::kInvoke) {
    if (last_sent_.size() <= static_cast<size_t>(op.actor)) last_sent_.resize(op.actor + 1);
    last_sent_[op.actor] = op.f == OpF::kAdapter ? "adapter" : std::string(h.command(op).name());
  }
  const int owner = h.owner(op.actor);
  for (size_t i = 0; i < faults_.size(); ++i) {
    const FaultSpec& f = faults_[i];
    if (!f.on || seen_[i] >= f.on->count) continue;
    const int target = hooks_.process_of(f.on->process);
    if (target < 0 || rt_.MainActor(target) != owner) continue;
    const std::string& last =
        static_cast<size_t>(op.actor) < last_sent_.size() ? last_sent_[op.actor] : "";
    if (!Matches(f.on->event, op, last, f.on->command)) continue;
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
  World* world = &rt_;
  const int p = f.process.empty() ? -1 : hooks_.process_of(f.process);
  const int node = f.process.empty() ? -1 : NodeOf(f.process);
  auto restart = [this, world](const std::string& name) {
    const int proc = hooks_.process_of(name);
    const int phys = NodeOf(name);
    if (phys >= 0) {
      if (world->IsUp(phys)) return;
      Record(OpF::kRestart, name, proc);
      world->RestartNode(phys);
    } else {
      if (!rt_.IsCrashed(proc)) return;
      Record(OpF::kRestart, name, proc);
      rt_.Restart(proc);
      hooks_.restart_client(name);
    }
  };
  auto for_links = [&](const std::function<void(int, int)>& each) {
    for (const std::string& a : f.from) {
      for (const std::string& b : f.to) {
        const int pa = hooks_.process_of(a), pb = hooks_.process_of(b);
        if (pa != pb) each(pa, pb);
      }
    }
  };
  const std::string links = Join(f.from) + " | " + Join(f.to);
  switch (f.type) {
    case T::kPause: {
      const Nanos end = rt_.Now() + f.duration;
      Record(OpF::kPause, f.process + " for " + FormatDuration(f.duration), p);
      if (node >= 0) {
        world->PauseNode(node, end);
      } else {
        rt_.Pause(p, end);
        SignalProcess(p, SIGSTOP);
      }
      rt_.AtFirst(end, rt_.nemesis(), [this, p, client = node < 0, name = f.process] {
        Record(OpF::kResume, name, p);
        // Under a longer pause that began meanwhile, it stays stopped.
        if (client && !rt_.IsPaused(p)) SignalProcess(p, SIGCONT);
      });
      break;
    }
    case T::kCrash:
      if (node >= 0) {
        if (!world->IsUp(node)) break;
        Record(OpF::kCrash, f.process + (f.power_loss ? " (power loss)" : ""), p);
        world->CrashNode(node, f.power_loss);
      } else {
        if (rt_.IsCrashed(p)) break;
        Record(OpF::kCrash, f.process, p);
        rt_.Crash(p);
        SignalProcess(p, SIGKILL);
      }
      if (f.restart_after) {
        rt_.At(rt_.Now() + *f.restart_after, rt_.nemesis(),
               [restart, name = f.process] { restart(name); });
      }
      break;
    case T::kRestart:
      restart(f.process);
      break;
    case T::kFailover:
      world->Failover(world->GroupOf(node), [this, world, p, name = f.process](int promoted) {
        Record(OpF::kFailover,
               "group of " + name + ": " +
                   (promoted < 0 ? std::string("no live replica to promote")
                                 : world->NodeName(promoted) + " promoted to master"),
               p);
      });
      break;
    case T::kClock: {
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
      if (node >= 0) world->NodeClockChanged(node);  // keys may expire at once
      break;
    }
    case T::kExpire: {
      const std::string key = f.key.empty() ? hooks_.lock_key : f.key;
      std::vector<int> targets;
      if (node >= 0) {
        targets.push_back(node);
      } else {
        for (int g = 0; g < rt_.NodeCount(); ++g) targets.push_back(world->MasterOf(g));
      }
      for (int t : targets) {
        Record(OpF::kExpire,
               key + " on " + world->NodeName(t) +
                   (f.ttl ? " gets ttl " + FormatDuration(*f.ttl) : " deleted"),
               world->node_process(t));
        world->ExpireKey(t, key, f.ttl);
      }
      break;
    }
    case T::kPartition:
      Record(OpF::kPartition, links);
      for_links([world](int a, int b) { world->SetPartitioned(a, b, true); });
      if (f.duration.count() > 0) {
        rt_.At(rt_.Now() + f.duration, rt_.nemesis(), [this, world, f, links] {
          Record(OpF::kHeal, links);
          for (const std::string& a : f.from) {
            for (const std::string& b : f.to) {
              world->SetPartitioned(hooks_.process_of(a), hooks_.process_of(b), false);
            }
          }
        });
      }
      break;
    case T::kHeal:
      Record(OpF::kHeal, "every link");
      world->HealAll();
      break;
    case T::kDelay:
    case T::kDrop: {
      const bool delay = f.type == T::kDelay;
      Record(delay ? OpF::kDelay : OpF::kDrop,
             links + (delay ? " +" + FormatDuration(f.latency)
                            : " " + std::to_string(f.loss_percent) + "% lost"));
      auto apply = [world, delay, f](int a, int b, bool on) {
        if (delay) {
          world->SetExtraLatency(a, b, on ? f.latency : Nanos{0});
        } else {
          world->SetLoss(a, b, on ? f.loss_percent : 0);
        }
      };
      for_links([&](int a, int b) { apply(a, b, true); });
      if (f.duration.count() > 0) {
        rt_.At(rt_.Now() + f.duration, rt_.nemesis(), [this, f, links, apply, delay] {
          Record(OpF::kHeal, std::string(delay ? "delay " : "loss ") + links + " over");
          for (const std::string& a : f.from) {
            for (const std::string& b : f.to) {
              apply(hooks_.process_of(a), hooks_.process_of(b), false);
            }
          }
        });
      }
      break;
    }
  }
}

}  // namespace locksim
