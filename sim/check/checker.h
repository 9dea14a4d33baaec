// The mutual-exclusion checker: a pure function of the history. Any two
// critical sections of the same resource that overlap in true time are a
// violation. A section still open when the run ended lasts until the end.
// Ties at the same instant are broken by history order (the history is
// recorded in true-time order in both worlds), so B entering in the same
// nanosecond as A, but before A's exit was recorded, is an overlap.
// O(n log n + v) to find the v violations (sort, then sweep), and v is
// bounded: a section overlapped by more than kListedOverlaps later ones (a
// holder that never leaves, which every later section overlaps) has its
// first kListedOverlaps overlaps listed and the rest folded into one more
// violation that counts them, so that n sections cost n log n, not n
// explanations of O(n) each.
#ifndef LOCKSIM_SIM_CHECK_CHECKER_H_
#define LOCKSIM_SIM_CHECK_CHECKER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/history.h"
#include "sim/core/verdict.h"

namespace locksim {

// Its resource is the key of its cs invoke (history.key(history.ops()
// [enter_index])), not a copy here: a long run has 10^5 sections, and at 40
// bytes, not 88, writing them out is no longer most of the check's time
// (BM_CheckMutualExclusion at 10^6 ops, perf). Op indices are 32 bits, as
// every op index (History::kMaxOps).
struct CriticalSection {
  Nanos start{0};
  Nanos end{0};
  int process = 0;
  int32_t acquired_index = -1;  // the acquire ok that led to it
  int32_t enter_index = -1;     // cs invoke
  int32_t exit_index = -1;      // cs ok (or the crash); -1 while open at the end
  bool crashed = false;         // ended by a crash of its process
};

// Two kinds of violation (sim/core/verdict.h):
//   mutual-exclusion  two critical sections overlap (first, second);
//   foreign-write     a client's command changed or deleted the lock value
//                     another client had written while that client held the
//                     lock (seed 000's DEL of someone else's lock, seed 001's
//                     GETSET over the winner's timestamp): `second` is the
//                     writer's side, `first` the holder's, and
//                     `state_index` the node's state op that shows it.
// How many overlaps of one section are listed one by one.
inline constexpr int64_t kListedOverlaps = 8;

// The overlaps of one section past the listed ones: how many, and with
// which threads (each thread once, with its count, in order of first
// overlap).
struct FoldedOverlaps {
  int64_t sections = 0;
  std::vector<std::pair<int, int64_t>> by_thread;
};

// A violation lists at most kListedEvents events. Its rule (below) can
// list thousands: a thread that waited long for the lock sent a command per
// retry, and a crowd of clients acquired and released all through a long
// story; thousands of such violations made one 60 s run of 200 clients
// write tens of gigabytes of JSON. Past the bound a violation keeps the
// story's first kHeadEvents, the kAroundEvents before the first holder's
// acquisition and the kAroundEvents from it, and the last events up to the
// second's entry, and `elided` says where the others were and how many.
inline constexpr size_t kListedEvents = 200;
// And only the first kExplainedViolations of a run's violations (by time)
// list events at all: the rest are found, counted and described as the
// others, with empty `events` (and, in a run's JSON, empty `faults`). A
// long run of many clients breaks a weak lock thousands of times over, and
// no reader follows a thousand stories.
inline constexpr size_t kExplainedViolations = 100;
inline constexpr size_t kHeadEvents = 40;
inline constexpr size_t kAroundEvents = 20;

// Events of a violation's story left out of its list.
struct ElidedEvents {
  int32_t after = -1;  // the listed event they follow (a history index)
  int64_t count = 0;
};

struct Violation {
  ViolationKind kind = ViolationKind::kMutualExclusion;
  std::string resource;
  CriticalSection first;   // the section that started first
  CriticalSection second;
  Nanos overlap_start{0};
  Nanos overlap_end{0};
  // History indices of what led to it, in order, from the first holder's
  // acquire invoke (mutual exclusion; its acquisition if a release of it
  // comes between) or its acquisition (foreign write) to the second
  // holder's entry (the write): every fault, acquisition result, release
  // op, node state and resource write; the commands any thread sent inside
  // a release begun in that range, and those the two sent inside an
  // acquire begun in it; the two threads' critical-section ops. 32 bits,
  // as every op index. At most kListedEvents of them, and where some were left
  // out, `elided` (in history order) says after which and how many. Empty
  // past a run's first kExplainedViolations.
  std::vector<int32_t> events;
  std::vector<ElidedEvents> elided;
  int64_t state_index = -1;  // foreign-write: the node state op
  int64_t held_index = -1;   // foreign-write: the holder's acquire ok it held by
  int writer = -1;           // foreign-write: the thread whose command did it
  int holder = -1;           // foreign-write: the thread that held the lock
  // mutual-exclusion past kListedOverlaps of `first`: `second` is the first
  // folded section, [overlap_start, overlap_end] spans every folded
  // overlap, and `folded` counts them (and names them, by thread).
  std::optional<FoldedOverlaps> folded;
};

struct CheckResult {
  std::vector<CriticalSection> sections;
  std::vector<Violation> violations;
  bool ok() const { return violations.empty(); }
};

// Both kinds, ordered by time; the first kExplainedViolations list their
// events. Without `explain`, no violation's `events` are listed: a caller
// that keeps only the kinds and the sections (explore's runs) does not pay
// for the index they come from, which for a retry storm is a quarter of the
// run's memory.
CheckResult CheckMutualExclusion(const History& history, Nanos end, bool explain = true);

}  // namespace locksim

#endif  // LOCKSIM_SIM_CHECK_CHECKER_H_
