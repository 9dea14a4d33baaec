#include "sim/check/liveness.h"

#include <charconv>
#include <cstdint>
#include <map>
#include <vector>

namespace locksim {
namespace {

std::string Ratio(double x) {
  // As printf's "%.2f" (the standard says so of to_chars with a precision),
  // without printf's cost: every run of explore's shrinking formats two.
  char buf[400];  // DBL_MAX has 309 digits before the point
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::fixed, 2);
  return ec == std::errc() ? std::string(buf, end) : std::string("?");
}

// A set of actors as flags by actor id: the loop below asks it about every
// op of the run (std::set and std::map here were a third of this check on
// a sweep seed, callgrind).
class ActorSet {
 public:
  void Insert(int a) {
    if (in_.size() <= static_cast<size_t>(a)) in_.resize(static_cast<size_t>(a) + 1, 0);
    count_ += in_[static_cast<size_t>(a)] == 0;
    in_[static_cast<size_t>(a)] = 1;
  }
  void Erase(int a) {
    if (!Contains(a)) return;
    in_[static_cast<size_t>(a)] = 0;
    --count_;
  }
  bool Contains(int a) const {
    return static_cast<size_t>(a) < in_.size() && in_[static_cast<size_t>(a)] != 0;
  }
  bool Empty() const { return count_ == 0; }
  template <typename Pred>
  void EraseIf(Pred pred) {
    for (size_t a = 0; a < in_.size(); ++a) {
      if (in_[a] != 0 && pred(static_cast<int>(a))) Erase(static_cast<int>(a));
    }
  }

 private:
  std::vector<char> in_;
  int count_ = 0;
};

}  // namespace

LivenessResult CheckLiveness(const History& history, Nanos end, const LivenessSpec& spec,
                             bool limiter) {
  LivenessResult r;
  ActorSet waiting;    // threads inside an acquire
  ActorSet working;    // threads holding the lock, not waiting for it again
  ActorSet sent_exec;  // threads whose last command was EXEC
  // Whether a stored command is EXEC, by its slot in the history (a
  // retry's invocations share one): decided once a slot, not per command.
  std::vector<int8_t> exec_by_slot;
  auto is_exec = [&](const Op& op) {
    if (op.slot >= exec_by_slot.size()) exec_by_slot.resize(op.slot + 1, -1);
    int8_t& known = exec_by_slot[op.slot];
    if (known < 0) known = CommandNameIs(history.command(op).name(), "EXEC") ? 1 : 0;
    return known == 1;
  };
  // Start of the current stuck stretch, if one is open.
  Nanos since_at{0};
  bool open = false;
  auto start = [&](Nanos t) {
    since_at = t;
    open = true;
  };
  auto close = [&](Nanos t) {
    if (open && t - since_at > r.stuck()) {
      r.stuck_from = since_at;
      r.stuck_to = t;
    }
    open = false;
  };
  // Limiter: refused from the first refused request after an admission to
  // the last one before the next, each counted from the moment it was
  // asked: a client paused with a refusal on its way asked nothing
  // meanwhile.
  // (A flag and a time, not a std::optional: g++ 12 warns that the
  // optional's value may be read uninitialised, which it never is.)
  bool refusing = false;
  Nanos refused_since{0};
  Nanos last_refused{0};
  std::map<int, Nanos> asked;  // thread -> when its pending request was sent
  // Each op, in history order, of `ops`: every op when the aborted
  // transactions must be counted (some thread sent EXEC), else the lock
  // ops only. A Redis command or reply changes nobody's waiting or
  // holding, so a judgement at an instant of commands alone finds what the
  // last one found.
  auto walk = [&](const auto& ops) {
    for (size_t i = 0; i < ops.size(); ++i) {
      const Op& op = ops[i];
      const Nanos t = op.time;
      if (limiter) {
        if (op.f != OpF::kAdmit) continue;
        if (op.type == OpType::kInvoke) {
          asked[op.actor] = t;
          continue;
        }
        const Nanos at = asked[op.actor];
        if (op.type == OpType::kOk) {
          if (refusing) {
            start(refused_since);
            close(last_refused);
          }
          refusing = false;
          ++r.acquisitions;
        } else {
          if (!refusing) {
            refusing = true;
            refused_since = at;
          }
          last_refused = std::max(last_refused, at);
        }
        continue;
      }
      switch (op.f) {
        case OpF::kAcquire:
          if (op.type == OpType::kInvoke) {
            waiting.Insert(op.actor);
            if (op.nested) working.Erase(op.actor);
          } else {
            waiting.Erase(op.actor);
            if (op.type == OpType::kOk) {
              working.Insert(op.actor);
              if (!op.nested) ++r.acquisitions;
            } else if (op.nested) {
              working.Insert(op.actor);  // back to the outer section
            }
          }
          break;
        case OpF::kRelease:
          if (op.type != OpType::kInvoke && !op.nested) working.Erase(op.actor);
          break;
        case OpF::kCrash:
          if (op.subject >= 0) {
            waiting.EraseIf([&](int a) { return history.owner(a) == op.subject; });
            working.EraseIf([&](int a) { return history.owner(a) == op.subject; });
          }
          break;
        case OpF::kRedis:
          if (op.type == OpType::kInvoke) {
            if (is_exec(op)) {
              sent_exec.Insert(op.actor);
            } else {
              sent_exec.Erase(op.actor);
            }
          } else if (waiting.Contains(op.actor) && sent_exec.Contains(op.actor) &&
                     history.reply(op).IsNil()) {
            ++r.aborted_transactions;
          }
          break;
        default: break;
      }
      // Judge the state once the instant is over: a client that gives up and
      // tries again at the same instant never stopped waiting.
      if (i + 1 < ops.size() && ops[i + 1].time == t) continue;
      const bool stuck = !waiting.Empty() && working.Empty();
      if (stuck && !open) start(t);
      if (!stuck && open) close(t);
    }
  };
  if (!limiter && history.SentCommandNamed("EXEC")) {
    walk(history.ops());
  } else {
    walk(history.lock_ops());
  }
  if (limiter && refusing) {
    start(refused_since);
    close(last_refused);
  }
  if (!limiter) close(end);  // still stuck when the run ended
  r.deadlock = r.stuck() > spec.deadlock_after;
  r.aborted_per_acquisition = r.acquisitions > 0
                                  ? static_cast<double>(r.aborted_transactions) /
                                        static_cast<double>(r.acquisitions)
                                  : static_cast<double>(r.aborted_transactions);
  r.degraded = spec.max_retries_per_acquisition &&
               r.aborted_per_acquisition > *spec.max_retries_per_acquisition;
  if (r.deadlock) {
    r.text = std::string(limiter ? "every request refused" : "nobody could acquire") + " from " +
             FormatDuration(r.stuck_from) + " to " + FormatDuration(r.stuck_to) + " (" +
             FormatDuration(r.stuck()) + ", bound " + FormatDuration(spec.deadlock_after) + ")";
  }
  if (r.aborted_transactions > 0 || spec.max_retries_per_acquisition) {
    if (!r.text.empty()) r.text += "; ";
    r.text += std::to_string(r.aborted_transactions) + " aborted transaction(s) for " +
              std::to_string(r.acquisitions) + " acquisition(s): " +
              Ratio(r.aborted_per_acquisition) + " per acquisition";
    if (spec.max_retries_per_acquisition) {
      r.text += " (bound " + Ratio(*spec.max_retries_per_acquisition) + ")";
    }
  }
  return r;
}

}  // namespace locksim
