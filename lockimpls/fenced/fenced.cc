#include "lockimpls/fenced/fenced.h"

namespace locksim {

Task<bool> FencedLock::Acquire(Env& env) {
  if (!co_await SetNxPxLock::Acquire(env)) co_return false;
  Command incr = {"INCR", "fence:" + config_.key};
  Reply token = co_await env.Call(0, std::move(incr));
  if (token.type != Reply::Type::kInteger) co_return false;
  fencing_tokens_[env.ThreadId()] = token.integer;
  co_return true;
}

std::optional<int64_t> FencedLock::FencingToken(const Env& env) const {
  auto it = fencing_tokens_.find(env.ThreadId());
  if (it == fencing_tokens_.end()) return std::nullopt;
  return it->second;
}

}  // namespace locksim
