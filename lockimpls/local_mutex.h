// LocalReentrantMutex: java.util.concurrent.locks.ReentrantLock for the
// threads of one client process, as RedisLockRegistry's localLock and seed
// 004's hand-built lock take it before the Redis lock. The owner thread
// re-enters at once and counts holds; other threads of the process wait on
// a Signal (Env::WaitFor) until it is free or their timeout passes on the
// client's clock. Process-local: it orders nothing across processes.
#ifndef LOCKSIM_LOCKIMPLS_LOCAL_MUTEX_H_
#define LOCKSIM_LOCKIMPLS_LOCAL_MUTEX_H_

#include "sim/core/env.h"
#include "sim/core/signal.h"
#include "sim/core/task.h"
#include "sim/core/time.h"

namespace locksim {

class LocalReentrantMutex {
 public:
  // tryLock(timeout): true when the calling thread holds the mutex
  // (hold count incremented), false when `timeout` passed first.
  Task<bool> TryLock(Env& thread, Nanos timeout) {
    const int me = thread.ThreadId();
    if (owner_ == me) {
      ++holds_;
      co_return true;
    }
    const Nanos end = thread.Now() + timeout;
    while (owner_ != 0) {
      const Nanos left = end - thread.Now();
      if (left <= Nanos(0)) co_return false;
      co_await thread.WaitFor(released_, left);
    }
    owner_ = me;
    holds_ = 1;
    co_return true;
  }
  bool IsHeldBy(const Env& thread) const { return owner_ == thread.ThreadId(); }
  int HoldCount() const { return holds_; }
  // unlock(): the caller must hold it; the last unlock wakes the waiters.
  void Unlock() {
    if (--holds_ > 0) return;
    owner_ = 0;
    holds_ = 0;
    released_.NotifyAll();
  }

 private:
  int owner_ = 0;  // thread id; 0: free
  int holds_ = 0;
  Signal released_;
};

}  // namespace locksim

#endif  // LOCKSIM_LOCKIMPLS_LOCAL_MUTEX_H_
