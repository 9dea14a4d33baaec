#include "lockimpls/setnx_simple/setnx_simple.h"

namespace locksim {

Task<bool> SetnxSimpleLock::Acquire(Env& env) {
  const std::string uuid = env.RandomToken();
  uuids_[env.ThreadId()] = uuid;
  const SharedCommand setnx = Share({"SETNX", config_.key, uuid});
  for (int64_t i = 0; i < config_.tries; ++i) {
    if (i > 0) co_await env.SleepFor(config_.retry_delay);
    Reply r = co_await env.Call(0, setnx);
    if (r.IsInteger(1)) co_return true;
  }
  co_return false;
}

Task<bool> SetnxSimpleLock::Release(Env& env) {
  const std::string& uuid = uuids_[env.ThreadId()];
  const Command get = {"GET", config_.key}, del = {"DEL", config_.key};
  Reply v = co_await env.Call(0, get);
  if (v.type != Reply::Type::kString || v.str != uuid) co_return false;
  // Check, then act: the key may belong to someone else by now (F6).
  Reply r = co_await env.Call(0, del);
  co_return r.IsInteger(1);
}

}  // namespace locksim
