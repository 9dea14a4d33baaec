// The mutual-exclusion checker: a pure function of the history. Any two
// critical sections of the same resource that overlap in true time are a
// violation. A section still open when the run ended lasts until the end.
// Ties at the same instant are broken by history order (the history is
// recorded in true-time order in both worlds), so B entering in the same
// nanosecond as A, but before A's exit was recorded, is an overlap.
// O(n log n + v) to find the v violations (sort, then sweep).
#ifndef LOCKSIM_SIM_CHECKER_H_
#define LOCKSIM_SIM_CHECKER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/history.h"

namespace locksim {

struct CriticalSection {
  int process = 0;
  std::string resource;
  Nanos start{0};
  Nanos end{0};
  int64_t acquired_index = -1;  // the acquire ok that led to it
  int64_t enter_index = -1;     // cs invoke
  int64_t exit_index = -1;      // cs ok; -1 while still open at the end
};

struct Violation {
  std::string kind = "mutual-exclusion";
  std::string resource;
  CriticalSection first;   // the section that started first
  CriticalSection second;
  Nanos overlap_start{0};
  Nanos overlap_end{0};
  // History indices of what led to it: faults, acquisitions, releases and
  // the commands sent inside releases, from the first holder's acquisition
  // to the moment the second holder entered.
  std::vector<int64_t> events;
};

struct CheckResult {
  std::vector<CriticalSection> sections;
  std::vector<Violation> violations;
  bool ok() const { return violations.empty(); }
};

CheckResult CheckMutualExclusion(const History& history, Nanos end);

}  // namespace locksim

#endif  // LOCKSIM_SIM_CHECKER_H_
