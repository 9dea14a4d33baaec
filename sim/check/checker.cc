#include "sim/check/checker.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <string_view>
#include <utility>

namespace locksim {
namespace {

// Entry `i` of a table indexed by thread (or node), the table grown with
// `fill` to hold it: the checks meet ids in history order, not counted up
// front.
template <typename T>
T& Grown(std::vector<T>* table, size_t i, const T& fill = T()) {
  if (i >= table->size()) table->resize(i + 1, fill);
  return (*table)[i];
}

// The sections in entry order, and into `resources` each one's key (the
// history's own string: History::key's interned one, or its "" for a step
// without a key).
std::vector<CriticalSection> Sections(const History& history, Nanos end,
                                      std::vector<const std::string*>* resources) {
  std::vector<CriticalSection> out;
  // By actor: its open sections, each its resource (a view into the
  // history's keys) and its place in `out`. An actor holds one or two
  // (a reentrant lock's own key and another): a scan of its own list is
  // cheaper than a map keyed by (actor, resource), which was 2% of a sweep
  // seed (callgrind).
  std::vector<std::vector<std::pair<std::string_view, size_t>>> open;
  auto find = [](std::vector<std::pair<std::string_view, size_t>>& list, std::string_view key) {
    return std::find_if(list.begin(), list.end(), [key](const auto& e) { return e.first == key; });
  };
  std::vector<int32_t> last_acquired;  // by process: its last acquire ok, or -1
  const History::LockOps lock_ops = history.lock_ops();
  for (auto step = lock_ops.begin(); step != lock_ops.end(); ++step) {
    const Op& op = *step;
    const int32_t index = step.index();
    if (op.f == OpF::kCrash && op.subject >= 0) {
      // The crashed process's sections end with it.
      for (size_t a = 0; a < open.size(); ++a) {
        if (history.owner(static_cast<int>(a)) != op.subject) continue;
        for (const auto& [key, at] : open[a]) {
          out[at].end = op.time;
          out[at].exit_index = index;
          out[at].crashed = true;
        }
        open[a].clear();
      }
    } else if (op.f == OpF::kAcquire && op.type == OpType::kOk) {
      Grown(&last_acquired, static_cast<size_t>(op.actor), int32_t{-1}) = index;
    } else if (op.f == OpF::kCs && op.type == OpType::kInvoke) {
      const std::string& key = history.key(op);
      CriticalSection s;
      s.process = op.actor;
      s.start = op.time;
      s.end = end;
      s.enter_index = index;
      const size_t p = static_cast<size_t>(op.actor);
      s.acquired_index = p < last_acquired.size() ? last_acquired[p] : -1;
      // A section entered again without leaving: the new one is the open one.
      auto& list = Grown(&open, static_cast<size_t>(op.actor));
      auto it = find(list, key);
      if (it != list.end()) {
        it->second = out.size();
      } else {
        list.emplace_back(key, out.size());
      }
      out.push_back(s);
      resources->push_back(&key);
    } else if (op.f == OpF::kCs && op.type != OpType::kInvoke) {
      auto& list = Grown(&open, static_cast<size_t>(op.actor));
      auto it = find(list, history.key(op));
      if (it != list.end()) {
        out[it->second].end = op.time;
        out[it->second].exit_index = index;
        list.erase(it);
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

// The listed events: all of `story` (sorted op indices) up to
// kListedEvents; past it, its first kHeadEvents, the kAroundEvents before
// the first at or after `anchor` and the kAroundEvents from it, and its
// last ones: kListedEvents in all. Each stretch left out becomes an
// ElidedEvents after the listed event before it.
void Keep(const std::vector<int32_t>& story, int64_t anchor, Violation* v) {
  const size_t n = story.size();
  if (n <= kListedEvents) {
    v->events = story;
    return;
  }
  const size_t at = static_cast<size_t>(
      std::lower_bound(story.begin(), story.end(), anchor) - story.begin());
  const size_t tail = kListedEvents - kHeadEvents - 2 * kAroundEvents;
  // The window around the anchor, between the head and the tail; when the
  // anchor is near the end (the tail has it then), the window just before
  // the tail, so that kListedEvents are listed wherever the anchor is.
  const size_t around_from =
      std::min(std::max(at, kHeadEvents + kAroundEvents) - kAroundEvents,
               n - tail - 2 * kAroundEvents);
  // Kept: [0, head) [around_from, around_from + 2 kAroundEvents) [n - tail, n),
  // in order, which may touch.
  const std::pair<size_t, size_t> kept[] = {
      {0, kHeadEvents}, {around_from, around_from + 2 * kAroundEvents}, {n - tail, n}};
  v->events.reserve(kListedEvents);
  size_t next = 0;  // the first position not yet listed or counted
  for (const auto& [begin, end] : kept) {
    if (begin > next) {
      v->elided.push_back(ElidedEvents{story[next - 1], static_cast<int64_t>(begin - next)});
    }
    v->events.insert(v->events.end(), story.begin() + static_cast<std::ptrdiff_t>(begin),
                     story.begin() + static_cast<std::ptrdiff_t>(end));
    next = end;
  }
}

// The rule that picks the events of a violation (Violation::events).
// Given the range of the history from `from` to `to` (both included) and
// the two threads `a` and `b` of the violation, it lists, in history order:
//   - every fault, acquisition result (acquire ok / fail), release op
//     (invoke, ok, fail), node state op and resource write;
//   - the commands (Redis commands, adapter requests) of any thread sent
//     inside a release whose invoke is in the range;
//   - the commands a and b sent inside an acquire whose invoke is in the
//     range;
//   - a's and b's critical-section ops.
// Where the story starts is the rule's too (StoryStart). The answers come
// from indices built once per history, so that a violation costs
// O(log n + what the rule lists), of which Keep lists kListedEvents at
// most: a holder that never leaves overlaps every later section, and a
// scan per violation would be O(n^2).
class Explainer {
 public:
  explicit Explainer(const History& history) {
    std::vector<int32_t> last_release;  // by thread: its last release op, or -1
    std::vector<int32_t> last_acquire;  // by thread: its last acquire op, or -1
    for (auto step = history.ops().begin(); step != history.ops().end(); ++step) {
      const Op& op = *step;
      const int32_t index = step.index();
      const size_t p = static_cast<size_t>(op.actor);
      switch (op.f) {
        case OpF::kAcquire:
          if (op.type != OpType::kInvoke) always_.push_back(index);
          if (op.type == OpType::kInvoke) Grown(&markers_, p).push_back({index, true});
          Grown(&last_acquire, p, int32_t{-1}) = index;
          break;
        case OpF::kRelease:
          always_.push_back(index);
          Grown(&markers_, p).push_back({index, false});
          Grown(&last_release, p, int32_t{-1}) = index;
          break;
        case OpF::kRedis:
        case OpF::kAdapter: {
          // Inside a release (an acquire) when the thread's last release
          // (acquire) op before it is an invoke.
          const int32_t r = Grown(&last_release, p, int32_t{-1});
          if (r >= 0 && history.ops()[static_cast<size_t>(r)].type == OpType::kInvoke) {
            release_commands_.push_back({index, r});
          }
          const int32_t q = Grown(&last_acquire, p, int32_t{-1});
          if (q >= 0 && history.ops()[static_cast<size_t>(q)].type == OpType::kInvoke) {
            Grown(&acquire_commands_, p).push_back({index, q});
          }
          break;
        }
        case OpF::kCs: Grown(&cs_, p).push_back(index); break;
        case OpF::kState:
        case OpF::kWrite: always_.push_back(index); break;
        default:
          if (IsFault(op.f)) always_.push_back(index);
          break;
      }
    }
  }

  // The start of a mutual-exclusion violation's story: `from`, or the
  // first holder's acquire invoke at or before it when no release of that
  // thread comes between them (its commands and their effect on the nodes
  // belong to the story).
  int64_t StoryStart(int a, int64_t from) const {
    if (static_cast<size_t>(a) >= markers_.size()) return from;
    const std::vector<Marker>& m = markers_[static_cast<size_t>(a)];
    auto it = std::upper_bound(m.begin(), m.end(), from,
                               [](int64_t i, const Marker& x) { return i < x.index; });
    if (it == m.begin()) return from;
    --it;
    return it->acquire ? it->index : from;
  }

  // The events of the range [from, to] for threads a and b, by the rule,
  // into v->events, kept to kListedEvents around `anchor` (v->elided).
  void Explain(int64_t from, int64_t to, int a, int b, int64_t anchor, Violation* v) const {
    std::vector<int32_t> out;
    from = std::max<int64_t>(from, 0);
    if (from > to) return;
    // Sized first, from the lists' bounds alone (a command sent inside an
    // acquire or release begun before `from` is counted but not listed): a
    // retry storm lists tens of thousands of commands, and a doubling
    // vector would hold them one and a half times over.
    size_t bound = 0;
    auto size = [&bound](auto first, auto last) { bound += static_cast<size_t>(last - first); };
    ForEachListed(from, to, a, b, size, size);
    out.reserve(bound);
    ForEachListed(
        from, to, a, b, [&out](auto first, auto last) { out.insert(out.end(), first, last); },
        [&out, from](auto first, auto last) {
          for (auto it = first; it != last; ++it) {
            if (it->opened >= from) out.push_back(it->index);
          }
        });
    // Disjoint kinds but for a command inside both a release and an
    // acquire; linear in what is listed, bar the sort.
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    Keep(out, anchor, v);
  }

 private:
  // What the rule lists in [from, to] for a and b, kind by kind, as
  // ranges found by binary search: of sorted op indices to
  // `indices(first, last)`, of Commands sent in the range to
  // `commands_in(first, last)` (which keeps those whose `opened` is in it).
  template <typename IndicesFn, typename CommandsFn>
  void ForEachListed(int64_t from, int64_t to, int a, int b, IndicesFn indices,
                     CommandsFn commands_in) const {
    auto range = [&](const std::vector<int32_t>& sorted) {
      auto lo = std::lower_bound(sorted.begin(), sorted.end(), from);
      indices(lo, std::upper_bound(lo, sorted.end(), to));
    };
    auto commands = [&](const Commands& sorted) {
      auto lo = std::lower_bound(sorted.begin(), sorted.end(), from,
                                 [](const Command& c, int64_t i) { return c.index < i; });
      commands_in(lo, std::upper_bound(lo, sorted.end(), to,
                                       [](int64_t i, const Command& c) { return i < c.index; }));
    };
    range(always_);
    commands(release_commands_);
    for (int p : {a, b}) {
      if (p < 0 || (p == b && b == a)) continue;
      const size_t i = static_cast<size_t>(p);
      if (i < cs_.size()) range(cs_[i]);
      if (i < acquire_commands_.size()) commands(acquire_commands_[i]);
    }
  }

  // Op indices are 32 bits (History::kMaxOps): a retry storm sends tens of
  // thousands of commands inside one acquire, each listed here.
  struct Command {
    int32_t index;   // the redis (adapter) op
    int32_t opened;  // the release (acquire) invoke it was sent inside
  };
  // A deque, not a vector: a storm's list grows to ~10^5 without a
  // doubling's old and new arrays both held.
  using Commands = std::deque<Command>;
  struct Marker {
    int32_t index;  // an acquire invoke or a release op of the thread
    bool acquire;
  };
  std::vector<int32_t> always_;  // faults, acquire results, release ops, state and write ops
  Commands release_commands_;
  std::vector<Commands> acquire_commands_;     // by thread
  std::vector<std::vector<int32_t>> cs_;       // by thread: its cs ops
  std::vector<std::vector<Marker>> markers_;   // by thread
};

// Built at the first violation: a history without one never pays for it.
const Explainer& ExplainerOf(const History& history, std::optional<Explainer>* explainer) {
  if (!*explainer) explainer->emplace(history);
  return **explainer;
}

// A violation's events: a mutual exclusion's from the first holder's story
// start to the second holder's entry, a foreign write's from the holder's
// acquisition to the write.
void Explain(const History& history, std::optional<Explainer>* explainer, Violation* v) {
  const Explainer& e = ExplainerOf(history, explainer);
  if (v->kind == ViolationKind::kForeignWrite) {
    e.Explain(v->held_index, v->state_index, v->holder, v->writer, v->held_index, v);
    return;
  }
  const CriticalSection& a = v->first;
  const CriticalSection& b = v->second;
  const int64_t a_from = a.acquired_index >= 0 ? a.acquired_index : a.enter_index;
  const int64_t from =
      std::min<int64_t>(a_from, b.acquired_index >= 0 ? b.acquired_index : b.enter_index);
  e.Explain(e.StoryStart(a.process, from), b.enter_index, a.process, b.process, a_from, v);
}

// Foreign writes: a state op (a value changed on a node by a client's
// command) over a value that another thread wrote and still holds.
void ForeignWrites(const History& history, const std::vector<CriticalSection>& sections,
                   std::vector<Violation>* out) {
  // By thread: its acquire ok while it holds, -1 when it does not.
  std::vector<int64_t> holding;
  auto holding_of = [&holding](int thread) -> int64_t& {
    return Grown(&holding, static_cast<size_t>(thread), int64_t{-1});
  };
  // By node: the thread whose value each watched key holds (0 before any
  // state, -1 when nobody's), the key a view into the history's states. A
  // node has a key or two: a scan, not a map keyed by (node, std::string),
  // which built a string per state op.
  std::vector<std::vector<std::pair<std::string_view, int>>> writer;
  auto writer_of = [&writer](int node, std::string_view key) -> int& {
    auto& keys = Grown(&writer, static_cast<size_t>(node));
    for (auto& [k, w] : keys) {
      if (k == key) return w;
    }
    return keys.emplace_back(key, 0).second;
  };
  // By thread: its sections entered up to the op read, in entry order, as a
  // stack; once open_section_of has popped those closed at the op from its
  // top (a section closed at an op stays closed at every later one), the
  // top is the last one still open there. The sections come in entry order
  // too, so each is pushed and popped once: a storm of foreign writes (a
  // plain DEL releasing after every TTL) costs O(n), not a scan of every
  // section per write (10 minutes of such a storm spent 83% of its run in
  // that scan, perf).
  std::vector<std::vector<size_t>> entered;
  size_t next_section = 0;
  auto open_section_of = [&](int thread, int32_t index) -> const CriticalSection* {
    for (; next_section < sections.size() && sections[next_section].enter_index <= index;
         ++next_section) {
      Grown(&entered, static_cast<size_t>(sections[next_section].process)).push_back(next_section);
    }
    auto& stack = Grown(&entered, static_cast<size_t>(thread));
    while (!stack.empty() && sections[stack.back()].exit_index >= 0 &&
           sections[stack.back()].exit_index <= index) {
      stack.pop_back();
    }
    return stack.empty() ? nullptr : &sections[stack.back()];
  };
  const History::LockOps lock_ops = history.lock_ops();
  for (auto step = lock_ops.begin(); step != lock_ops.end(); ++step) {
    const Op& op = *step;
    const int32_t index = step.index();
    if (op.f == OpF::kAcquire && op.type == OpType::kOk && !op.nested) {
      holding_of(op.actor) = index;
    } else if (op.f == OpF::kRelease && op.type == OpType::kInvoke && !op.nested) {
      holding_of(op.actor) = -1;
    } else if (op.f == OpF::kCrash && op.subject >= 0) {
      for (size_t t = 0; t < holding.size(); ++t) {
        if (history.owner(static_cast<int>(t)) == op.subject) holding[t] = -1;
      }
    } else if (op.f == OpF::kState && op.type == OpType::kOk) {
      const KeyState& state = history.state(op);
      int& w = writer_of(op.actor, state.key);
      const int victim = w;
      w = op.subject >= 0 && state.present ? op.subject : -1;
      if (op.subject < 0 || victim <= 0) continue;
      if (history.owner(victim) == history.owner(op.subject)) continue;
      const int64_t held = holding_of(victim);
      if (held < 0) continue;
      Violation v;
      v.kind = ViolationKind::kForeignWrite;
      v.resource = state.key;
      v.state_index = index;
      v.writer = op.subject;
      v.holder = victim;
      v.overlap_start = v.overlap_end = op.time;
      v.first.process = victim;
      v.first.acquired_index = static_cast<int32_t>(held);
      v.second.process = op.subject;
      // The holder's critical section, if it was in one.
      if (const CriticalSection* s = open_section_of(victim, index)) v.first = *s;
      v.second.enter_index = index;
      v.held_index = held;
      out->push_back(std::move(v));
    }
  }
}

}  // namespace

namespace {
// Adds section `s`'s overlap of v.first to v's folded overlaps.
void Fold(const CriticalSection& s, Violation* v) {
  FoldedOverlaps& f = *v->folded;
  ++f.sections;
  v->overlap_end = std::max(v->overlap_end, std::min(v->first.end, s.end));
  for (auto& [thread, count] : f.by_thread) {
    if (thread == s.process) {
      ++count;
      return;
    }
  }
  f.by_thread.emplace_back(s.process, 1);
}
}  // namespace

CheckResult CheckMutualExclusion(const History& history, Nanos end, bool explain) {
  CheckResult result;
  std::vector<const std::string*> resources;  // by section
  result.sections = Sections(history, end, &resources);
  // By resource, then entry (history order is true-time order). Sections
  // come in entry order, so a stable sort by resource alone gives it, and
  // none is needed when they are already by resource, as with one lock key,
  // the usual case (the sort's string compares were a fifth of the checks
  // of a sweep seed, callgrind). Keys are interned: one text, one address,
  // so most compares are of addresses.
  auto by_resource = [](const std::string* a, const std::string* b) {
    return a != b && *a < *b;
  };
  std::vector<size_t> order(result.sections.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (!std::is_sorted(resources.begin(), resources.end(), by_resource)) {
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      return by_resource(resources[x], resources[y]);
    });
  }
  // Per section: how many later sections overlapped it, and where its
  // folded violation is (past kListedOverlaps).
  std::vector<int64_t> overlapped(result.sections.size(), 0);
  std::vector<size_t> folded_at(result.sections.size(), SIZE_MAX);
  // Sweep per resource: `active` holds sections that have not ended yet.
  std::vector<size_t> active;
  const std::string* resource = nullptr;
  for (size_t idx : order) {
    const CriticalSection& s = result.sections[idx];
    // (Two addresses may hold one text: "" for a step without a key and a
    // step with an empty one.)
    if (resource == nullptr || (resource != resources[idx] && *resource != *resources[idx])) {
      active.clear();
      resource = resources[idx];
    }
    // Gone: sections whose exit was recorded before this one's entry.
    std::erase_if(active, [&](size_t a) {
      const CriticalSection& x = result.sections[a];
      return x.exit_index >= 0 && x.exit_index < s.enter_index;
    });
    for (size_t a : active) {
      const CriticalSection& first = result.sections[a];
      if (first.process == s.process) continue;  // a client cannot overlap itself
      if (++overlapped[a] > kListedOverlaps && folded_at[a] != SIZE_MAX) {
        Fold(s, &result.violations[folded_at[a]]);
        continue;
      }
      if (overlapped[a] > kListedOverlaps) folded_at[a] = result.violations.size();
      Violation v;
      v.resource = *resource;
      v.first = first;
      v.second = s;
      v.overlap_start = s.start;
      v.overlap_end = std::min(first.end, s.end);
      if (folded_at[a] == result.violations.size()) {
        v.folded.emplace();
        Fold(s, &v);
      }
      result.violations.push_back(std::move(v));
    }
    active.push_back(idx);
  }
  ForeignWrites(history, result.sections, &result.violations);
  // By time. Each kind comes sorted already with one lock key (the
  // overlaps in entry order, the foreign writes in history order); when
  // the two (or several keys' overlaps) interleave, the order is found on
  // indices and each violation moved once: a Violation is a few hundred
  // bytes, and a merge sort's moves of them were most of a foreign-write
  // storm's check (perf).
  auto earlier = [](const Violation& a, const Violation& b) {
    return a.overlap_start != b.overlap_start ? a.overlap_start < b.overlap_start
                                              : a.second.enter_index < b.second.enter_index;
  };
  if (!std::is_sorted(result.violations.begin(), result.violations.end(), earlier)) {
    std::vector<size_t> by_time(result.violations.size());
    for (size_t i = 0; i < by_time.size(); ++i) by_time[i] = i;
    std::stable_sort(by_time.begin(), by_time.end(), [&](size_t a, size_t b) {
      return earlier(result.violations[a], result.violations[b]);
    });
    std::vector<Violation> sorted;
    sorted.reserve(by_time.size());
    for (size_t i : by_time) sorted.push_back(std::move(result.violations[i]));
    result.violations = std::move(sorted);
  }
  if (explain) {
    std::optional<Explainer> explainer;
    const size_t explained = std::min(result.violations.size(), kExplainedViolations);
    for (size_t i = 0; i < explained; ++i) Explain(history, &explainer, &result.violations[i]);
  }
  return result;
}

}  // namespace locksim
