// The access limiter of seed 002 §2 ("IP防问次数限制"): not a lock, but built
// from the same Redis primitives and broken by the same faults, so it lives
// beside the lock variants. A Limiter belongs to one client process; Admit
// is called with the calling thread's Env.
#ifndef LOCKSIM_LOCKIMPLS_LIMITER_H_
#define LOCKSIM_LOCKIMPLS_LIMITER_H_

#include <cstdint>

#include "sim/core/env.h"
#include "sim/core/task.h"

namespace locksim {

struct Admission {
  bool admitted = false;
  int64_t count = 0;  // the window's counter after this request (INCR's reply)
};

class Limiter {
 public:
  virtual ~Limiter() = default;
  // One request: admitted while the window's count is within the limit.
  virtual Task<Admission> Admit(Env& thread) = 0;
};

}  // namespace locksim

#endif  // LOCKSIM_LOCKIMPLS_LIMITER_H_
