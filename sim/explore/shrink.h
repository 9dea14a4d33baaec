// Shrinking a counterexample: the smallest scenario, found greedily, that
// still shows the same kind of violation. Works on a scenario document (the
// JSON a scenario file holds, as sim/explore/explore.cc generates it), so that every
// candidate is checked by the ordinary parser and what comes out is a normal
// scenario file.
//
// Moves, tried in this order in passes until a pass changes nothing or the
// budget of runs is spent (QuickCheck's and Hypothesis's greedy shrinking):
//   1. drop a fault;
//   2. drop a client (and the faults that name it);
//   3. fewer iterations of a client;
//   4. a simpler shape: a client's "threads" and "reenter", the "redis"
//      section (replicas, persistence) and the "network" one dropped;
//   5. shorter durations: the run, the lock's TTL, each client's start,
//      hold and think, each fault's time, trigger delay, length, restart
//      delay, latency, and clock offset or jump, each moved toward its
//      floor (0, or 1ms where 0 is not allowed) by halving steps, in whole
//      milliseconds.
// A candidate is kept when `keeps` says it still shows the violation; a
// candidate the parser refuses is simply not kept. Deterministic: the same
// document, predicate and budget give the same result.
#ifndef LOCKSIM_SIM_EXPLORE_SHRINK_H_
#define LOCKSIM_SIM_EXPLORE_SHRINK_H_

#include <functional>

#include <nlohmann/json.hpp>

#include "sim/core/time.h"

namespace locksim {

struct ShrinkStats {
  int runs = 0;      // candidates tried
  int accepted = 0;  // candidates kept
};

// REQUIRES: `keeps(doc)` holds, or the result is `doc` unchanged except for
// what the budget allowed; `keeps` must be a deterministic function.
// `run_slack`: the shrunk run's "duration" is lengthened by this much at the
// end (never past the original), so that it does not end just after the
// violation. Real servers need it: the violation shows a scheduling hiccup
// later in one run than in another (sim/explore/explore.cc).
// `edge_margin`: a duration that a binary search took to within a step of
// the edge where the violation goes (a pause only just past the lease, a
// start only just after another client's) is then moved this much back
// from it, toward the value it had, when that still shows the violation
// (one more run, beyond the budget). Real servers need it too: a busy
// machine shifts the real run by a few milliseconds, across a thin edge.
nlohmann::ordered_json Shrink(nlohmann::ordered_json doc,
                              const std::function<bool(const nlohmann::ordered_json&)>& keeps,
                              int budget, ShrinkStats* stats, Nanos run_slack = Nanos{0},
                              Nanos edge_margin = Nanos{0});

}  // namespace locksim

#endif  // LOCKSIM_SIM_EXPLORE_SHRINK_H_
