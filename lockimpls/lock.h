// The lock API every variant implements, and the registry of variants.
//
// A Lock object belongs to one client process and is shared by its threads,
// as a Redisson RLock or a Spring RedisLockRegistry is: it is built with the
// process's main-thread Env, and each Acquire / Release is called with the
// Env of the calling thread (its ThreadId is what reentrant variants key
// on). It talks to the world only through Envs, so it runs unchanged on the
// virtual and the real backend. Errors are values: a failed or timed-out
// acquisition is `false`, never an exception.
#ifndef LOCKSIM_LOCKIMPLS_LOCK_H_
#define LOCKSIM_LOCKIMPLS_LOCK_H_

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lockimpls/limiter.h"
#include "sim/core/env.h"
#include "sim/core/task.h"
#include "sim/core/time.h"

namespace locksim {

// Parameters of a lock as a variant runs with them: the scenario's "lock"
// object over the variant's own defaults (the values its source uses).
struct LockConfig {
  std::string key = "lock:resource";
  Nanos ttl = std::chrono::seconds(10);                // the lease
  Nanos retry_delay = std::chrono::milliseconds(100);  // between tries
  Nanos acquire_timeout = std::chrono::seconds(10);    // on the client's clock
  int64_t tries = 0;  // attempts per acquisition; 0: until acquire_timeout
  int64_t limit = 0;  // rate limiters: requests admitted per window (the ttl)
  // Lease renewal by a background thread of the holder's process (a
  // watchdog, a refresh task), for the variants that renew: every
  // renewal_interval, or, when that is 0, every ttl * renewal_num /
  // renewal_den (Redisson: ttl/3; seed 004's own lock: 2/3 of the ttl).
  // renewal_num == 0: the variant does not renew.
  Nanos renewal_interval{0};
  int64_t renewal_num = 0;
  int64_t renewal_den = 1;
  // Multi-node (quorum) variants only, i.e. redlock; shown when `quorum`.
  bool quorum = false;             // the variant uses the two fields below
  int64_t drift_factor_ppm = 0;    // clock drift allowed, per million of ttl
  bool parallel = true;            // SET on all nodes at once, not in turn
  // Each request to a node gives up after this; 0: the variant's own
  // policy (redlock: a hundredth of the ttl, within 5-50 ms).
  Nanos node_timeout{0};
};

// The renewal period `config` gives (0 when the variant does not renew).
Nanos RenewalInterval(const LockConfig& config);

// What a scenario sets; everything else comes from the variant's defaults.
struct LockOverrides {
  std::optional<std::string> key;
  std::optional<Nanos> ttl;
  std::optional<Nanos> retry_delay;
  std::optional<Nanos> acquire_timeout;
  std::optional<int64_t> tries;
  std::optional<int64_t> limit;
  std::optional<Nanos> renewal_interval;
  std::optional<int64_t> drift_factor_ppm;
  std::optional<bool> parallel;
  std::optional<Nanos> node_timeout;
};

LockConfig Resolve(const LockOverrides& overrides, const LockConfig& defaults);
// "ttl=10s retry_delay=100ms acquire_timeout=10s": for `locksim list --verbose`.
std::string DescribeConfig(const LockConfig& config);

class Lock {
 public:
  virtual ~Lock() = default;
  // Tries until acquire_timeout has passed on the client's own clock.
  // Returns true when the calling thread believes it holds the lock.
  virtual Task<bool> Acquire(Env& thread) = 0;
  // Gives the lock back. Returns true when the release removed a lock (by
  // the variant's own account: a plain DEL counts any key it deleted).
  virtual Task<bool> Release(Env& thread) = 0;
  // The fencing token of the calling thread's current lease, for variants
  // that issue one (fenced); the protected resource rejects older tokens.
  virtual std::optional<int64_t> FencingToken(const Env& thread) const { return std::nullopt; }
  // The error the calling thread's last Acquire or Release ended with when
  // the lock code raised instead of answering (a third-party library's
  // exception, docs/adapters.md), and clears it; "" when it answered. The
  // workload records such a step as `info` (outcome unknown), apart from a
  // plain `fail` (timed out, nothing to release). Our own variants never
  // raise: their errors are values.
  virtual std::string TakeError(const Env& thread) { return {}; }
};

// A variant that is not ours: a third-party lock client (a library in
// another language) run as its own OS process, one per client process, and
// driven through the adapter protocol (docs/adapters.md: JSON lines over its
// stdin and stdout). It talks to the real redis-server itself, so it runs on
// --backend real only. Declared by a manifest (lockimpls/adapter_manifest.h).
struct AdapterProgram {
  std::string manifest;  // the file that declares it ("": a bare --adapter program)
  std::string library;   // what it drives: "redis-py" (its hello names the version it found)
  std::string version;   // the version the manifest pins: "4.3.4" ("" if none)
  std::vector<std::string> argv;  // how to start it; argv[0] an absolute path
  std::string script;    // the adapter file itself, which must exist ("" if none)
  std::string install;   // how to get what it needs, for messages
  // Whether the harness passes the build's Node.js modules
  // (<build>/node/node_modules) as NODE_PATH.
  bool node_modules = false;
  // Where the library keeps the lock: this prefix + the scenario's key
  // (redis-semaphore: "mutex:"). The harness watches that key.
  std::string key_prefix;
};

struct AlgorithmInfo {
  std::string_view id;
  std::string_view summary;  // acquire / release in one line
  std::string_view source;   // seed document and section
  std::string_view bug;      // the bug it carries on purpose, if any
  LockConfig defaults;       // the parameters its source uses
  // Builds the process's lock; `process` is its main thread's Env. Null for
  // a rate limiter, which has make_limiter instead.
  std::unique_ptr<Lock> (*make)(Env& process, const LockConfig& config);
  std::unique_ptr<Limiter> (*make_limiter)(Env& process, const LockConfig& config) = nullptr;
  // The finest time the variant expresses: 1 s for the variants that count
  // in whole seconds (EXPIRE, int(time.time())). A real run does not
  // compress their TTL below kMinWholeSecondsTtl, where rounding to the
  // second would change the story.
  Nanos resolution = std::chrono::milliseconds(1);
  // Set (and `make` null) for a third-party client driven through an
  // adapter, declared by a manifest; the runner builds its Lock
  // (sim/real/adapter_lock.h).
  const AdapterProgram* adapter = nullptr;
  bool is_limiter() const { return make_limiter != nullptr; }
  // Runs on --backend real only (a third-party client process).
  bool real_only() const { return adapter != nullptr; }
};

// Every variant, in catalogue order.
const std::vector<AlgorithmInfo>& Algorithms();
// nullptr when `id` names no variant.
const AlgorithmInfo* FindAlgorithm(std::string_view id);
// "set-nx-px, set-nx-px-del": for error messages.
std::string AlgorithmIds();

}  // namespace locksim

#endif  // LOCKSIM_LOCKIMPLS_LOCK_H_
