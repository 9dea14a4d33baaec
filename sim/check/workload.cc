#include "sim/check/workload.h"

#include <algorithm>
#include <map>

namespace locksim {

std::string_view WorkloadName(WorkloadSpec::Type t) {
  switch (t) {
    case WorkloadSpec::Type::kNone: return "none";
    case WorkloadSpec::Type::kCounter: return "counter";
    case WorkloadSpec::Type::kInventory: return "inventory";
    case WorkloadSpec::Type::kTokenRefresh: return "token-refresh";
    case WorkloadSpec::Type::kScheduledJob: return "scheduled-job";
    case WorkloadSpec::Type::kCommands: return "commands";
  }
  return "?";
}

std::optional<WorkloadSpec::Type> ParseWorkloadName(std::string_view name) {
  for (auto t : {WorkloadSpec::Type::kNone, WorkloadSpec::Type::kCounter,
                 WorkloadSpec::Type::kInventory, WorkloadSpec::Type::kTokenRefresh,
                 WorkloadSpec::Type::kScheduledJob, WorkloadSpec::Type::kCommands}) {
    if (WorkloadName(t) == name) return t;
  }
  return std::nullopt;
}

namespace {

std::string Plural(int64_t n, const std::string& word) {
  if (word == "admitted") return std::to_string(n) + " admitted";
  if (word == "reply") return std::to_string(n) + (n == 1 ? " reply" : " replies");
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

WorkloadEffect CheckWorkload(const History& history, const WorkloadSpec& spec) {
  WorkloadEffect e;
  int64_t accepted = 0, rejected = 0, last = 0;
  std::map<int64_t, int64_t> per_key;  // epoch or tick -> count
  for (const Op& op : history.lock_ops()) {
    if (op.f == OpF::kWrite && op.type == OpType::kOk) {
      ++accepted;
      last = history.number(op);
    } else if (op.f == OpF::kWrite && op.type == OpType::kFail) {
      ++rejected;
    } else if (op.f == OpF::kRefresh || op.f == OpF::kJob) {
      ++per_key[history.number(op)];
    }
  }
  switch (spec.type) {
    case WorkloadSpec::Type::kNone:
      return e;
    case WorkloadSpec::Type::kCommands: {
      // Each thread records a read per reply: ok when it is the expected
      // one, fail ("got X, expected Y") when not.
      int64_t matched = 0;
      for (const Op& op : history.lock_ops()) {
        if (op.f != OpF::kRead) continue;
        if (op.type == OpType::kOk) {
          ++matched;
        } else {
          e.holds = false;
          e.sentences.push_back(history.name(op.actor) + ": " +
                                FormatReplyCheck(history.reply_check(op), /*matched=*/false));
        }
      }
      if (e.holds) e.sentences.push_back(Plural(matched, "reply") + " exactly as Redis gives them");
      return e;
    }
    case WorkloadSpec::Type::kCounter: {
      const int64_t lost = accepted - last;
      e.holds = lost == 0;
      e.sentences.push_back("counter is " + std::to_string(last) + " after " +
                            Plural(accepted, "increment") +
                            (lost > 0 ? ": " + Plural(lost, "lost update") : ": no update lost"));
      break;
    }
    case WorkloadSpec::Type::kInventory: {
      const int64_t oversold = accepted - spec.stock;
      e.holds = oversold <= 0 && last >= 0;
      e.sentences.push_back(
          "sold " + std::to_string(accepted) + " of a stock of " + std::to_string(spec.stock) +
          (accepted > 0 && last < 0 ? ": stock " + std::to_string(last)
                                    : (oversold > 0 ? ": oversold by " + std::to_string(oversold)
                                                    : ": never oversold")));
      break;
    }
    case WorkloadSpec::Type::kTokenRefresh:
      for (const auto& [epoch, n] : per_key) {
        if (n > 1) {
          e.holds = false;
          e.sentences.push_back("token refreshed " + std::to_string(n) +
                                " times for 1 invalidation (the " + std::to_string(epoch + 1) +
                                (epoch == 0 ? "st" : epoch == 1 ? "nd" : epoch == 2 ? "rd" : "th") +
                                ")");
        }
      }
      if (e.holds) {
        e.sentences.push_back("token refreshed once per invalidation (" +
                              Plural(static_cast<int64_t>(per_key.size()), "invalidation") + ")");
      }
      break;
    case WorkloadSpec::Type::kScheduledJob:
      for (const auto& [tick, n] : per_key) {
        if (n > 1) {
          e.holds = false;
          e.sentences.push_back("tick " + std::to_string(tick) + " ran " + std::to_string(n) +
                                " times");
        }
      }
      if (e.holds) {
        e.sentences.push_back("every tick ran at most once (" +
                              Plural(static_cast<int64_t>(per_key.size()), "tick") + " run)");
      }
      break;
  }
  if (rejected > 0) {
    e.sentences.push_back(Plural(rejected, "stale write") +
                          " rejected by the fencing token");
  }
  return e;
}

namespace {

// An admission ran on Redis at some moment between its request and its
// answer: both are kept, and only what certainly fell in a window counts.
struct AdmissionSpan {
  Nanos asked{0};
  Nanos answered{0};
  int64_t count = 0;
};

// Counts of positions added, by prefix (a Fenwick tree).
class PositionCounts {
 public:
  explicit PositionCounts(size_t n) : tree_(n + 1, 0) {}
  void Add(size_t position) {
    for (size_t i = position + 1; i < tree_.size(); i += i & (~i + 1)) ++tree_[i];
  }
  // How many of the added positions are below `end`.
  int64_t Below(size_t end) const {
    int64_t sum = 0;
    for (size_t i = end; i > 0; i -= i & (~i + 1)) sum += tree_[i];
    return sum;
  }

 private:
  std::vector<int64_t> tree_;
};

// For each admission that opened a window (count 1; 0 for the others):
// 1 + the later admissions answered before the window could end and asked
// for after the opener was answered, those that certainly ran inside it.
// Answers come in time order, so each window's later admissions are a
// range found by binary search, and the count of those asked late enough
// is an offline sweep, the thresholds from the latest down, over a tree
// of positions: O(n log n). A scan of each window's range was quadratic
// where thousands of windows open inside one (a counter set back to 1
// again and again within a long window).
std::vector<int64_t> CertainlyInWindow(const std::vector<AdmissionSpan>& admitted, Nanos window,
                                       Nanos tolerance) {
  const size_t n = admitted.size();
  std::vector<int64_t> inside(n, 0);
  std::vector<size_t> range_end(n, 0);
  std::vector<size_t> openers;
  const bool in_answer_order = std::is_sorted(
      admitted.begin(), admitted.end(),
      [](const AdmissionSpan& a, const AdmissionSpan& b) { return a.answered < b.answered; });
  for (size_t i = 0; i < n; ++i) {
    if (admitted[i].count != 1) continue;
    const Nanos until = admitted[i].asked + window - tolerance;
    size_t end = i + 1;
    if (in_answer_order) {
      end = static_cast<size_t>(
          std::lower_bound(admitted.begin() + static_cast<std::ptrdiff_t>(i + 1), admitted.end(),
                           until,
                           [](const AdmissionSpan& a, Nanos t) { return a.answered < t; }) -
          admitted.begin());
    } else {
      // Should answers ever come out of time order: the range ends at the
      // first later answer past the window, where a scan of it stops.
      while (end < n && admitted[end].answered < until) ++end;
    }
    range_end[i] = end;
    openers.push_back(i);
  }
  std::vector<size_t> by_asked(n);
  for (size_t j = 0; j < n; ++j) by_asked[j] = j;
  std::sort(by_asked.begin(), by_asked.end(), [&admitted](size_t a, size_t b) {
    return admitted[a].asked > admitted[b].asked;
  });
  std::sort(openers.begin(), openers.end(), [&admitted](size_t a, size_t b) {
    return admitted[a].answered > admitted[b].answered;
  });
  PositionCounts asked_late_enough(n);
  size_t next = 0;
  for (size_t i : openers) {
    while (next < n && admitted[by_asked[next]].asked >= admitted[i].answered) {
      asked_late_enough.Add(by_asked[next++]);
    }
    inside[i] = 1 + asked_late_enough.Below(range_end[i]) - asked_late_enough.Below(i + 1);
  }
  return inside;
}

}  // namespace

WorkloadEffect CheckLimiter(const History& history, int64_t limit, Nanos window,
                            Nanos tolerance) {
  WorkloadEffect e;
  std::vector<AdmissionSpan> admitted;  // in the order of their answers
  // By actor: small integers, looked up for every op (three std::maps were
  // three tree lookups an op).
  struct PerActor {
    Nanos asked{0};            // its pending request's time
    bool incr_pending = false;
    bool expire_owed = false;  // INCR returned 1, no EXPIRE yet
  };
  std::vector<PerActor> actors;
  auto of = [&actors](int actor) -> PerActor& {
    if (actors.size() <= static_cast<size_t>(actor)) actors.resize(static_cast<size_t>(actor) + 1);
    return actors[static_cast<size_t>(actor)];
  };
  int64_t refused = 0;
  for (const Op& op : history.ops()) {
    if (op.f == OpF::kAdmit && op.type == OpType::kInvoke) of(op.actor).asked = op.time;
    if (op.f == OpF::kAdmit && op.type == OpType::kOk) {
      admitted.push_back({of(op.actor).asked, op.time, history.number(op)});
    }
    if (op.f == OpF::kAdmit && op.type == OpType::kFail) ++refused;
    if (op.f != OpF::kRedis) continue;
    PerActor& a = of(op.actor);
    if (op.type == OpType::kInvoke) {
      const std::string_view name = history.command(op).name();
      a.incr_pending = CommandNameIs(name, "INCR");
      if (CommandNameIs(name, "EXPIRE")) a.expire_owed = false;
    } else if (a.incr_pending) {
      a.incr_pending = false;
      if (history.reply(op).IsInteger(1)) a.expire_owed = true;
    }
  }
  // A window opens with the admission that counted 1 (it ran no earlier
  // than its request) and lasts `window`; the admissions that certainly ran
  // inside it were asked for after that one was answered and answered
  // before the window could end. A reply that took long (a lost packet
  // resent) is not counted in a window it may not belong to.
  int64_t worst = 0;
  Nanos worst_at{0};
  const std::vector<int64_t> inside = CertainlyInWindow(admitted, window, tolerance);
  for (size_t i = 0; i < admitted.size(); ++i) {
    if (inside[i] > worst) {
      worst = inside[i];
      worst_at = admitted[i].answered;
    }
  }
  if (worst > limit) {
    e.holds = false;
    e.safety_holds = false;
    e.sentences.push_back("admitted " + std::to_string(worst) + " requests within one " +
                          FormatDuration(window) + " window from " + FormatDuration(worst_at) +
                          " (limit " + std::to_string(limit) + ")");
  } else {
    e.sentences.push_back("at most " + std::to_string(limit) + " admitted per " +
                          FormatDuration(window) + " window (" +
                          Plural(static_cast<int64_t>(admitted.size()), "admitted") + ", " +
                          std::to_string(refused) + " refused)");
  }
  for (size_t actor = 0; actor < actors.size(); ++actor) {
    if (!actors[actor].expire_owed) continue;
    e.holds = false;
    e.sentences.push_back("the counter was left without a TTL by " +
                          history.name(static_cast<int>(actor)) +
                          ": every later request is refused for ever");
  }
  return e;
}

}  // namespace locksim
