// fenced: set-nx-px plus a fencing token, as Kleppmann proposes ("How to do
// distributed locking", 2016) -- beyond the seed documents, the fix seed
// 003's debate points at.
//
//   acquire: SET key uuid NX PX ttl (retried), then INCR fence:<key>; the
//            returned number is the lease's fencing token;
//   release: the Lua compare-and-delete script.
//
// The protected resource remembers the highest token it has seen and
// rejects any write carrying an older one. A paused holder still outlives
// its lease (F1: two clients believe they hold the lock), but its late
// writes are refused: overlap without corruption.
#ifndef LOCKSIM_LOCKIMPLS_FENCED_FENCED_H_
#define LOCKSIM_LOCKIMPLS_FENCED_FENCED_H_

#include <map>

#include "lockimpls/set_nx_px/set_nx_px.h"

namespace locksim {

class FencedLock : public SetNxPxLock {
 public:
  using SetNxPxLock::SetNxPxLock;
  Task<bool> Acquire(Env& thread) override;
  std::optional<int64_t> FencingToken(const Env& thread) const override;

 private:
  std::map<int, int64_t> fencing_tokens_;
};

}  // namespace locksim

#endif  // LOCKSIM_LOCKIMPLS_FENCED_FENCED_H_
