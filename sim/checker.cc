#include "sim/checker.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>

namespace locksim {
namespace {

std::vector<CriticalSection> Sections(const History& history, Nanos end) {
  std::vector<CriticalSection> out;
  // (actor, resource) -> out; the views point into the history's values.
  std::map<std::pair<int, std::string_view>, size_t> open;
  std::vector<int64_t> last_acquired;  // by process: its last acquire ok, or -1
  for (const Op& op : history.ops()) {
    if (op.f == OpF::kAcquire && op.type == OpType::kOk) {
      if (static_cast<size_t>(op.process) >= last_acquired.size()) {
        last_acquired.resize(static_cast<size_t>(op.process) + 1, -1);
      }
      last_acquired[static_cast<size_t>(op.process)] = op.index;
    } else if (op.f == OpF::kCs && op.type == OpType::kInvoke) {
      CriticalSection s;
      s.process = op.process;
      s.resource = op.value;
      s.start = op.time;
      s.end = end;
      s.enter_index = op.index;
      s.acquired_index = static_cast<size_t>(op.process) < last_acquired.size()
                             ? last_acquired[static_cast<size_t>(op.process)]
                             : -1;
      open[{op.process, std::string_view(op.value)}] = out.size();
      out.push_back(std::move(s));
    } else if (op.f == OpF::kCs && op.type != OpType::kInvoke) {
      auto it = open.find({op.process, std::string_view(op.value)});
      if (it != open.end()) {
        out[it->second].end = op.time;
        out[it->second].exit_index = op.index;
        open.erase(it);
      }
    }
  }
  return out;
}

// What led to a violation: every history index from the first holder's
// acquisition to the second holder's entry that is a fault, an acquisition,
// a release, a command sent inside a release, or a critical-section event of
// either holder. This scans the range, which is cheapest for the usual short
// one; Explainer below answers long ranges without scanning them.
std::vector<int64_t> ExplainByScan(const History& history, const CriticalSection& a,
                                   const CriticalSection& b, int64_t from, int64_t to) {
  std::vector<int64_t> out;
  std::vector<std::pair<int, bool>> releasing;  // process -> inside a release
  auto inside = [&](int process) -> bool& {
    for (auto& [p, in] : releasing) {
      if (p == process) return in;
    }
    releasing.emplace_back(process, false);
    return releasing.back().second;
  };
  for (int64_t i = from; i <= to; ++i) {
    const Op& op = history.ops()[static_cast<size_t>(i)];
    bool keep = false;
    switch (op.f) {
      case OpF::kPause:
      case OpF::kResume: keep = true; break;
      case OpF::kAcquire: keep = op.type == OpType::kOk; break;
      case OpF::kRelease:
        inside(op.process) = op.type == OpType::kInvoke;
        keep = true;
        break;
      case OpF::kRedis: keep = inside(op.process); break;
      case OpF::kCs: keep = op.process == a.process || op.process == b.process; break;
      default: break;
    }
    if (keep) out.push_back(i);
  }
  return out;
}

// The same answer as ExplainByScan, from indices of the history from the first holder's
// precomputed once, so that each
// violation costs O(log n + what it lists) instead of a scan of the range
// (a holder that never leaves overlaps every later section: O(n) scans of
// O(n) ranges before).
class Explainer {
 public:
  explicit Explainer(const History& history) {
    std::vector<int64_t> last_release;  // by process: its last release op, or -1
    for (const Op& op : history.ops()) {
      const size_t p = static_cast<size_t>(op.process);
      switch (op.f) {
        case OpF::kPause:
        case OpF::kResume: always_.push_back(op.index); break;
        case OpF::kAcquire:
          if (op.type == OpType::kOk) always_.push_back(op.index);
          break;
        case OpF::kRelease:
          always_.push_back(op.index);
          if (p >= last_release.size()) last_release.resize(p + 1, -1);
          last_release[p] = op.index;
          break;
        case OpF::kRedis:
          // Inside a release when the process's last release op before it
          // is an invoke; listed only if that invoke is in the range.
          if (p < last_release.size() && last_release[p] >= 0 &&
              history.ops()[static_cast<size_t>(last_release[p])].type == OpType::kInvoke) {
            release_commands_.push_back({op.index, last_release[p]});
          }
          break;
        case OpF::kCs:
          if (p >= cs_.size()) cs_.resize(p + 1);
          cs_[p].push_back(op.index);
          break;
        default: break;
      }
    }
  }

  std::vector<int64_t> Explain(const CriticalSection& a, const CriticalSection& b, int64_t from,
                               int64_t to) const {
    std::vector<int64_t> out;
    if (from > to) return out;
    // Up to four sorted runs, merged in place: linear in what is listed.
    auto append = [&](const std::vector<int64_t>& sorted) {
      auto lo = std::lower_bound(sorted.begin(), sorted.end(), from);
      auto hi = std::upper_bound(lo, sorted.end(), to);
      const size_t mid = out.size();
      out.insert(out.end(), lo, hi);
      std::inplace_merge(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(mid), out.end());
    };
    append(always_);
    const size_t mid = out.size();
    auto lo = std::lower_bound(release_commands_.begin(), release_commands_.end(), from,
                               [](const ReleaseCommand& c, int64_t i) { return c.index < i; });
    for (auto it = lo; it != release_commands_.end() && it->index <= to; ++it) {
      if (it->release >= from) out.push_back(it->index);
    }
    std::inplace_merge(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(mid), out.end());
    if (static_cast<size_t>(a.process) < cs_.size()) append(cs_[static_cast<size_t>(a.process)]);
    if (b.process != a.process && static_cast<size_t>(b.process) < cs_.size()) {
      append(cs_[static_cast<size_t>(b.process)]);
    }
    return out;
  }

 private:
  struct ReleaseCommand {
    int64_t index;    // the redis op
    int64_t release;  // the release invoke it belongs to
  };
  std::vector<int64_t> always_;  // faults, acquire oks, release ops
  std::vector<ReleaseCommand> release_commands_;
  std::vector<std::vector<int64_t>> cs_;  // by process: its cs ops
};

// A range this long is answered from precomputed indices (built once, at
// the first such range) instead of a scan.
constexpr int64_t kLongRange = 4096;

std::vector<int64_t> Explain(const History& history, const CriticalSection& a,
                             const CriticalSection& b, std::optional<Explainer>* explainer) {
  const int64_t from =
      std::max<int64_t>(0, std::min(a.acquired_index >= 0 ? a.acquired_index : a.enter_index,
                                    b.acquired_index >= 0 ? b.acquired_index : b.enter_index));
  const int64_t to = b.enter_index;
  if (to - from < kLongRange) return ExplainByScan(history, a, b, from, to);
  if (!*explainer) explainer->emplace(history);
  return (*explainer)->Explain(a, b, from, to);
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
  std::optional<Explainer> explainer;  // built at the first long range
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
      v.events = Explain(history, first, s, &explainer);
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
