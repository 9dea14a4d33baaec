// A synthetic history shaped like a set-nx-px run, of any length, for the
// checker and memory benchmarks: five clients take turns on one lock, with
// the Redis commands a real run records (SET NX PX with a UUID token, the
// compare-and-delete EVAL, their replies), failed tries by the others, and
// now and then a nemesis pause of the holder during which the next client
// acquires, so the checker also has overlaps to find and explain.
#ifndef LOCKSIM_BENCH_SYNTHETIC_HISTORY_H_
#define LOCKSIM_BENCH_SYNTHETIC_HISTORY_H_

#include <cstdint>

#include "sim/core/history.h"

namespace locksim::bench {

struct SyntheticHistory {
  History history;
  Nanos end{0};  // the true time after the last operation
};

// About `ops` operations (it stops at the first cycle boundary past it).
// One overlap for every `overlap_every` acquisitions (0: none). Deterministic.
SyntheticHistory MakeSyntheticHistory(int64_t ops, int64_t overlap_every = 500,
                                      uint64_t seed = 1);

}  // namespace locksim::bench

#endif  // LOCKSIM_BENCH_SYNTHETIC_HISTORY_H_
