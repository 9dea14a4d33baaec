#include "lockimpls/watch_multi/watch_multi.h"

#include "lockimpls/setnx_expire/setnx_expire.h"

namespace locksim {

Task<bool> WatchMultiLock::Acquire(Env& env) {
  const std::string uuid = env.RandomToken();
  uuids_[env.ThreadId()] = uuid;
  const std::string ttl_ms = std::to_string(duration_cast<Millis>(config_.ttl).count());
  const Command watch = {"WATCH", config_.key}, get = {"GET", config_.key}, multi = {"MULTI"},
                set = {"SET", config_.key, uuid, "PX", ttl_ms}, exec = {"EXEC"},
                unwatch = {"UNWATCH"};
  const Nanos end = env.Now() + config_.acquire_timeout;
  while (env.Now() < end) {
    co_await env.Call(0, watch);
    Reply v = co_await env.Call(0, get);
    if (v.IsNil()) {
      co_await env.Call(0, multi);
      co_await env.Call(0, set);
      Reply results = co_await env.Call(0, exec);
      if (!results.IsNil() && !results.IsError()) co_return true;
      ++exec_retries_;  // the transaction was interrupted: "再做一遍"
      continue;
    }
    co_await env.Call(0, unwatch);
    co_await env.SleepFor(config_.retry_delay);
  }
  co_return false;
}

Task<bool> WatchMultiLock::Release(Env& env) {
  co_return co_await WatchedRelease(env, config_.key, uuids_[env.ThreadId()]);
}

}  // namespace locksim
