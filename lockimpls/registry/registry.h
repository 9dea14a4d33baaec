// registry: Spring Integration's RedisLockRegistry (spring-integration-redis
// 5.x, RedisLock.lock/tryLock/unlock), as seed 004 describes it.
//
// Source: seed 004 ("RedisLockRegistry": OBTAIN_LOCK_SCRIPT, the local
// ReentrantLock taken first, unlock by hold count).
//   clientId: one random UUID per registry, i.e. per process (not per thread);
//   acquire: the process-local ReentrantLock for the key (tryLock with the
//            acquire timeout; other threads of the process wait on it), then
//            OBTAIN_LOCK_SCRIPT (GET == clientId -> PEXPIRE; no key -> SET
//            clientId PX expiry; else false) every retry_delay (100 ms) until
//            the same deadline; on failure the local lock is given back.
//            A re-entering thread passes the local lock at once and the
//            script refreshes the expiry;
//   release: not the local owner -> failure (IllegalStateException); hold
//            count > 1 -> only the local unlock; == 1 -> GET == clientId ?
//            UNLINK key : report the expired key as a failed release
//            (Spring's "Lock was released in the store due to expiration"
//            integrity error); then the local unlock.
// Defaults: expireAfter 60 s, spin 100 ms.
//
// The bugs it carries: no renewal at all, so a critical section longer than
// the expiry, or a pause past it, loses the lock to another process (F1);
// the clientId is per process, so the script lets in any thread of the
// owning process: only the local lock keeps them apart, and a thread (or a
// second registry with the same id) that bypassed it would look like the
// owner. The GET-then-UNLINK release is check-then-act (F6 window).
#ifndef LOCKSIM_LOCKIMPLS_REGISTRY_REGISTRY_H_
#define LOCKSIM_LOCKIMPLS_REGISTRY_REGISTRY_H_

#include <string>

#include "lockimpls/local_mutex.h"
#include "lockimpls/lock.h"

namespace locksim {

inline constexpr std::string_view kObtainLockScript =
    "local lockClientId = redis.call('GET', KEYS[1])\n"
    "if lockClientId == ARGV[1] then\n"
    "  redis.call('PEXPIRE', KEYS[1], ARGV[2])\n"
    "  return true\n"
    "elseif not lockClientId then\n"
    "  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])\n"
    "  return true\n"
    "end\n"
    "return false";

class RegistryLock : public Lock {
 public:
  RegistryLock(Env& process, const LockConfig& config)
      : config_(config), client_id_(process.RandomToken()) {}
  Task<bool> Acquire(Env& thread) override;
  Task<bool> Release(Env& thread) override;

 private:
  LockConfig config_;
  std::string client_id_;  // RedisLockRegistry.clientId, per process
  LocalReentrantMutex local_;
};

}  // namespace locksim

#endif  // LOCKSIM_LOCKIMPLS_REGISTRY_REGISTRY_H_
