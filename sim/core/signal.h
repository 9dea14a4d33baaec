// Signal: something the threads of a process wait on with a timeout, as a
// condition variable for coroutines: a process-local mutex being released,
// an unlock message arriving. Waiting goes through Env::WaitFor, so a wake-up
// is an event of the waiter's process and respects its pauses.
#ifndef LOCKSIM_SIM_CORE_SIGNAL_H_
#define LOCKSIM_SIM_CORE_SIGNAL_H_

#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace locksim {

class Signal {
 public:
  struct Waiter {
    bool done = false;                // woken or timed out
    std::function<void(bool)> wake;  // true: notified; false: timed out
  };

  void Add(std::shared_ptr<Waiter> w) {
    // Drop waiters that timed out, so a thread that waits again and again
    // (a watchdog) does not grow the list.
    std::erase_if(waiters_, [](const std::shared_ptr<Waiter>& x) { return x->done; });
    waiters_.push_back(std::move(w));
  }

  // Wakes every thread waiting now.
  void NotifyAll() {
    for (auto& w : std::exchange(waiters_, {})) Wake(*w);
  }
  // Wakes the longest-waiting thread, if any.
  void NotifyOne() {
    while (!waiters_.empty()) {
      std::shared_ptr<Waiter> w = std::move(waiters_.front());
      waiters_.erase(waiters_.begin());
      if (!w->done) {
        Wake(*w);
        return;
      }
    }
  }
  bool HasWaiters() const {
    for (const auto& w : waiters_) {
      if (!w->done) return true;
    }
    return false;
  }

 private:
  static void Wake(Waiter& w) {
    if (w.done) return;
    w.done = true;
    w.wake(true);
  }
  std::vector<std::shared_ptr<Waiter>> waiters_;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_CORE_SIGNAL_H_
