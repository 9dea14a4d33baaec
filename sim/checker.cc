#include "sim/checker.h"

#include <algorithm>
#include <map>

namespace locksim {
namespace {

std::vector<CriticalSection> Sections(const History& history, Nanos end) {
  std::vector<CriticalSection> out;
  std::map<std::pair<int, std::string>, size_t> open;  // (actor, resource) -> out
  std::map<int, int64_t> last_acquired;  // process -> last acquire ok
  for (const Op& op : history.ops()) {
    if (op.f == OpF::kCrash && op.subject >= 0) {
      // The crashed process's sections end with it.
      for (auto it = open.begin(); it != open.end();) {
        if (history.owner(it->first.first) == op.subject) {
          out[it->second].end = op.time;
          out[it->second].exit_index = op.index;
          out[it->second].crashed = true;
          it = open.erase(it);
        } else {
          ++it;
        }
      }
    } else if (op.f == OpF::kAcquire && op.type == OpType::kOk) {
      last_acquired[op.process] = op.index;
    } else if (op.f == OpF::kCs && op.type == OpType::kInvoke) {
      CriticalSection s;
      s.process = op.process;
      s.resource = op.value;
      s.start = op.time;
      s.end = end;
      s.enter_index = op.index;
      auto a = last_acquired.find(op.process);
      s.acquired_index = a == last_acquired.end() ? -1 : a->second;
      open[{op.process, s.resource}] = out.size();
      out.push_back(std::move(s));
    } else if (op.f == OpF::kCs && op.type != OpType::kInvoke) {
      auto it = open.find({op.process, op.value});
      if (it != open.end()) {
        out[it->second].end = op.time;
        out[it->second].exit_index = op.index;
        open.erase(it);
      }
    }
  }
  return out;
}

bool IsFault(OpF f) {
  switch (f) {
    case OpF::kPause:
    case OpF::kResume:
    case OpF::kCrash:
    case OpF::kRestart:
    case OpF::kClock:
    case OpF::kExpire:
    case OpF::kFailover:
    case OpF::kPartition:
    case OpF::kHeal:
    case OpF::kDelay:
    case OpF::kDrop: return true;
    default: return false;
  }
}

// The ops from index `from` to `to` that explain a violation between the
// threads `a` and `b`: faults, acquisitions, releases and the commands sent
// inside them, the commands a and b sent while acquiring, their critical
// sections, and the lock key's state on each node.
std::vector<int64_t> Explain(const History& history, int64_t from, int64_t to, int a, int b) {
  std::vector<int64_t> out;
  std::map<int, bool> releasing;  // thread -> inside a release
  std::map<int, bool> acquiring;  // thread -> inside an acquire
  for (int64_t i = std::max<int64_t>(from, 0); i <= to; ++i) {
    const Op& op = history.ops()[i];
    bool keep = IsFault(op.f);
    switch (op.f) {
      case OpF::kAcquire:
        acquiring[op.process] = op.type == OpType::kInvoke;
        keep = op.type != OpType::kInvoke;
        break;
      case OpF::kRelease:
        releasing[op.process] = op.type == OpType::kInvoke;
        keep = true;
        break;
      case OpF::kRedis:
        keep = releasing[op.process] ||
               (acquiring[op.process] && (op.process == a || op.process == b));
        break;
      case OpF::kCs: keep = op.process == a || op.process == b; break;
      case OpF::kState:
      case OpF::kWrite: keep = true; break;
      default: break;
    }
    if (keep) out.push_back(i);
  }
  return out;
}

std::vector<int64_t> Explain(const History& history, const CriticalSection& a,
                             const CriticalSection& b) {
  int64_t from = std::min(a.acquired_index >= 0 ? a.acquired_index : a.enter_index,
                          b.acquired_index >= 0 ? b.acquired_index : b.enter_index);
  // From the first holder's acquire invoke: its commands and their effect
  // on the nodes belong to the story.
  for (int64_t i = from; i >= 0; --i) {
    const Op& op = history.ops()[i];
    if (op.f == OpF::kAcquire && op.type == OpType::kInvoke && op.process == a.process) {
      from = i;
      break;
    }
    if (op.f == OpF::kRelease && op.process == a.process) break;
  }
  return Explain(history, from, b.enter_index, a.process, b.process);
}

// Foreign writes: a state op (a value changed on a node by a client's
// command) over a value that another thread wrote and still holds.
void ForeignWrites(const History& history, const std::vector<CriticalSection>& sections,
                   std::vector<Violation>* out) {
  std::map<int, int64_t> holding;  // thread -> its acquire ok, while it holds
  std::map<std::pair<int, std::string>, int> writer;  // (node, key) -> thread
  for (const Op& op : history.ops()) {
    if (op.f == OpF::kAcquire && op.type == OpType::kOk && !IsNested(op)) {
      holding[op.process] = op.index;
    } else if (op.f == OpF::kRelease && op.type == OpType::kInvoke && !IsNested(op)) {
      holding.erase(op.process);
    } else if (op.f == OpF::kCrash && op.subject >= 0) {
      std::erase_if(holding, [&](const auto& h) { return history.owner(h.first) == op.subject; });
    } else if (op.f == OpF::kState && op.type == OpType::kOk) {
      const size_t cut = op.value.find(StateAbsent(op.value) ? " absent" : " = ");
      const std::string key = op.value.substr(0, cut);
      int& w = writer[{op.process, key}];
      const int victim = w;
      w = op.subject >= 0 && !StateAbsent(op.value) ? op.subject : -1;
      if (op.subject < 0 || victim <= 0) continue;
      if (history.owner(victim) == history.owner(op.subject)) continue;
      auto held = holding.find(victim);
      if (held == holding.end()) continue;
      Violation v;
      v.kind = "foreign-write";
      v.resource = key;
      v.state_index = op.index;
      v.writer = op.subject;
      v.holder = victim;
      v.overlap_start = v.overlap_end = op.time;
      v.first.process = victim;
      v.first.acquired_index = held->second;
      v.second.process = op.subject;
      // The holder's critical section, if it was in one.
      for (const CriticalSection& s : sections) {
        if (s.process == victim && s.enter_index <= op.index &&
            (s.exit_index < 0 || s.exit_index > op.index)) {
          v.first = s;
        }
      }
      v.second.enter_index = op.index;
      v.events = Explain(history, held->second, op.index, victim, op.subject);
      out->push_back(std::move(v));
    }
  }
}

}  // namespace

CheckResult CheckMutualExclusion(const History& history, Nanos end) {
  CheckResult result;
  result.sections = Sections(history, end);
  std::vector<size_t> order(result.sections.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    const auto& a = result.sections[x];
    const auto& b = result.sections[y];
    if (a.resource != b.resource) return a.resource < b.resource;
    return a.enter_index < b.enter_index;  // history order is true-time order
  });
  // Sweep per resource: `active` holds sections that have not ended yet.
  std::vector<size_t> active;
  const std::string* resource = nullptr;
  for (size_t idx : order) {
    const CriticalSection& s = result.sections[idx];
    if (resource == nullptr || *resource != s.resource) {
      active.clear();
      resource = &s.resource;
    }
    // Gone: sections whose exit was recorded before this one's entry.
    std::erase_if(active, [&](size_t a) {
      const CriticalSection& x = result.sections[a];
      return x.exit_index >= 0 && x.exit_index < s.enter_index;
    });
    for (size_t a : active) {
      const CriticalSection& first = result.sections[a];
      if (first.process == s.process) continue;  // a client cannot overlap itself
      Violation v;
      v.resource = s.resource;
      v.first = first;
      v.second = s;
      v.overlap_start = s.start;
      v.overlap_end = std::min(first.end, s.end);
      v.events = Explain(history, first, s);
      result.violations.push_back(std::move(v));
    }
    active.push_back(idx);
  }
  ForeignWrites(history, result.sections, &result.violations);
  std::stable_sort(result.violations.begin(), result.violations.end(),
                   [](const Violation& a, const Violation& b) {
                     return a.overlap_start != b.overlap_start
                                ? a.overlap_start < b.overlap_start
                                : a.second.enter_index < b.second.enter_index;
                   });
  return result;
}

}  // namespace locksim
