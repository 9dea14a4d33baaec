// reentrant-watchdog: Redisson's RLock (RedissonLock), as seed 004 names it.
//
// Source: seed 004 ("Redisson", "Redisson和RedisLockRegistry对比": reentrant,
// lease renewed by a Netty TimerTask); the scripts are Redisson 3.x's
// tryLockInnerAsync / unlockInnerAsync / renewExpirationAsync.
//   owner:   "<uuid of the process's Redisson instance>:<thread id>", a field
//            of a hash at the lock key whose value is the hold count;
//   acquire: EVAL: if the key does not exist or our field does, HINCRBY
//            field 1, PEXPIRE lease, return nil (acquired); else return the
//            PTTL. Retried every retry_delay until acquire_timeout. Redisson
//            waits for the unlock message on redisson_lock__channel:{key};
//            Env::Call cannot subscribe, so waiters here poll instead;
//   watchdog: on a thread's first acquisition (no renewal running for the
//            lock) a background thread of the process (Env::StartThread)
//            runs every lease/3: if HEXISTS field then PEXPIRE lease, 1,
//            else 0. It stops when the lock is fully released, or when a
//            renewal returns 0 or fails (not retried, as in Redisson);
//   release: EVAL: not the holder -> nil (a failed release, Redisson's
//            IllegalMonitorStateException); HINCRBY field -1; > 0 -> PEXPIRE
//            lease, 0; else DEL + PUBLISH the unlock message, 1.
// Defaults: lease 30 s (lockWatchdogTimeout), renewal every 10 s.
//
// The bug it carries: the watchdog is a thread of the holder's process, so
// a pause (GC, a stopped VM) stops it too. A pause longer than the lease
// lets the key expire, another client takes the lock, and the holder wakes
// inside its critical section (F1). Renewal only protects critical sections
// that are long, not ones that are paused.
#ifndef LOCKSIM_LOCKIMPLS_REENTRANT_WATCHDOG_REENTRANT_WATCHDOG_H_
#define LOCKSIM_LOCKIMPLS_REENTRANT_WATCHDOG_REENTRANT_WATCHDOG_H_

#include <map>
#include <memory>
#include <string>

#include "lockimpls/lock.h"

namespace locksim {

inline constexpr std::string_view kRedissonLockScript =
    "if ((redis.call('exists', KEYS[1]) == 0) or "
    "(redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then "
    "redis.call('hincrby', KEYS[1], ARGV[2], 1); "
    "redis.call('pexpire', KEYS[1], ARGV[1]); "
    "return nil; "
    "end; "
    "return redis.call('pttl', KEYS[1]);";

inline constexpr std::string_view kRedissonUnlockScript =
    "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then "
    "return nil;"
    "end; "
    "local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); "
    "if (counter > 0) then "
    "redis.call('pexpire', KEYS[1], ARGV[2]); "
    "return 0; "
    "else "
    "redis.call('del', KEYS[1]); "
    "redis.call('publish', KEYS[2], ARGV[1]); "
    "return 1; "
    "end; "
    "return nil;";

inline constexpr std::string_view kRedissonRenewScript =
    "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then "
    "redis.call('pexpire', KEYS[1], ARGV[1]); "
    "return 1; "
    "end; "
    "return 0;";

class ReentrantWatchdogLock : public Lock {
 public:
  ReentrantWatchdogLock(Env& process, const LockConfig& config);
  Task<bool> Acquire(Env& thread) override;
  Task<bool> Release(Env& thread) override;

  // Redisson's ExpirationEntry: the threads holding the lock in this
  // process (with their hold counts) and whether the renewal was cancelled.
  struct Renewal {
    std::map<int, int> holds;  // thread id -> acquisitions not yet released
    bool cancelled = false;
  };

 private:
  std::string Owner(const Env& thread) const;
  void ScheduleRenewal(Env& thread);
  void CancelRenewal(const Env& thread);

  LockConfig config_;
  std::string uuid_;  // the process's Redisson instance id
  std::shared_ptr<Renewal> renewal_;  // null: no watchdog running
};

}  // namespace locksim

#endif  // LOCKSIM_LOCKIMPLS_REENTRANT_WATCHDOG_REENTRANT_WATCHDOG_H_
