#include "sim/check/liveness.h"

#include <cstdio>
#include <map>
#include <set>

namespace locksim {
namespace {

std::string Ratio(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return buf;
}

}  // namespace

LivenessResult CheckLiveness(const History& history, Nanos end, const LivenessSpec& spec,
                             bool limiter) {
  LivenessResult r;
  std::set<int> waiting;  // threads inside an acquire
  std::set<int> working;  // threads holding the lock, not waiting for it again
  std::map<int, bool> sent_exec;  // thread -> its last command was EXEC
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
  std::optional<Nanos> refused_since;
  Nanos last_refused{0};
  std::map<int, Nanos> asked;  // thread -> when its pending request was sent
  const std::vector<Op>& ops = history.ops();
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
        if (refused_since) {
          start(*refused_since);
          close(last_refused);
        }
        refused_since.reset();
        ++r.acquisitions;
      } else {
        if (!refused_since) refused_since = at;
        last_refused = std::max(last_refused, at);
      }
      continue;
    }
    switch (op.f) {
      case OpF::kAcquire:
        if (op.type == OpType::kInvoke) {
          waiting.insert(op.actor);
          if (op.nested) working.erase(op.actor);
        } else {
          waiting.erase(op.actor);
          if (op.type == OpType::kOk) {
            working.insert(op.actor);
            if (!op.nested) ++r.acquisitions;
          } else if (op.nested) {
            working.insert(op.actor);  // back to the outer section
          }
        }
        break;
      case OpF::kRelease:
        if (op.type != OpType::kInvoke && !op.nested) working.erase(op.actor);
        break;
      case OpF::kCrash:
        if (op.subject >= 0) {
          std::erase_if(waiting, [&](int a) { return history.owner(a) == op.subject; });
          std::erase_if(working, [&](int a) { return history.owner(a) == op.subject; });
        }
        break;
      case OpF::kRedis:
        if (op.type == OpType::kInvoke) {
          sent_exec[op.actor] = CommandNameIs(history.command(op).name(), "EXEC");
        } else if (waiting.contains(op.actor) && sent_exec[op.actor] &&
                   history.reply(op).IsNil()) {
          ++r.aborted_transactions;
        }
        break;
      default: break;
    }
    // Judge the state once the instant is over: a client that gives up and
    // tries again at the same instant never stopped waiting.
    if (i + 1 < ops.size() && ops[i + 1].time == t) continue;
    const bool stuck = !waiting.empty() && working.empty();
    if (stuck && !open) start(t);
    if (!stuck && open) close(t);
  }
  if (limiter && refused_since) {
    start(*refused_since);
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
