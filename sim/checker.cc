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
    if (op.f == OpF::kAcquire && op.type == OpType::kOk) {
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

std::vector<int64_t> Explain(const History& history, const CriticalSection& a,
                             const CriticalSection& b) {
  const int64_t from = std::min(a.acquired_index >= 0 ? a.acquired_index : a.enter_index,
                                b.acquired_index >= 0 ? b.acquired_index : b.enter_index);
  const int64_t to = b.enter_index;
  std::vector<int64_t> out;
  std::map<int, bool> releasing;  // process -> inside a release
  for (int64_t i = std::max<int64_t>(from, 0); i <= to; ++i) {
    const Op& op = history.ops()[i];
    bool keep = false;
    switch (op.f) {
      case OpF::kPause:
      case OpF::kResume: keep = true; break;
      case OpF::kAcquire: keep = op.type == OpType::kOk; break;
      case OpF::kRelease:
        releasing[op.process] = op.type == OpType::kInvoke;
        keep = true;
        break;
      case OpF::kRedis: keep = releasing[op.process]; break;
      case OpF::kCs:
        keep = op.process == a.process || op.process == b.process;
        break;
    }
    if (keep) out.push_back(i);
  }
  return out;
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
  std::stable_sort(result.violations.begin(), result.violations.end(),
                   [](const Violation& a, const Violation& b) {
                     return a.overlap_start != b.overlap_start
                                ? a.overlap_start < b.overlap_start
                                : a.second.enter_index < b.second.enter_index;
                   });
  return result;
}

}  // namespace locksim
