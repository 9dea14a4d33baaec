// How long a thread's lease still had to run on each node when it entered
// its critical section: a pure function of the history's node states. The
// lease on a node ends at its key's expiry, or when someone else removed or
// replaced the value the thread wrote. Negative: the key was already gone
// when the work started (seed 003's pause during acquisition, F10).
#ifndef LOCKSIM_SIM_CHECK_LEASE_H_
#define LOCKSIM_SIM_CHECK_LEASE_H_

#include <optional>
#include <vector>

#include "sim/core/history.h"

namespace locksim {

struct NodeLease {
  int node = 0;                // the node's actor
  std::optional<Nanos> left;   // none: the key had no TTL
};

// For the thread `thread` entering at history index `at` (a cs invoke), by
// node actor in increasing order; empty when it wrote to no node (or
// `at` < 0).
std::vector<NodeLease> LeaseAtEntry(const History& history, int thread, int64_t at);

// Whether the thread entered with no lease left anywhere it held one (and
// it held one somewhere): it worked on a lock that had already run out.
bool EnteredAfterItsLease(const History& history, int thread, int64_t at);

}  // namespace locksim

#endif  // LOCKSIM_SIM_CHECK_LEASE_H_
