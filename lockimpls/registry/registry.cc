#include "lockimpls/registry/registry.h"

#include <algorithm>

namespace locksim {

Task<bool> RegistryLock::Acquire(Env& env) {
  // tryLock(time): the deadline covers the local lock and the Redis spin.
  const Nanos end = env.Now() + config_.acquire_timeout;
  const bool local = co_await local_.TryLock(env, config_.acquire_timeout);
  if (!local) co_return false;
  const std::string expiry =
      std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(config_.ttl).count());
  const SharedCommand obtain =
      Share({"EVAL", std::string(kObtainLockScript), "1", config_.key, client_id_, expiry});
  for (int64_t attempt = 1;; ++attempt) {
    Reply r = co_await env.Call(0, obtain);
    if (r.IsInteger(1)) co_return true;
    const Nanos left = end - env.Now();
    if (left <= Nanos(0) || (config_.tries > 0 && attempt >= config_.tries)) break;
    co_await env.SleepFor(std::min(config_.retry_delay, left));
  }
  local_.Unlock();
  co_return false;
}

Task<bool> RegistryLock::Release(Env& env) {
  if (!local_.IsHeldBy(env)) co_return false;  // "You do not own lock at ..."
  if (local_.HoldCount() > 1) {
    local_.Unlock();
    co_return true;
  }
  const Command get = {"GET", config_.key};
  Reply r = co_await env.Call(0, get);
  bool ok = false;
  if (r.type == Reply::Type::kString && r.str == client_id_) {
    const Command unlink = {"UNLINK", config_.key};
    Reply d = co_await env.Call(0, unlink);
    ok = !d.IsError();
  }
  local_.Unlock();
  co_return ok;
}

}  // namespace locksim
