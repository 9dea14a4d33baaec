// set-nx-px-del: set-nx-px with the release seed 002 §1.3 warns against.
//
// Source: seed 002 §1.3, the A/B/C story ("A客户端拿到对象锁 ... 删除key释放锁
// ... 这时B、C都拿到了锁"), and seed 000's 2:15 -> 2:21 timeline.
//   acquire: as set-nx-px (SET key token NX PX ttl, retried);
//   release: a plain DEL key, without checking whose key it is.
//
// The bug it carries: a holder whose lease ran out (F1) deletes the lock of
// the client that took it over, and a third client walks in (F2): B and C
// both hold the lock because A's DEL freed B's key.
#ifndef LOCKSIM_LOCKIMPLS_SET_NX_PX_DEL_SET_NX_PX_DEL_H_
#define LOCKSIM_LOCKIMPLS_SET_NX_PX_DEL_SET_NX_PX_DEL_H_

#include "lockimpls/set_nx_px/set_nx_px.h"

namespace locksim {

class SetNxPxDelLock : public SetNxPxLock {
 public:
  using SetNxPxLock::SetNxPxLock;
  Task<bool> Release(Env& thread) override;
};

}  // namespace locksim

#endif  // LOCKSIM_LOCKIMPLS_SET_NX_PX_DEL_SET_NX_PX_DEL_H_
