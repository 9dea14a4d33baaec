// getset-timestamp: the SETNX / GETSET timestamp lock of seed 001 (and seed
// 002 §1.2).
//
// Source: seed 001's Python listing (LOCK_TIMEOUT = 3, whole seconds from
// int(time.time()) on the client's own clock):
//   acquire: now = int(time()); lock_timeout = now + LOCK_TIMEOUT + 1;
//            SETNX key lock_timeout -> 1: acquired;
//            else if now > int(GET key) and now > int(GETSET key lock_timeout):
//            acquired; else sleep 1 ms and loop.
//   release: if int(time()) < lock_timeout: DEL key.
//
// The bugs it carries: no owner identity and no Redis TTL: expiry is judged
// by each client's own clock, so a client whose clock runs ahead takes a
// live lock (F4); two contenders that both see the expired stamp both GETSET
// it, and the loser overwrites the winner's expiry (F5); the release checks
// the time and then deletes, so a pause in between deletes someone else's
// lock (F6), and a holder that overran its timeout deletes nothing but has
// been sharing the lock since (F1/F2).
//
// Deviation: when GET finds no key (it was released between SETNX and GET)
// the original raises a TypeError on int(None); here the client retries.
#ifndef LOCKSIM_LOCKIMPLS_GETSET_TIMESTAMP_GETSET_TIMESTAMP_H_
#define LOCKSIM_LOCKIMPLS_GETSET_TIMESTAMP_GETSET_TIMESTAMP_H_

#include <map>

#include "lockimpls/lock.h"

namespace locksim {

class GetsetTimestampLock : public Lock {
 public:
  GetsetTimestampLock(Env& process, const LockConfig& config) : config_(config) {}
  Task<bool> Acquire(Env& thread) override;
  Task<bool> Release(Env& thread) override;

 private:
  LockConfig config_;
  std::map<int, int64_t> lock_timeouts_;  // per thread, unix seconds
};

}  // namespace locksim

#endif  // LOCKSIM_LOCKIMPLS_GETSET_TIMESTAMP_GETSET_TIMESTAMP_H_
