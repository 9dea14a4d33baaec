#include "lockimpls/setnx_expire/setnx_expire.h"

namespace locksim {

Task<bool> SetnxExpireLock::Acquire(Env& env) {
  const std::string identifier = env.RandomToken();
  identifiers_[env.ThreadId()] = identifier;
  // int lockExpire = (int)(lockTimeout / 1000);  -- seconds, rounded down.
  const std::string lock_expire =
      std::to_string(duration_cast<Millis>(config_.ttl).count() / 1000);
  const Nanos end = env.Now() + config_.acquire_timeout;
  const Command setnx = {"SETNX", config_.key, identifier};
  const Command expire = {"EXPIRE", config_.key, lock_expire};
  const Command ttl = {"TTL", config_.key};
  while (env.Now() < end) {
    Reply r = co_await env.Call(0, setnx);
    if (r.IsInteger(1)) {
      co_await env.Call(0, expire);
      co_return true;
    }
    Reply t = co_await env.Call(0, ttl);
    if (t.IsInteger(-1)) co_await env.Call(0, expire);
    co_await env.SleepFor(config_.retry_delay);
  }
  co_return false;
}

Task<Reply> InMulti(Env& env, const Command& cmd) {
  const Command multi = {"MULTI"}, exec = {"EXEC"}, discard = {"DISCARD"};
  if (!(co_await env.Call(0, multi)).IsOk()) co_return Reply::Error("ERR MULTI failed");
  const Reply queued = co_await env.Call(0, cmd);
  if (queued.type == Reply::Type::kStatus && queued.str == "QUEUED") co_return co_await env.Call(0, exec);
  // Refused (a READONLY node) or lost: the transaction must not stay open
  // on a live connection, where every later WATCH and MULTI is refused.
  co_await env.Call(0, discard);
  co_return Reply::Error("ERR " + cmd[0] + " was not queued");
}

Task<bool> WatchedRelease(Env& env, const std::string& key, const std::string& identifier) {
  const Command watch = {"WATCH", key}, get = {"GET", key}, del = {"DEL", key},
                unwatch = {"UNWATCH"};
  for (;;) {
    // A step answered otherwise than it must be (an error: the connection
    // was lost or timed out, and the next command would go out on a new
    // one, without the WATCH or the MULTI) ends the release, as the
    // exception Jedis throws ends seed 000's releaseLock().
    if (!(co_await env.Call(0, watch)).IsOk()) co_return false;
    Reply v = co_await env.Call(0, get);
    if (v.IsError()) co_return false;
    if (v.type == Reply::Type::kString && v.str == identifier) {
      Reply results = co_await InMulti(env, del);
      if (results.IsNil()) continue;  // the key changed under the WATCH: retry
      co_return !results.IsError();
    }
    co_await env.Call(0, unwatch);
    co_return false;
  }
}

Task<bool> SetnxExpireLock::Release(Env& env) {
  co_return co_await WatchedRelease(env, config_.key, identifiers_[env.ThreadId()]);
}

}  // namespace locksim
