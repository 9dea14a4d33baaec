// How long a thread's lease still had to run on each node when it entered
// its critical section: a pure function of the history's node states. The
// lease on a node ends at its key's expiry, or when someone else removed or
// replaced the value the thread wrote. Negative: the key was already gone
// when the work started (seed 003's pause during acquisition, F10).
#ifndef LOCKSIM_SIM_CHECK_LEASE_H_
#define LOCKSIM_SIM_CHECK_LEASE_H_

#include <map>
#include <optional>
#include <vector>

#include "sim/core/history.h"

namespace locksim {

struct NodeLease {
  int node = 0;                // the node's actor
  std::optional<Nanos> left;   // none: the key had no TTL
  bool operator==(const NodeLease&) const = default;
};

// The node states of a history, indexed once (O(n)) so that each question
// costs O(nodes x log n): a scan of the history per question made a run's
// JSON, and explore's signature of a run, O(violations x ops). It keeps a
// reference to the history, which must outlive it.
class LeaseIndex {
 public:
  explicit LeaseIndex(const History& history);

  // For the thread `thread` entering at history index `at` (a cs invoke),
  // by node actor in increasing order; empty when it wrote to no node (or
  // `at` < 0). The lease on a node runs from the last state op before `at`
  // that shows a value put there by a thread of the same owner (its
  // `subject`), to that key's expiry, cut short at the node's next state op
  // that succeeded (type ok) if one comes before `at`. As a scan of every
  // state op before `at` would find, in a history recorded in time order,
  // as both worlds record theirs (sim/check/checker.h).
  std::vector<NodeLease> AtEntry(int thread, int64_t at) const;

  // Whether the thread entered with no lease left anywhere it held one
  // (and it held one somewhere): it worked on a lock that had already run
  // out.
  bool EnteredAfterItsLease(int thread, int64_t at) const;

 private:
  const History& history_;
  // By node actor: its state ops that succeeded (type ok), in history order.
  std::vector<std::vector<int32_t>> states_;
  // By owner, then node actor: the state ops that show the owner's value.
  std::map<int, std::map<int, std::vector<int32_t>>> mine_;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_CHECK_LEASE_H_
