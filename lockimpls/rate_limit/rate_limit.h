// rate-limit-lua and rate-limit-naive: seed 002 §2's access limiter.
//
// Source: seed 002 §2 ("IP防问次数限制": ip, limit_time, limit_count), which
// makes the check one Lua script because its Redis (JD's r2m) has no
// transactions. A request INCRs the window's counter; the first request of a
// window sets EXPIRE limit_time (whole seconds); a count above the limit is
// refused. The key is the scenario's lock key (one IP), limit_time the ttl
// and limit_count `limit`.
//   rate-limit-lua:   INCR and EXPIRE in one EVAL: atomic.
//   rate-limit-naive: INCR, then EXPIRE, as two commands.
//
// The bugs they carry: both give EXPIRE whole seconds, so a window under one
// second becomes EXPIRE 0, which deletes the counter at once and admits
// every request; the naive one also leaves the counter without a TTL if the
// client dies between INCR and EXPIRE, after which the key never expires and
// every request is refused for ever (F15).
#ifndef LOCKSIM_LOCKIMPLS_RATE_LIMIT_RATE_LIMIT_H_
#define LOCKSIM_LOCKIMPLS_RATE_LIMIT_RATE_LIMIT_H_

#include <string>

#include "lockimpls/limiter.h"
#include "lockimpls/lock.h"

namespace locksim {

inline constexpr std::string_view kRateLimitScript =
    "local count = redis.call('incr', KEYS[1])\n"
    "if count == 1 then\n"
    "    redis.call('expire', KEYS[1], ARGV[1])\n"
    "end\n"
    "if count > tonumber(ARGV[2]) then\n"
    "    return {0, count}\n"
    "end\n"
    "return {1, count}";

class RateLimitLua : public Limiter {
 public:
  RateLimitLua(Env& process, const LockConfig& config) : config_(config) {}
  Task<Admission> Admit(Env& thread) override;

 private:
  LockConfig config_;
};

class RateLimitNaive : public Limiter {
 public:
  RateLimitNaive(Env& process, const LockConfig& config) : config_(config) {}
  Task<Admission> Admit(Env& thread) override;

 private:
  LockConfig config_;
};

}  // namespace locksim

#endif  // LOCKSIM_LOCKIMPLS_RATE_LIMIT_RATE_LIMIT_H_
