#include "lockimpls/getset_timestamp/getset_timestamp.h"

#include <charconv>

namespace locksim {
namespace {

int64_t UnixSeconds(const Env& env) {
  return duration_cast<std::chrono::seconds>(env.Now()).count();  // int(time.time())
}

// Long.parseLong(value) of a reply (seed 001's Java; int() in seed 002's
// Python): false when it is not a whole decimal number. The values are
// stamps this lock's clients wrote, plain digits.
bool AsInt(const Reply& r, int64_t* out) {
  if (r.type != Reply::Type::kString || r.str.empty()) return false;
  const char* end = r.str.data() + r.str.size();
  auto [p, ec] = std::from_chars(r.str.data(), end, *out);
  return ec == std::errc() && p == end;
}

}  // namespace

Task<bool> GetsetTimestampLock::Acquire(Env& env) {
  const int64_t lock_seconds = duration_cast<std::chrono::seconds>(config_.ttl).count();
  const Nanos end = env.Now() + config_.acquire_timeout;
  for (;;) {
    const int64_t now = UnixSeconds(env);
    const int64_t lock_timeout = now + lock_seconds + 1;
    const std::string stamp = std::to_string(lock_timeout);
    Command setnx = {"SETNX", config_.key, stamp};
    Reply lock = co_await env.Call(0, std::move(setnx));
    bool acquired = lock.IsInteger(1);
    if (!acquired) {
      Command get = {"GET", config_.key};
      int64_t current;
      if (AsInt(co_await env.Call(0, std::move(get)), &current) && now > current) {
        Command getset = {"GETSET", config_.key, stamp};
        int64_t old;
        acquired = AsInt(co_await env.Call(0, std::move(getset)), &old) && now > old;
      }
    }
    if (acquired) {
      lock_timeouts_[env.ThreadId()] = lock_timeout;
      co_return true;
    }
    if (env.Now() >= end) co_return false;
    co_await env.SleepFor(config_.retry_delay);
  }
}

Task<bool> GetsetTimestampLock::Release(Env& env) {
  // Check the time, then delete: two steps with nothing tying them (F6).
  if (UnixSeconds(env) >= lock_timeouts_[env.ThreadId()]) co_return false;
  Command del = {"DEL", config_.key};
  Reply r = co_await env.Call(0, std::move(del));
  co_return r.IsInteger(1);
}

}  // namespace locksim
