#include "lockimpls/rate_limit/rate_limit.h"

namespace locksim {
namespace {

std::string WindowSeconds(const LockConfig& c) {
  return std::to_string(duration_cast<std::chrono::seconds>(c.ttl).count());  // limit_time
}

}  // namespace

Task<Admission> RateLimitLua::Admit(Env& env) {
  Command eval = {"EVAL", std::string(kRateLimitScript), "1", config_.key, WindowSeconds(config_),
                  std::to_string(config_.limit)};
  Reply r = co_await env.Call(0, std::move(eval));
  Admission a;
  if (r.type == Reply::Type::kArray && r.elements.size() == 2) {
    a.admitted = r.elements[0].IsInteger(1);
    a.count = r.elements[1].integer;
  }
  co_return a;
}

Task<Admission> RateLimitNaive::Admit(Env& env) {
  Command incr = {"INCR", config_.key};
  Reply r = co_await env.Call(0, std::move(incr));
  Admission a;
  if (r.type != Reply::Type::kInteger) co_return a;
  a.count = r.integer;
  if (a.count == 1) {
    // A separate command: a crash right here leaves the counter without TTL.
    Command expire = {"EXPIRE", config_.key, WindowSeconds(config_)};
    co_await env.Call(0, std::move(expire));
  }
  a.admitted = a.count <= config_.limit;
  co_return a;
}

}  // namespace locksim
