#include "sim/world/runtime.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

namespace locksim {

namespace {
// FNV-1a: a stable hash of a name, to derive a stream from the seed.
uint64_t HashName(std::string_view name) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}
}  // namespace

Runtime::Runtime(uint64_t seed, Nanos unix_start)
    : random_(seed ^ HashName("network")), seed_(seed), unix_start_(unix_start) {
  AddProcessRecord(std::string(History::kNemesis), history_.nemesis());
}

void Runtime::AddProcessRecord(std::string name, int actor) {
  Process p;
  p.random = Random(seed_ ^ HashName(name));
  p.name = std::move(name);
  p.main_actor = actor;
  processes_.push_back(std::move(p));
}

Runtime::~Runtime() {
  tasks_.clear();  // coroutine frames first: they may refer to adopted objects
}

int Runtime::AddProcess(std::string name) {
  const int actor = history_.AddActor(name);
  AddProcessRecord(std::move(name), actor);
  return static_cast<int>(processes_.size()) - 1;
}

int Runtime::AddThread(int process, std::string name) {
  // Threads share their process's clock, pauses and crashes.
  return history_.AddActor(std::move(name), processes_[process].main_actor);
}

Nanos Runtime::DriftOf(Nanos elapsed, int64_t ppm) {
  return Nanos(static_cast<int64_t>(static_cast<__int128>(elapsed.count()) * ppm / 1000000));
}

void Runtime::SetClock(int process, ProcessClock clock) {
  Process& p = processes_[process];
  p.drift_before += Drift(now_ - p.clock_set_at, p.clock.drift_ppm);
  p.clock = clock;
  p.clock_set_at = now_;
}

void Runtime::CheckNotPast(Nanos at) const {
  if (at < now_) {
    InvariantBroken("event scheduled in the past (at " + FormatDuration(at) +
                    ", now " + FormatDuration(now_) + ")");
  }
}

void Runtime::At(Nanos at, int process, Callback fn, int incarnation) {
  CheckNotPast(at);
  PushCallback(at, at, process, incarnation, std::move(fn));
}

void Runtime::Resume(Nanos at, int process, std::coroutine_handle<> h, int incarnation) {
  CheckNotPast(at);
  Push(at, at, process, incarnation, Kind::kResume, 0, h);
}

void Runtime::AtWorldEvent(Nanos at, int process, uint32_t tag, int incarnation) {
  CheckNotPast(at);
  Push(at, at, process, incarnation, Kind::kWorld, tag, {});
}

void Runtime::AtFirst(Nanos at, int process, Callback fn) {
  CheckNotPast(at);
  PushCallback(at, Nanos::min(), process, -1, std::move(fn));
}

void Runtime::PushCallback(Nanos at, Nanos due, int process, int incarnation, Callback fn) {
  if (free_callbacks_.empty()) {
    free_callbacks_.push_back(static_cast<uint32_t>(callbacks_.size()));
    callbacks_.emplace_back();
  }
  const uint32_t slot = free_callbacks_.back();
  free_callbacks_.pop_back();
  callbacks_[slot] = std::move(fn);
  Push(at, due, process, incarnation, Kind::kCallback, slot, {});
}

Runtime::Callback Runtime::TakeCallback(uint32_t slot) {
  Callback fn = std::move(callbacks_[slot]);
  callbacks_[slot] = nullptr;
  free_callbacks_.push_back(slot);
  return fn;
}

void Runtime::Push(Nanos at, Nanos due, int process, int incarnation, Kind kind, uint32_t tag,
                   std::coroutine_handle<> handle) {
  if (incarnation < 0) incarnation = processes_[process].incarnation;
  PushKey(at, due, next_seq_++, process, incarnation, kind, tag, handle);
}

// Once the queue is a heap (see queue_): 4-ary, half the levels of a binary
// one, and a node's four children side by side in memory. Keys are unique
// (seq), so the order events come out in is the same whatever its shape.
void Runtime::SiftUp(size_t i, Key key) {
  while (i > 0) {
    const size_t parent = (i - 1) / kArity;
    if (!Later{}(queue_[parent], key)) break;
    queue_[i] = queue_[parent];
    i = parent;
  }
  queue_[i] = key;
}

void Runtime::SiftDown(size_t i, Key key) {
  const size_t n = queue_.size();
  for (;;) {
    const size_t first = kArity * i + 1;
    if (first >= n) break;
    size_t least = first;
    for (size_t c = first + 1; c < std::min(first + kArity, n); ++c) {
      if (Later{}(queue_[least], queue_[c])) least = c;
    }
    if (!Later{}(key, queue_[least])) break;
    queue_[i] = queue_[least];
    i = least;
  }
  queue_[i] = key;
}

void Runtime::PushKey(const Key& k) {
  const Body& b = k.body;
  PushKey(k.at, k.due, k.seq, b.process, b.incarnation, b.kind, b.tag, b.handle);
}

// The key comes as its fields, and goes into its place field by field: a
// Key built on the stack and passed in was copied with 16-byte loads just
// after its fields' narrower stores, a load the store buffer cannot
// forward, which stalled every push (perf: two thirds of AtWorldEvent's
// time, on one instruction).
void Runtime::PushKey(Nanos at, Nanos due, uint64_t seq, int process, int incarnation,
                      Kind kind, uint32_t tag, std::coroutine_handle<> handle) {
  if (!heap_ && queue_.size() >= kSortedMax) {
    std::reverse(queue_.begin(), queue_.end());  // earliest first: a heap already
    heap_ = true;
  }
  if (heap_) {
    const Key key{at, due, seq, Body{process, incarnation, kind, tag, handle}};
    queue_.push_back(key);
    SiftUp(queue_.size() - 1, key);
    return;
  }
  // The keys the new one goes before (the earlier events) move up by one
  // as the scan passes them: a loop that compares as it moves, not a
  // memmove call (3% of a sweep-10k seed, perf, for a few dozen bytes).
  size_t i = queue_.size();
  queue_.emplace_back();
  Key* const q = queue_.data();
  while (i > 0 && Later::Than(at, due, seq, q[i - 1])) {
    q[i] = q[i - 1];
    --i;
  }
  Key& k = q[i];
  k.at = at;
  k.due = due;
  k.seq = seq;
  k.body.process = process;
  k.body.incarnation = incarnation;
  k.body.kind = kind;
  k.body.tag = tag;
  k.body.handle = handle;
}

Runtime::Key Runtime::TakeKeyAt(size_t i) {
  const Key taken = queue_[i];
  if (!heap_) {
    queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(i));
    return taken;
  }
  const Key last = queue_.back();
  queue_.pop_back();
  if (i < queue_.size()) {
    // The last key fills the hole, and moves up or down from there.
    if (i > 0 && Later{}(queue_[(i - 1) / kArity], last)) {
      SiftUp(i, last);
    } else {
      SiftDown(i, last);
    }
  }
  return taken;
}

// Takes NextKey() out: the sorted vector's back, or the heap's root
// (TakeKeyAt(0) spelled out: this runs for every event, and going through
// TakeKeyAt's general hole cost 0.6% of a sweep-10k seed, callgrind). Run
// reads the key's fields before, one by one (see Push).
void Runtime::PopNext() {
  if (!heap_) {
    queue_.pop_back();
    return;
  }
  const Key last = queue_.back();
  queue_.pop_back();
  if (!queue_.empty()) SiftDown(0, last);
}

Runtime::Key Runtime::BreakTie(Key k) {
  const Body& mine = k.body;
  auto stream = [this](const Body& b) {
    return b.kind == Kind::kWorld ? WorldEventStream(b.tag) : uint64_t{0};
  };
  struct Candidate {
    uint64_t stream;
    Key key;
    size_t index;  // in queue_; k's is queue_.size()
  };
  std::vector<Candidate> candidates{{stream(mine), k, queue_.size()}};
  for (size_t i = 0; i < queue_.size(); ++i) {
    const Key& q = queue_[i];
    const Body& b = q.body;
    // An AtFirst event (due: min; a pause's end, a key's expiry looked at)
    // goes first by design: not a tie.
    if (q.at != k.at || q.due != k.due || b.process != mine.process ||
        b.incarnation != mine.incarnation) {
      continue;
    }
    const uint64_t s = stream(b);
    auto it = std::find_if(candidates.begin(), candidates.end(),
                           [s](const Candidate& c) { return c.stream == s; });
    if (it == candidates.end()) {
      candidates.push_back({s, q, i});
    } else if (q.seq < it->key.seq) {
      *it = {s, q, i};  // the stream's first event
    }
  }
  if (candidates.size() < 2) return k;
  std::sort(candidates.begin() + 1, candidates.end(),
            [](const Candidate& a, const Candidate& b) { return a.key.seq < b.key.seq; });
  std::vector<std::string> among;
  for (const Candidate& c : candidates) {
    const Body& b = c.key.body;
    among.push_back(b.kind == Kind::kWorld ? WorldEventStreamName(b.tag)
                                           : ProcessName(b.process) + " (own)");
  }
  const size_t pick = chooser_->First(now_, among);
  if (pick == 0 || pick >= candidates.size()) return k;
  const Candidate& chosen = candidates[pick];
  const Key taken = TakeKeyAt(chosen.index);
  PushKey(k);
  return taken;
}

void Runtime::Pause(int process, Nanos until) {
  if (process == nemesis()) InvariantBroken("the nemesis cannot be paused");
  processes_[process].paused_until = std::max(processes_[process].paused_until, until);
}

bool Runtime::IsPaused(int process) const {
  return processes_[process].paused_until > now_;
}

void Runtime::Crash(int process) {
  if (process == nemesis()) InvariantBroken("the nemesis cannot crash");
  Process& p = processes_[process];
  p.crashed = true;
  ++p.incarnation;
  p.paused_until = Nanos{0};
  // Its tasks are over: they never resume.
  live_tasks_ -= p.live_tasks;
  p.live_tasks = 0;
}

void Runtime::Restart(int process) { processes_[process].crashed = false; }

void Runtime::Spawn(int process, Nanos at, Task<void> task, bool daemon, int incarnation) {
  if (incarnation < 0) incarnation = processes_[process].incarnation;
  if (!daemon && incarnation == processes_[process].incarnation) {
    ++processes_[process].live_tasks;
    ++live_tasks_;
    task = Tracked(std::move(task), process, incarnation);
  }
  tasks_.push_back(Spawned{std::move(task), daemon, process, incarnation});
  size_t slot = tasks_.size() - 1;
  At(at, process, [this, slot] { tasks_[slot].task.Start(); }, incarnation);
}

Task<void> Runtime::Tracked(Task<void> task, int process, int incarnation) {
  std::exception_ptr error;
  try {
    co_await std::move(task);
  } catch (...) {
    error = std::current_exception();  // surfaced by Run once it stops
  }
  if (processes_[process].incarnation == incarnation) {
    --processes_[process].live_tasks;
    --live_tasks_;
  }
  if (error) std::rethrow_exception(error);
}

void Runtime::Run(Nanos deadline, bool until_deadline) {
  while (until_deadline || !AllTasksDone()) {
    Nanos next = queue_.empty() ? deadline : std::min(NextKey().at, deadline);
    if (next > now_) AdvanceTo(next);
    if (now_ >= deadline) break;
    while (!queue_.empty() && NextKey().at <= now_) {
      // The next key's fields, each read as Push stored it: a copy of the
      // whole key loads it in 16-byte pieces, which the store buffer cannot
      // forward from the narrower stores of a key pushed just before (perf).
      const Key& next = NextKey();
      const Nanos at = next.at;
      const Nanos due = next.due;
      const uint64_t seq = next.seq;
      const int process = next.body.process;
      const int incarnation = next.body.incarnation;
      Kind kind = next.body.kind;
      uint32_t tag = next.body.tag;
      std::coroutine_handle<> handle = next.body.handle;
      PopNext();
      const Process& owner = processes_[process];
      if (owner.crashed || owner.incarnation != incarnation) {  // died with it
        if (kind == Kind::kWorld) DropWorldEvent(tag);
        if (kind == Kind::kCallback) TakeCallback(tag);  // destroyed here
        continue;
      }
      if (owner.paused_until > now_) {
        // The process is paused: the event keeps its turn among the
        // process's other deferred events and runs when the pause ends.
        PushKey(owner.paused_until, due, seq, process, incarnation, kind, tag, handle);
        continue;
      }
      if (now_ != instant_) {
        instant_ = now_;
        events_at_instant_ = 0;
      }
      if (++events_at_instant_ > kMaxEventsPerInstant) {
        InvariantBroken("more than " + std::to_string(kMaxEventsPerInstant) +
                        " events at one instant (" + FormatDuration(now_) +
                        "): time no longer advances (a zero delay in a loop?)");
      }
      if (chooser_ != nullptr && due != Nanos::min()) {
        const Key k{at, due, seq, Body{process, incarnation, kind, tag, handle}};
        const Body chosen = BreakTie(k).body;
        kind = chosen.kind;
        tag = chosen.tag;
        handle = chosen.handle;
      }
      switch (kind) {
        case Kind::kCallback: TakeCallback(tag)(); break;
        case Kind::kResume: handle.resume(); break;
        case Kind::kWorld: OnWorldEvent(tag); break;
      }
      if (history_cap_ > 0 && history_.size() >= history_cap_) {
        stopped_by_monitor_ = true;
        break;
      }
      if (monitor_ && ++events_since_monitor_ >= monitor_every_) {
        events_since_monitor_ = 0;
        if (!monitor_()) {
          stopped_by_monitor_ = true;
          break;
        }
      }
    }
    if (stopped_by_monitor_) break;
  }
  // A task that threw is a bug in locksim, not a verdict: surface it.
  for (Spawned& s : tasks_) {
    if (s.task.done()) s.task.Result();
  }
}

void Runtime::InvariantBroken(const std::string& what) const {
  std::fprintf(stderr,
               "locksim: simulator invariant broken: %s\n"
               "  seed: %llu\n  replay: %s\n",
               what.c_str(), static_cast<unsigned long long>(seed_),
               replay_hint_.empty() ? "(no scenario)" : replay_hint_.c_str());
  std::abort();
}

}  // namespace locksim
