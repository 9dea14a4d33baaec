// The lock API every variant implements, and the registry of variants.
//
// A Lock object belongs to one client (it remembers that client's owner
// token between Acquire and Release) and talks to the world only through the
// Env it was built with, so it runs unchanged on the virtual and the real
// backend. Errors are values: a failed or timed-out acquisition is `false`,
// never an exception.
#ifndef LOCKSIM_LOCKIMPLS_LOCK_H_
#define LOCKSIM_LOCKIMPLS_LOCK_H_

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "sim/env.h"
#include "sim/task.h"
#include "sim/time.h"

namespace locksim {

// Parameters of a lock, from the scenario's "lock" object.
struct LockConfig {
  std::string key = "lock:resource";
  Nanos ttl = std::chrono::seconds(10);             // the lease
  Nanos retry_delay = std::chrono::milliseconds(100);  // between tries
  Nanos acquire_timeout = std::chrono::seconds(10);  // on the client's clock
};

class Lock {
 public:
  virtual ~Lock() = default;
  // Tries until acquire_timeout has passed on the client's own clock.
  // Returns true when this client believes it holds the lock.
  virtual Task<bool> Acquire() = 0;
  // Gives the lock back. Returns true when the release removed a lock (by
  // the variant's own account: a plain DEL counts any key it deleted).
  virtual Task<bool> Release() = 0;
};

struct AlgorithmInfo {
  std::string_view id;
  std::string_view summary;  // acquire / release in one line
  std::string_view source;   // seed document and section
  std::string_view bug;      // the bug it carries on purpose, if any
  std::unique_ptr<Lock> (*make)(Env& env, const LockConfig& config);
};

// Every variant, in catalogue order.
std::span<const AlgorithmInfo> Algorithms();
// nullptr when `id` names no variant.
const AlgorithmInfo* FindAlgorithm(std::string_view id);
// "set-nx-px, set-nx-px-del": for error messages.
std::string AlgorithmIds();

}  // namespace locksim

#endif  // LOCKSIM_LOCKIMPLS_LOCK_H_
