#include "sim/runtime.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace locksim {

Runtime::Runtime(uint64_t seed, Nanos unix_start)
    : random_(seed), seed_(seed), unix_start_(unix_start) {
  clocks_.emplace_back();  // the nemesis
  paused_until_.emplace_back(0);
}

Runtime::~Runtime() = default;

int Runtime::AddProcess(std::string name) {
  int id = history_.AddProcess(std::move(name));
  clocks_.emplace_back();
  paused_until_.emplace_back(0);
  return id;
}

Nanos Runtime::LocalNow(int process) const {
  const ProcessClock& c = clocks_[process];
  const __int128 drift =
      static_cast<__int128>(now_.count()) * c.drift_ppm / 1000000;
  return unix_start_ + now_ + c.offset + Nanos(static_cast<int64_t>(drift));
}

void Runtime::SetClock(int process, ProcessClock clock) {
  clocks_[process] = clock;
}

void Runtime::At(Nanos at, int process, Callback fn) {
  if (at < now_) {
    InvariantBroken("event scheduled in the past (at " + FormatDuration(at) +
                    ", now " + FormatDuration(now_) + ")");
  }
  Push(at, process, std::move(fn));
}

void Runtime::Push(Nanos at, int process, Callback fn) {
  queue_.push_back(Event{at, next_seq_++, process, std::move(fn)});
  std::push_heap(queue_.begin(), queue_.end(), Later{});
}

Runtime::Event Runtime::Pop() {
  std::pop_heap(queue_.begin(), queue_.end(), Later{});
  Event e = std::move(queue_.back());
  queue_.pop_back();
  return e;
}

void Runtime::Pause(int process, Nanos until) {
  if (process == nemesis()) InvariantBroken("the nemesis cannot be paused");
  paused_until_[process] = std::max(paused_until_[process], until);
}

bool Runtime::IsPaused(int process) const {
  return paused_until_[process] > now_;
}

void Runtime::Spawn(int process, Nanos at, Task<void> task) {
  tasks_.push_back(std::move(task));
  size_t slot = tasks_.size() - 1;
  At(at, process, [this, slot] { tasks_[slot].Start(); });
}

bool Runtime::AllTasksDone() const {
  return std::all_of(tasks_.begin(), tasks_.end(),
                     [](const Task<void>& t) { return t.done(); });
}

void Runtime::Run(Nanos deadline, bool until_deadline) {
  while (until_deadline || !AllTasksDone()) {
    Nanos next = queue_.empty() ? deadline : std::min(queue_.front().at, deadline);
    if (next > now_) AdvanceTo(next);
    if (now_ >= deadline) break;
    while (!queue_.empty() && queue_.front().at <= now_) {
      Event e = Pop();
      if (paused_until_[e.process] > now_) {
        // The process is paused: the event keeps its turn among the
        // process's other deferred events and runs when the pause ends.
        Push(paused_until_[e.process], e.process, std::move(e.fn));
        continue;
      }
      e.fn();
    }
  }
  // A task that threw is a bug in locksim, not a verdict: surface it.
  for (Task<void>& t : tasks_) {
    if (t.done()) t.Result();
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
