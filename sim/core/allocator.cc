#include "sim/core/allocator.h"

#include <malloc.h>

namespace locksim {

void KeepMemoryBetweenRuns() {
  // Setting either turns off glibc's own sliding of the two thresholds.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest dynamic value
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
}

}  // namespace locksim
