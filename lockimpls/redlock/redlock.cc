#include "lockimpls/redlock/redlock.h"

#include <algorithm>
#include <vector>

#include "lockimpls/set_nx_px/set_nx_px.h"
#include "sim/core/when_all.h"

namespace locksim {
namespace {

// Sends `cmd` to every node, all at once or one after another, and returns
// the replies in node order. Commands are named locals throughout: g++ 12
// miscompiles braced lists inside a co_await expression.
// Each request gives up after `timeout`: a node that does not answer counts
// as one that refused.
Task<std::vector<Reply>> CallAll(Env& env, Command cmd, bool parallel, Nanos timeout) {
  const int n = env.NodeCount();
  std::vector<Reply> replies;
  if (parallel) {
    std::vector<Task<Reply>> calls;
    for (int node = 0; node < n; ++node) {
      calls.push_back(env.Call(node, env.CopyToSend(cmd), timeout));
    }
    replies = co_await WhenAll(std::move(calls));
  } else {
    for (int node = 0; node < n; ++node) {
      replies.push_back(co_await env.Call(node, env.CopyToSend(cmd), timeout));
    }
  }
  co_return replies;
}

// The compare-and-delete script on every node; returns how many deleted.
Task<int> UnlockAll(Env& env, const LockConfig& config, const std::string& token) {
  std::vector<Reply> replies =
      co_await CallAll(env, CompareAndDeleteCommand(config.key, token), config.parallel,
                       RedlockLock::NodeTimeout(config));
  int deleted = 0;
  for (const Reply& r : replies) deleted += r.IsInteger(1) ? 1 : 0;
  co_return deleted;
}

}  // namespace

Nanos RedlockLock::Drift(const LockConfig& config) {
  return Nanos(static_cast<int64_t>(static_cast<__int128>(config.ttl.count()) *
                                    config.drift_factor_ppm / 1000000)) +
         std::chrono::milliseconds(2);
}

Nanos RedlockLock::NodeTimeout(const LockConfig& config) {
  if (config.node_timeout.count() > 0) return config.node_timeout;
  return std::clamp<Nanos>(config.ttl / 100, std::chrono::milliseconds(5),
                           std::chrono::milliseconds(50));
}

Task<bool> RedlockLock::Acquire(Env& env) {
  const int quorum = env.NodeCount() / 2 + 1;
  const std::string token = env.RandomToken();
  tokens_[env.ThreadId()] = token;
  const std::string ttl_ms = std::to_string(duration_cast<Millis>(config_.ttl).count());
  const Nanos drift = Drift(config_);
  const Nanos end = env.Now() + config_.acquire_timeout;
  const Command set = {"SET", config_.key, token, "NX", "PX", ttl_ms};
  for (int64_t attempt = 1;; ++attempt) {
    const Nanos start = env.Now();
    std::vector<Reply> replies = co_await CallAll(env, set, config_.parallel, NodeTimeout(config_));
    int locked = 0;
    for (const Reply& r : replies) locked += r.IsOk() ? 1 : 0;
    const Nanos validity = config_.ttl - (env.Now() - start) - drift;
    if (locked >= quorum && validity > Nanos(0)) co_return true;
    // Undo what this try took, on every node: some SETs may have succeeded.
    co_await UnlockAll(env, config_, token);
    if ((config_.tries > 0 && attempt >= config_.tries) || env.Now() >= end) co_return false;
    const int64_t max_delay = config_.retry_delay.count();
    const Nanos delay(max_delay > 0 ? static_cast<int64_t>(env.Random() % max_delay) : 0);
    co_await env.SleepFor(delay);
  }
}

Task<bool> RedlockLock::Release(Env& env) {
  const int deleted = co_await UnlockAll(env, config_, tokens_[env.ThreadId()]);
  // Released by its own account iff a majority still held its token.
  co_return deleted >= env.NodeCount() / 2 + 1;
}

}  // namespace locksim
