// watch-multi: WATCH/MULTI/EXEC used as an optimistic lock, as seed 000
// describes it ("watch一般也是跟事务连用的 ... 一般情况下,watch都会包含在一个
// while循环中").
//
// Source: seed 000, the WATCH section and its while loop.
//   acquire: until acquire_timeout: WATCH key; GET key; if empty ->
//            MULTI; SET key uuid PX ttl; EXEC; a nil EXEC (someone touched
//            the key) retries at once; if the key is held -> UNWATCH, sleep.
//            A step answered otherwise than it must be (WATCH and MULTI
//            +OK, SET +QUEUED, GET and EXEC no error: a lost or timed-out
//            connection) ends the try, as Jedis's exception ends the
//            seed's loop, and the next starts over with a WATCH after the
//            retry delay (a MULTI left open is DISCARDed first). Carrying
//            on would send the SET on a new
//            connection, outside any MULTI: an overwrite no client of the
//            seed's code makes.
//   release: as setnx-expire (WATCH, GET == uuid, MULTI, DEL, EXEC).
//
// What it shows: correct under contention, but every conflicting write
// aborts everyone else's EXEC, so retries grow with the number of clients
// ("如果负载很大,事务就会不断的重试", F11); and, as every TTL lock, a paused
// holder outlives its lease (F1).
#ifndef LOCKSIM_LOCKIMPLS_WATCH_MULTI_WATCH_MULTI_H_
#define LOCKSIM_LOCKIMPLS_WATCH_MULTI_WATCH_MULTI_H_

#include <map>
#include <string>

#include "lockimpls/lock.h"

namespace locksim {

class WatchMultiLock : public Lock {
 public:
  WatchMultiLock(Env& process, const LockConfig& config) : config_(config) {}
  Task<bool> Acquire(Env& thread) override;
  Task<bool> Release(Env& thread) override;
  int64_t exec_retries() const { return exec_retries_; }

 private:
  LockConfig config_;
  std::map<int, std::string> uuids_;
  int64_t exec_retries_ = 0;  // EXECs aborted by a concurrent write
};

}  // namespace locksim

#endif  // LOCKSIM_LOCKIMPLS_WATCH_MULTI_WATCH_MULTI_H_
