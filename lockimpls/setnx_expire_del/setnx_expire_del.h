// setnx-expire-del: seed 000's lock with the release the author first asks
// about ("why check the identifier at all? I just delete it").
//
// Source: seed 000, the 2:15 -> 2:21 timeline.
//   acquire: as setnx-expire (SETNX; EXPIRE (int)(timeout/1000); TTL repair);
//   release: a plain DEL key, with no identifier check.
//
// The bug it carries: a holder whose lock expired deletes the next holder's
// key, so a third client gets "a lock it should not have" (F2).
#ifndef LOCKSIM_LOCKIMPLS_SETNX_EXPIRE_DEL_SETNX_EXPIRE_DEL_H_
#define LOCKSIM_LOCKIMPLS_SETNX_EXPIRE_DEL_SETNX_EXPIRE_DEL_H_

#include "lockimpls/setnx_expire/setnx_expire.h"

namespace locksim {

class SetnxExpireDelLock : public SetnxExpireLock {
 public:
  using SetnxExpireLock::SetnxExpireLock;
  Task<bool> Release(Env& thread) override;
};

}  // namespace locksim

#endif  // LOCKSIM_LOCKIMPLS_SETNX_EXPIRE_DEL_SETNX_EXPIRE_DEL_H_
