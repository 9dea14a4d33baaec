// setnx-expire: the lock of Redis in Action ch. 6 as seed 000 gives it (Jedis).
//
// Source: seed 000, acquireLockWithTimeout() / releaseLock().
//   acquire: until acquire_timeout: SETNX key uuid; on 1 -> EXPIRE key
//            (int)(lock_timeout / 1000) and done; on 0 -> if TTL key == -1,
//            EXPIRE key (repairs a holder that died between SETNX and
//            EXPIRE); sleep 1 ms.
//   release: WATCH key; if GET key == uuid -> MULTI; DEL key; EXEC (a nil
//            EXEC retries); else UNWATCH and report failure. A transaction
//            step that fails (a lost connection) ends it, as Jedis's
//            exception does (WatchedRelease).
//
// The bugs it carries: (F12) the integer division turns a lock timeout under
// 1000 ms into EXPIRE key 0, which deletes the lock the moment it is taken,
// so two clients hold it with no fault at all; (F3) a holder that dies
// between SETNX and EXPIRE leaves a key without TTL until another client's
// TTL check repairs it; (F1) a paused holder outlives its lease.
#ifndef LOCKSIM_LOCKIMPLS_SETNX_EXPIRE_SETNX_EXPIRE_H_
#define LOCKSIM_LOCKIMPLS_SETNX_EXPIRE_SETNX_EXPIRE_H_

#include <map>
#include <string>

#include "lockimpls/lock.h"

namespace locksim {

class SetnxExpireLock : public Lock {
 public:
  SetnxExpireLock(Env& process, const LockConfig& config) : config_(config) {}
  Task<bool> Acquire(Env& thread) override;
  Task<bool> Release(Env& thread) override;

 protected:
  LockConfig config_;
  std::map<int, std::string> identifiers_;  // per thread
};

// The WATCH / GET / MULTI / DEL / EXEC release of seed 000's releaseLock(),
// shared with watch-multi. Returns true if it deleted the caller's key. A
// step answered otherwise than it must be (WATCH and MULTI +OK, DEL
// +QUEUED, GET and EXEC no error) ends it with false (a MULTI left open is
// DISCARDed first), as Jedis's exception does: a lost or timed-out
// connection is replaced by a new one, which has neither the WATCH nor the
// MULTI, and carrying on there would DEL at once.
Task<bool> WatchedRelease(Env& env, const std::string& key, const std::string& identifier);
// MULTI; cmd; EXEC on node 0: EXEC's reply (nil: a WATCHed key changed), or
// an error when MULTI failed or `cmd` was not queued (the transaction then
// DISCARDed, not left open on a live connection).
Task<Reply> InMulti(Env& env, const Command& cmd);

}  // namespace locksim

#endif  // LOCKSIM_LOCKIMPLS_SETNX_EXPIRE_SETNX_EXPIRE_H_
