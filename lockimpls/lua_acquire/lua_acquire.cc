#include "lockimpls/lua_acquire/lua_acquire.h"

#include "lockimpls/set_nx_px/set_nx_px.h"

namespace locksim {

Task<bool> LuaAcquireLock::Acquire(Env& env) {
  const std::string value = env.RandomToken();
  values_[env.ThreadId()] = value;
  const SharedCommand eval =
      Share({"EVAL", std::string(kLuaAcquireScript), "1", config_.key, value,
             std::to_string(duration_cast<Millis>(config_.ttl).count())});
  for (int64_t i = 0; i < config_.tries; ++i) {
    if (i > 0) co_await env.SleepFor(config_.retry_delay);
    Reply r = co_await env.Call(0, eval);
    if (r.IsInteger(1)) co_return true;
  }
  co_return false;
}

Task<bool> LuaAcquireLock::Release(Env& env) {
  co_return co_await CompareAndDelete(env, 0, config_.key, values_[env.ThreadId()]);
}

}  // namespace locksim
