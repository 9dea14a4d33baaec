// setnx-simple: seed 002's first, "simple" lock (§1.1).
//
// Source: seed 002 §1.1 ("获取锁(简单) redis lockName tryNum").
//   acquire: up to try_num times: SETNX key uuid; on 1 return the uuid.
//            (The listing in the document is garbled; a retry delay between
//            tries is assumed, the scenario's retry_delay.)
//   release: GET key; if it equals the uuid, DEL key: two separate commands.
//
// The bugs it carries: no TTL at all, so a holder that dies leaves the lock
// held for ever (F3: "当持有锁线程死掉了...锁就不可能再释放"); and a
// check-then-act release (F6): between the GET and the DEL the lock can
// change hands.
#ifndef LOCKSIM_LOCKIMPLS_SETNX_SIMPLE_SETNX_SIMPLE_H_
#define LOCKSIM_LOCKIMPLS_SETNX_SIMPLE_SETNX_SIMPLE_H_

#include <map>
#include <string>

#include "lockimpls/lock.h"

namespace locksim {

class SetnxSimpleLock : public Lock {
 public:
  SetnxSimpleLock(Env& process, const LockConfig& config) : config_(config) {}
  Task<bool> Acquire(Env& thread) override;
  Task<bool> Release(Env& thread) override;

 private:
  LockConfig config_;
  std::map<int, std::string> uuids_;  // per thread
};

}  // namespace locksim

#endif  // LOCKSIM_LOCKIMPLS_SETNX_SIMPLE_SETNX_SIMPLE_H_
