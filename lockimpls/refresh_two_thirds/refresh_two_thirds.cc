#include "lockimpls/refresh_two_thirds/refresh_two_thirds.h"

#include <algorithm>

#include "lockimpls/set_nx_px/set_nx_px.h"

namespace locksim {
namespace {

// The scheduled refresh task, at a fixed rate until cancelled; a refresh
// that finds the key gone or someone else's does nothing and the task goes
// on (a ScheduledFuture is only stopped by cancel()).
Task<void> Refresh(Env& env, std::shared_ptr<bool> cancelled, std::string key,
                   std::string identity, Nanos lease, Nanos interval) {
  const SharedCommand refresh =
      Share({"EVAL", std::string(kRefreshScript), "1", key, identity, MillisText(lease)});
  for (;;) {
    co_await env.SleepFor(interval);
    if (*cancelled) co_return;
    co_await env.Call(0, refresh);
  }
}

}  // namespace

Task<bool> RefreshTwoThirdsLock::Acquire(Env& env) {
  const Nanos end = env.Now() + config_.acquire_timeout;
  const bool local = co_await local_.TryLock(env, config_.acquire_timeout);
  if (!local) co_return false;
  const SharedCommand eval = Share({"EVAL", std::string(kRefreshAcquireScript), "1",
                                    config_.key, Identity(env), MillisText(config_.ttl)});
  for (int64_t attempt = 1;; ++attempt) {
    Reply r = co_await env.Call(0, eval);
    if (r.IsInteger(1)) {
      // First acquisition by this thread: register the refresh task.
      const Nanos interval = RenewalInterval(config_);
      if (local_.HoldCount() == 1 && interval > Nanos(0)) {
        if (refresh_cancelled_) *refresh_cancelled_ = true;
        refresh_cancelled_ = std::make_shared<bool>(false);
        env.StartThread("refresh", [cancelled = refresh_cancelled_, key = config_.key,
                                    identity = Identity(env), lease = config_.ttl,
                                    interval](Env& e) {
          return Refresh(e, cancelled, key, identity, lease, interval);
        });
      }
      co_return true;
    }
    const Nanos left = end - env.Now();
    if (left <= Nanos(0) || (config_.tries > 0 && attempt >= config_.tries)) break;
    co_await env.SleepFor(std::min(config_.retry_delay, left));
  }
  local_.Unlock();
  co_return false;
}

Task<bool> RefreshTwoThirdsLock::Release(Env& env) {
  if (!local_.IsHeldBy(env)) co_return false;
  if (local_.HoldCount() > 1) {
    local_.Unlock();
    co_return true;
  }
  if (refresh_cancelled_) {
    *refresh_cancelled_ = true;
    refresh_cancelled_.reset();
  }
  const bool deleted = co_await CompareAndDelete(env, 0, config_.key, Identity(env));
  local_.Unlock();
  co_return deleted;
}

}  // namespace locksim
