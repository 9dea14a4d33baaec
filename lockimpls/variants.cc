#include <algorithm>

#include "sim/core/errors.h"

#include "lockimpls/adapter_manifest.h"
#include "lockimpls/fenced/fenced.h"
#include "lockimpls/getset_timestamp/getset_timestamp.h"
#include "lockimpls/lock.h"
#include "lockimpls/lua_acquire/lua_acquire.h"
#include "lockimpls/reentrant_watchdog/reentrant_watchdog.h"
#include "lockimpls/refresh_two_thirds/refresh_two_thirds.h"
#include "lockimpls/registry/registry.h"
#include "lockimpls/rate_limit/rate_limit.h"
#include "lockimpls/redlock/redlock.h"
#include "lockimpls/set_nx_px/set_nx_px.h"
#include "lockimpls/set_nx_px_del/set_nx_px_del.h"
#include "lockimpls/setnx_expire/setnx_expire.h"
#include "lockimpls/setnx_expire_del/setnx_expire_del.h"
#include "lockimpls/setnx_simple/setnx_simple.h"
#include "lockimpls/watch_multi/watch_multi.h"

namespace locksim {
namespace {

template <typename T>
std::unique_ptr<Lock> Make(Env& process, const LockConfig& config) {
  return std::make_unique<T>(process, config);
}

template <typename T>
std::unique_ptr<Limiter> MakeLimiter(Env& process, const LockConfig& config) {
  return std::make_unique<T>(process, config);
}


LockConfig Defaults(Nanos ttl, Nanos retry_delay, Nanos acquire_timeout, int64_t tries = 0) {
  LockConfig c;
  c.ttl = ttl;
  c.retry_delay = retry_delay;
  c.acquire_timeout = acquire_timeout;
  c.tries = tries;
  return c;
}

// A variant whose background thread renews the lease every ttl * num / den.
LockConfig Renewing(LockConfig c, int64_t num, int64_t den) {
  c.renewal_num = num;
  c.renewal_den = den;
  return c;
}

// seed 002 §2 gives no numbers; a window of 1 s (EXPIRE takes seconds) and
// 10 requests per window.
LockConfig LimiterDefaults() {
  LockConfig c = Defaults(std::chrono::seconds(1), std::chrono::milliseconds(0),
                          std::chrono::seconds(0));
  c.limit = 10;
  return c;
}

// redlock-rb's defaults: 3 retries (4 tries), a random delay of up to
// 200 ms between them, drift_factor 0.01, and the nodes locked in parallel
// (seed 003 II). The TTL is the caller's in redlock-rb; 10s as elsewhere.
LockConfig RedlockDefaults() {
  LockConfig c = Defaults(std::chrono::seconds(10), std::chrono::milliseconds(200),
                          std::chrono::seconds(10), 4);
  c.quorum = true;
  c.drift_factor_ppm = 10000;
  c.parallel = true;
  return c;
}

using std::chrono::milliseconds;
using std::chrono::seconds;

}  // namespace

namespace {

// Our own variants, in catalogue order: the locks, then the limiters.
// Defaults are the values the source documents use.
std::vector<AlgorithmInfo> BuiltIn() {
  return {
      {"setnx-expire",
       "SETNX key uuid, then EXPIRE key (int)(timeout/1000); TTL repair; release by WATCH/GET/MULTI/DEL",
       "seed 000 (Redis in Action ch. 6, Jedis)",
       "a timeout under 1000 ms becomes EXPIRE 0 and deletes the lock at once (F12); "
       "a crash between SETNX and EXPIRE leaves a key without TTL (F3)",
       Defaults(seconds(10), milliseconds(1), seconds(10)), &Make<SetnxExpireLock>, nullptr,
       seconds(1)},
      {"setnx-expire-del", "as setnx-expire, released by a plain DEL",
       "seed 000 (the 2:15 -> 2:21 timeline)",
       "DEL without the identifier check frees another client's lock (F2)",
       Defaults(seconds(10), milliseconds(1), seconds(10)), &Make<SetnxExpireDelLock>, nullptr,
       seconds(1)},
      {"setnx-simple", "SETNX key uuid up to try_num times; release by GET == uuid then DEL",
       "seed 002 §1.1",
       "no TTL: a dead holder blocks everyone for ever (F3); check-then-DEL release (F6)",
       Defaults(seconds(10), milliseconds(100), seconds(10), 10), &Make<SetnxSimpleLock>},
      {"getset-timestamp",
       "SETNX key <now+timeout+1>; if expired by the client's clock, GETSET; release: if "
       "not expired, DEL",
       "seed 001 (Python, whole seconds), seed 002 §1.2",
       "no owner, no Redis TTL: client clock skew takes live locks (F4), GETSET overwrites "
       "the winner's expiry (F5), check-then-DEL release (F6)",
       Defaults(seconds(3), milliseconds(1), seconds(10)), &Make<GetsetTimestampLock>, nullptr,
       seconds(1)},
      {"watch-multi", "WATCH; GET; if empty MULTI, SET key uuid PX ttl, EXEC; nil EXEC retries",
       "seed 000 (WATCH/MULTI/EXEC as an optimistic lock)",
       "retries grow with contention (F11); a paused holder outlives its lease (F1)",
       Defaults(seconds(10), milliseconds(1), seconds(10)), &Make<WatchMultiLock>},
      {"set-nx-px", "SET key token NX PX ttl; release by Lua compare-and-delete",
       "seed 002 §1.3, seed 003 I",
       "none in the code; the lease runs out under a paused holder (F1, F10)",
       Defaults(seconds(10), milliseconds(100), seconds(10)), &Make<SetNxPxLock>},
      {"set-nx-px-del", "SET key token NX PX ttl; release by plain DEL",
       "seed 002 §1.3 (A/B/C story), seed 000 (2:15 -> 2:21)",
       "DEL without an owner check frees another client's lock (F2)",
       Defaults(seconds(10), milliseconds(100), seconds(10)), &Make<SetNxPxDelLock>},
      {"lua-acquire", "one EVAL: SETNX + PEXPIRE; up to try_num tries; release by Lua "
       "compare-and-delete",
       "seed 002 §1.3 (the Lua acquire)",
       "as set-nx-px, by the document's own account: a paused holder outlives its lease (F1)",
       Defaults(seconds(10), milliseconds(100), seconds(10), 10), &Make<LuaAcquireLock>},
      {"reentrant-watchdog",
       "Redisson RLock: Lua HINCRBY uuid:thread in a hash + PEXPIRE, else PTTL; watchdog "
       "renews every lease/3; release HINCRBY -1, at 0 DEL + PUBLISH",
       "seed 004 (Redisson)",
       "the watchdog is a thread of the paused process: a pause longer than the lease still "
       "loses the lock (F1)",
       Renewing(Defaults(seconds(30), milliseconds(100), seconds(10)), 1, 3),
       &Make<ReentrantWatchdogLock>},
      {"registry",
       "Spring RedisLockRegistry: local ReentrantLock, then OBTAIN_LOCK_SCRIPT (GET == "
       "clientId ? PEXPIRE : SET PX) every 100 ms; release: last hold GET == clientId, UNLINK",
       "seed 004 (RedisLockRegistry)",
       "no renewal: a critical section or pause longer than the expiry loses the lock (F1); "
       "the clientId is per process, not per thread",
       Defaults(seconds(60), milliseconds(100), seconds(10)), &Make<RegistryLock>},
      {"refresh-two-thirds",
       "local reentrant lock + Lua SET NX PX uuid:thread (or re-entry); a refresh thread "
       "re-extends every 2/3 of the lease; release: last hold cancels it, compare-and-delete",
       "seed 004 (the hand-built lock)",
       "the refresh thread stops with the paused process: a pause longer than the lease loses "
       "the lock (F1)",
       Renewing(Defaults(seconds(10), milliseconds(100), seconds(10)), 2, 3),
       &Make<RefreshTwoThirdsLock>},
      {"fenced", "set-nx-px plus INCR fence:<key>: a fencing token travels with every write",
       "beyond the seeds: Kleppmann's fencing tokens (seed 003's debate)",
       "none meant: overlap still happens under F1, but stale writes are rejected",
       Defaults(seconds(10), milliseconds(100), seconds(10)), &Make<FencedLock>},
      {"redlock",
       "SET key token NX PX ttl on N masters (parallel or in turn); held iff a majority and "
       "validity = ttl - elapsed - drift > 0; else and on release Lua compare-and-delete on all",
       "seed 003 II, redis.io distlock, redlock-rb",
       "safety rests on clocks and memory: a node restarting without persistence (F8) or "
       "whose clock jumps (F9) lets a second majority form; a pause after the validity "
       "check (F10) still yields two owners",
       RedlockDefaults(), &Make<RedlockLock>},
      {"rate-limit-lua",
       "access limiter: one EVAL of INCR + (first request) EXPIRE window; refuse above limit",
       "seed 002 §2 (IP访问次数限制)",
       "EXPIRE takes whole seconds: a window under 1 s becomes EXPIRE 0 and admits everything",
       LimiterDefaults(), nullptr, &MakeLimiter<RateLimitLua>, seconds(1)},
      {"rate-limit-naive", "access limiter: INCR, then EXPIRE as a separate command",
       "seed 002 §2, without its script",
       "a crash between INCR and EXPIRE leaves the counter without TTL: refused for ever (F15); "
       "and EXPIRE 0 for a window under 1 s",
       LimiterDefaults(), nullptr, &MakeLimiter<RateLimitNaive>, seconds(1)},
  };
}

// The catalogue: our locks, the bundled adapter manifests (by id), the
// limiters. Read once; a bad manifest is bad input (InputError) wherever the
// catalogue is first needed.
std::vector<AlgorithmInfo> Catalogue(const std::vector<std::unique_ptr<AdapterVariant>>& adapters) {
  std::vector<AlgorithmInfo> all;
  const std::vector<AlgorithmInfo> ours = BuiltIn();
  for (const AlgorithmInfo& a : ours) {
    if (!a.is_limiter()) all.push_back(a);
  }
  for (const auto& v : adapters) {
    for (const AlgorithmInfo& a : ours) {
      if (a.id == v->id) {
        throw InputError(v->program.manifest + ": $.id: \"" + v->id +
                         "\" is one of locksim's own variants");
      }
    }
    all.push_back(v->info);
  }
  for (const AlgorithmInfo& a : ours) {
    if (a.is_limiter()) all.push_back(a);
  }
  return all;
}

}  // namespace

const std::vector<AlgorithmInfo>& Algorithms() {
  static const std::vector<std::unique_ptr<AdapterVariant>> kAdapters = LoadBundledAdapters();
  static const std::vector<AlgorithmInfo> kAlgorithms = Catalogue(kAdapters);
  return kAlgorithms;
}

LockConfig Resolve(const LockOverrides& o, const LockConfig& defaults) {
  LockConfig c = defaults;
  if (o.key) c.key = *o.key;
  if (o.ttl) c.ttl = *o.ttl;
  if (o.retry_delay) c.retry_delay = *o.retry_delay;
  if (o.acquire_timeout) c.acquire_timeout = *o.acquire_timeout;
  if (o.tries) c.tries = *o.tries;
  if (o.limit) c.limit = *o.limit;
  if (o.renewal_interval) c.renewal_interval = *o.renewal_interval;
  if (o.drift_factor_ppm) c.drift_factor_ppm = *o.drift_factor_ppm;
  if (o.parallel) c.parallel = *o.parallel;
  if (o.node_timeout) c.node_timeout = *o.node_timeout;
  return c;
}

Nanos RenewalInterval(const LockConfig& c) {
  if (c.renewal_num == 0) return Nanos(0);
  if (c.renewal_interval.count() > 0) return c.renewal_interval;
  const __int128 scaled = static_cast<__int128>(c.ttl.count()) * c.renewal_num / c.renewal_den;
  return std::max(Nanos(static_cast<int64_t>(scaled)), Nanos(std::chrono::milliseconds(1)));
}

std::string DescribeConfig(const LockConfig& c) {
  std::string s = "ttl=" + FormatDuration(c.ttl) + " retry_delay=" + FormatDuration(c.retry_delay) +
                  " acquire_timeout=" + FormatDuration(c.acquire_timeout);
  if (c.tries > 0) s += " tries=" + std::to_string(c.tries);
  if (c.limit > 0) s = "window(ttl)=" + FormatDuration(c.ttl) + " limit=" + std::to_string(c.limit);
  if (c.renewal_num > 0) {
    s += " renewal_interval=";
    s += c.renewal_interval.count() > 0
             ? FormatDuration(c.renewal_interval)
             : "ttl*" + std::to_string(c.renewal_num) + "/" + std::to_string(c.renewal_den) +
                   "=" + FormatDuration(RenewalInterval(c));
  }
  if (c.quorum) {
    s += " drift_factor_ppm=" + std::to_string(c.drift_factor_ppm) +
         " parallel=" + (c.parallel ? "true" : "false") +
         " node_timeout=" + FormatDuration(RedlockLock::NodeTimeout(c));
  }
  return s;
}

const AlgorithmInfo* FindAlgorithm(std::string_view id) {
  for (const AlgorithmInfo& a : Algorithms()) {
    if (a.id == id) return &a;
  }
  return nullptr;
}

std::string AlgorithmIds() {
  std::string out;
  for (const AlgorithmInfo& a : Algorithms()) {
    if (!out.empty()) out += ", ";
    out += a.id;
  }
  return out;
}

}  // namespace locksim
