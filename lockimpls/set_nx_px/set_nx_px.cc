#include "lockimpls/set_nx_px/set_nx_px.h"

namespace locksim {

Task<bool> SetNxPxLock::Acquire(Env& env) {
  const std::string token = env.RandomToken();
  tokens_[env.ThreadId()] = token;
  const std::string ttl_ms =
      std::to_string(duration_cast<Millis>(config_.ttl).count());
  const Nanos end = env.Now() + config_.acquire_timeout;
  // Commands are built as named locals: g++ 12 miscompiles braced lists
  // of strings inside a co_await expression ("array used as initializer").
  // Built once and shared: every retry sends it as it is.
  const SharedCommand set = Share({"SET", config_.key, token, "NX", "PX", ttl_ms});
  for (;;) {
    Reply r = co_await env.Call(0, set);
    if (r.IsOk()) co_return true;
    if (env.Now() >= end) co_return false;
    co_await env.SleepFor(config_.retry_delay);
  }
}

Command CompareAndDeleteCommand(const std::string& key, const std::string& token) {
  // Built in place: a braced list would copy each string a second time
  // (its elements are const), the 100-byte script included.
  Command cmd;
  cmd.reserve(5);
  cmd.emplace_back("EVAL");
  cmd.emplace_back(kCompareAndDeleteScript);
  cmd.emplace_back("1");
  cmd.push_back(key);
  cmd.push_back(token);
  return cmd;
}

Task<bool> CompareAndDelete(Env& env, int node, const std::string& key, const std::string& token) {
  Command eval = CompareAndDeleteCommand(key, token);
  Reply r = co_await env.Call(node, std::move(eval));
  co_return r.IsInteger(1);
}

Task<bool> SetNxPxLock::Release(Env& env) {
  co_return co_await CompareAndDelete(env, 0, config_.key, tokens_[env.ThreadId()]);
}

}  // namespace locksim
