#include "lockimpls/watch_multi/watch_multi.h"

#include "lockimpls/setnx_expire/setnx_expire.h"

namespace locksim {

Task<bool> WatchMultiLock::Acquire(Env& env) {
  const std::string uuid = env.RandomToken();
  uuids_[env.ThreadId()] = uuid;
  const std::string ttl_ms = std::to_string(duration_cast<Millis>(config_.ttl).count());
  const Command watch = {"WATCH", config_.key}, get = {"GET", config_.key},
                set = {"SET", config_.key, uuid, "PX", ttl_ms}, unwatch = {"UNWATCH"};
  const Nanos end = env.Now() + config_.acquire_timeout;
  while (env.Now() < end) {
    // A step answered otherwise than it must be (an error: the connection
    // was lost or timed out) ends the try, as the exception Jedis throws
    // ends seed 000's loop, and the next try starts over with a WATCH after
    // the retry delay. Carrying on would send the next command on a new
    // connection, without the WATCH or the MULTI: the SET would overwrite
    // at once, which no client of the seed's code does.
    if ((co_await env.Call(0, watch)).IsOk()) {
      Reply v = co_await env.Call(0, get);
      if (v.IsNil()) {
        const Reply results = co_await InMulti(env, set);
        if (results.IsNil()) {
          ++exec_retries_;  // the transaction was interrupted: "再做一遍"
          continue;
        }
        if (!results.IsError()) co_return true;
      } else if (!v.IsError()) {
        co_await env.Call(0, unwatch);  // held by someone
      }
    }
    co_await env.SleepFor(config_.retry_delay);
  }
  co_return false;
}

Task<bool> WatchMultiLock::Release(Env& env) {
  co_return co_await WatchedRelease(env, config_.key, uuids_[env.ThreadId()]);
}

}  // namespace locksim
