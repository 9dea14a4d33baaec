// redlock: the distributed lock of redis.io's "Distributed Locks with Redis"
// (distlock) over N independent masters, as redlock-rb implements it.
//
// Sources: seed 003 part II ("分布式环境的redis(多master节点)的分布式锁实现":
// take the lock on the nodes in parallel, to get (N/2)+1 of them in as
// short a time as possible), https://redis.io/docs/manual/patterns/distributed-locks/
// and redlock-rb (drift, retry count and delay).
//   acquire: a random token per acquisition; each try notes the client's
//            clock, sends SET key token NX PX ttl to all N nodes -- at once
//            (`parallel`, the default, as seed 003 suggests) or one after
//            another (as the distlock text describes) -- and counts the OKs.
//            drift = ttl * drift_factor + 2 ms (redlock-rb: 0.01 and 2 ms for
//            Redis's expiry precision); validity = ttl - elapsed - drift.
//            The lock is held iff OKs >= N/2+1 and validity > 0; otherwise
//            the compare-and-delete script runs on every node (a failed try
//            may still have set some keys) and the next try follows after a
//            random delay in [0, retry_delay) -- redlock-rb: 3 retries (4
//            tries), up to 200 ms -- while tries and acquire_timeout allow.
//   release: the compare-and-delete script on every node.
//   Every request to a node gives up after NodeTimeout (the distlock text:
//   "the client uses a timeout which is small compared to the total lock
//   auto-release time ... in the ~ 5-50 milliseconds range" for a 10 s
//   lease): a node that does not answer counts as one that refused, and
//   the others decide.
//
// The bug it carries (by design, the Kleppmann/antirez debate of seed 003):
// its safety rests on assumptions the algorithm cannot check. A node that
// restarts without persistence forgets the keys it granted, so a second
// client can gather a majority while the first still holds one (F8; the
// distlock text's remedy is a delayed restart, not implemented here); a
// node whose clock jumps forward expires its key early, with the same effect
// (F9); and the validity check only covers the time up to the last reply --
// a pause after it (GC, F10) runs the holder past its lease while another
// client takes the lock: two owners.
#ifndef LOCKSIM_LOCKIMPLS_REDLOCK_REDLOCK_H_
#define LOCKSIM_LOCKIMPLS_REDLOCK_REDLOCK_H_

#include <map>
#include <string>

#include "lockimpls/lock.h"

namespace locksim {

class RedlockLock : public Lock {
 public:
  RedlockLock(Env& process, const LockConfig& config) : config_(config) {}
  Task<bool> Acquire(Env& thread) override;
  Task<bool> Release(Env& thread) override;

  // redlock-rb's drift for a lease: ttl * drift_factor + 2 ms.
  static Nanos Drift(const LockConfig& config);
  // The per-node request timeout: the scenario's lock.node_timeout, else a
  // hundredth of the lease, within 5-50 ms.
  static Nanos NodeTimeout(const LockConfig& config);

 private:
  LockConfig config_;
  // Each thread's token for its current acquisition.
  std::map<int, std::string> tokens_;
};

}  // namespace locksim

#endif  // LOCKSIM_LOCKIMPLS_REDLOCK_REDLOCK_H_
