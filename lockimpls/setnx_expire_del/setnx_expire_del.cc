#include "lockimpls/setnx_expire_del/setnx_expire_del.h"

namespace locksim {

Task<bool> SetnxExpireDelLock::Release(Env& env) {
  Command del = {"DEL", config_.key};
  Reply r = co_await env.Call(0, std::move(del));
  co_return r.IsInteger(1);
}

}  // namespace locksim
