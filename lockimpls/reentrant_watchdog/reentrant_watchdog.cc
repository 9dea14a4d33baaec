#include "lockimpls/reentrant_watchdog/reentrant_watchdog.h"

#include <algorithm>

namespace locksim {
namespace {

// The watchdog thread: Redisson's renewExpiration() timer task. A free
// function taking its state by value, since tasks are lazy.
Task<void> Watchdog(Env& env, std::shared_ptr<ReentrantWatchdogLock::Renewal> renewal,
                    std::string key, std::string owner, Nanos lease, Nanos interval) {
  const SharedCommand renew =
      Share({"EVAL", std::string(kRedissonRenewScript), "1", key, MillisText(lease), owner});
  for (;;) {
    co_await env.SleepFor(interval);
    if (renewal->cancelled) co_return;
    Reply r = co_await env.Call(0, renew);
    if (renewal->cancelled) co_return;
    if (!r.IsInteger(1)) {
      // Not ours any more, or an error: Redisson stops renewing for good.
      renewal->cancelled = true;
      co_return;
    }
  }
}

}  // namespace

ReentrantWatchdogLock::ReentrantWatchdogLock(Env& process, const LockConfig& config)
    : config_(config), uuid_(process.RandomToken()) {}

std::string ReentrantWatchdogLock::Owner(const Env& thread) const {
  return uuid_ + ":" + std::to_string(thread.ThreadId());
}

Task<bool> ReentrantWatchdogLock::Acquire(Env& env) {
  const SharedCommand eval = Share({"EVAL", std::string(kRedissonLockScript), "1", config_.key,
                                    MillisText(config_.ttl), Owner(env)});
  const Nanos end = env.Now() + config_.acquire_timeout;
  for (int64_t attempt = 1;; ++attempt) {
    Reply r = co_await env.Call(0, eval);
    if (r.IsNil()) {
      ScheduleRenewal(env);
      co_return true;
    }
    if (config_.tries > 0 && attempt >= config_.tries) co_return false;
    const Nanos left = end - env.Now();
    if (left <= Nanos(0)) co_return false;
    co_await env.SleepFor(std::min(config_.retry_delay, left));
  }
}

Task<bool> ReentrantWatchdogLock::Release(Env& env) {
  const Command eval = {"EVAL",
                        std::string(kRedissonUnlockScript),
                        "2",
                        config_.key,
                        "redisson_lock__channel:{" + config_.key + "}",
                        "0",  // LockPubSub.UNLOCK_MESSAGE
                        MillisText(config_.ttl),
                        Owner(env)};
  Reply r = co_await env.Call(0, eval);
  // Redisson cancels the renewal whatever the script said.
  CancelRenewal(env);
  co_return r.IsInteger(0) || r.IsInteger(1);
}

void ReentrantWatchdogLock::ScheduleRenewal(Env& env) {
  if (renewal_ && !renewal_->cancelled) {
    ++renewal_->holds[env.ThreadId()];
    return;
  }
  renewal_ = std::make_shared<Renewal>();
  renewal_->holds[env.ThreadId()] = 1;
  const Nanos interval = RenewalInterval(config_);
  if (interval <= Nanos(0)) return;
  // Free-function body: the lambda captures only values and is not itself
  // a coroutine.
  env.StartThread("watchdog", [renewal = renewal_, key = config_.key, owner = Owner(env),
                               lease = config_.ttl, interval](Env& e) {
    return Watchdog(e, renewal, key, owner, lease, interval);
  });
}

void ReentrantWatchdogLock::CancelRenewal(const Env& env) {
  if (!renewal_) return;
  auto it = renewal_->holds.find(env.ThreadId());
  if (it != renewal_->holds.end() && --it->second <= 0) renewal_->holds.erase(it);
  if (renewal_->holds.empty()) {
    renewal_->cancelled = true;
    renewal_.reset();
  }
}

}  // namespace locksim
