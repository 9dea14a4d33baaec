// set-nx-px: the reference single-node lock.
//
// Source: seed 002 §1.3 ("set nx px 实现锁") and seed 003 part I.
//   acquire: SET key <random token> NX PX ttl, retried every retry_delay
//            until acquire_timeout (client clock) has passed;
//   release: the compare-and-delete Lua script, so a client can only delete
//            a key that still holds its own token.
//
// The bug it carries (from the design, not the code): the lease is measured
// from when Redis set the key, and nothing stops the holder when it runs
// out. A holder that pauses past its TTL (GC, blocked I/O: F1) keeps working
// while another client holds the lock, and replies delayed past the lease
// (F10) hand it a lock that has already expired.
#ifndef LOCKSIM_LOCKIMPLS_SET_NX_PX_SET_NX_PX_H_
#define LOCKSIM_LOCKIMPLS_SET_NX_PX_SET_NX_PX_H_

#include <map>
#include <string>

#include "lockimpls/lock.h"

namespace locksim {

// The compare-and-delete release script of seed 002 §1.3 and redis.io.
inline constexpr std::string_view kCompareAndDeleteScript =
    "if redis.call(\"get\",KEYS[1]) == ARGV[1] then\n"
    "    return redis.call(\"del\",KEYS[1])\n"
    "else\n"
    "    return 0\n"
    "end";

// The compare-and-delete command for `key` held by `token`.
Command CompareAndDeleteCommand(const std::string& key, const std::string& token);
// Sends it to `node`; true when it deleted the key (still the caller's).
// The release of set-nx-px, lua-acquire, fenced and refresh-two-thirds.
Task<bool> CompareAndDelete(Env& env, int node, const std::string& key, const std::string& token);

class SetNxPxLock : public Lock {
 public:
  SetNxPxLock(Env& process, const LockConfig& config) : config_(config) {}
  Task<bool> Acquire(Env& thread) override;
  Task<bool> Release(Env& thread) override;

 protected:
  LockConfig config_;
  // Each thread's owner id for its current acquisition (a random UUID per
  // acquisition, as the seed's code draws one per call).
  std::map<int, std::string> tokens_;
};

}  // namespace locksim

#endif  // LOCKSIM_LOCKIMPLS_SET_NX_PX_SET_NX_PX_H_
