// refresh-two-thirds: seed 004's hand-built lock ("动手实现分布式锁"): a local
// ReentrantLock per key, then a Redis lock by Lua, refreshed by a scheduled
// task every 2/3 of the lease.
//
// Source: seed 004 ("分布式锁考虑要点": refresh every 2/3 of the lock's
// lifetime, "value值用线程id标识", reentrant; "获取锁过程" / "释放锁过程").
//   identity: "each thread has a unique identifier in the distributed
//            environment": a random process id + ":" + the thread id;
//   acquire: the process-local reentrant lock for the key (other threads of
//            the process wait on it), then until acquire_timeout, every
//            retry_delay (lockInfo.sleep()): EVAL SET key id NX PX lease, or
//            if GET key == id PEXPIRE (re-entry); on the thread's first
//            acquisition a refresh task (a background thread of the process,
//            the seed's ConcurrentTaskScheduler) starts: every 2/3 of the
//            lease, EVAL if GET key == id then PEXPIRE lease;
//   release: not the local owner -> failure; reentry count > 1 -> local
//            unlock only; == 1 -> cancel the refresh task, EVAL compare-and-
//            delete, local unlock.
// Defaults: the seed gives no numbers; lease 10 s, sleep 100 ms, timeout 10 s.
//
// The bug it carries: the refresh task is a thread of the holder's process,
// so a pause (GC, a stopped VM) stops it as well; when the pause outlasts
// the lease the key expires, another client takes it, and the holder wakes
// up inside its critical section (F1). The refresh keeps long critical
// sections safe, not paused ones.
#ifndef LOCKSIM_LOCKIMPLS_REFRESH_TWO_THIRDS_REFRESH_TWO_THIRDS_H_
#define LOCKSIM_LOCKIMPLS_REFRESH_TWO_THIRDS_REFRESH_TWO_THIRDS_H_

#include <memory>
#include <string>

#include "lockimpls/local_mutex.h"
#include "lockimpls/lock.h"

namespace locksim {

inline constexpr std::string_view kRefreshAcquireScript =
    "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then\n"
    "  return 1\n"
    "end\n"
    "if redis.call('GET', KEYS[1]) == ARGV[1] then\n"
    "  redis.call('PEXPIRE', KEYS[1], ARGV[2])\n"
    "  return 1\n"
    "end\n"
    "return 0";

inline constexpr std::string_view kRefreshScript =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then\n"
    "  return redis.call('PEXPIRE', KEYS[1], ARGV[2])\n"
    "end\n"
    "return 0";

class RefreshTwoThirdsLock : public Lock {
 public:
  RefreshTwoThirdsLock(Env& process, const LockConfig& config)
      : config_(config), process_id_(process.RandomToken()) {}
  Task<bool> Acquire(Env& thread) override;
  Task<bool> Release(Env& thread) override;

 private:
  std::string Identity(const Env& thread) const {
    return process_id_ + ":" + std::to_string(thread.ThreadId());
  }

  LockConfig config_;
  std::string process_id_;
  LocalReentrantMutex local_;
  std::shared_ptr<bool> refresh_cancelled_;  // the ScheduledFuture; null: none
};

}  // namespace locksim

#endif  // LOCKSIM_LOCKIMPLS_REFRESH_TWO_THIRDS_REFRESH_TWO_THIRDS_H_
