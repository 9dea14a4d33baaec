// Liveness: what the deadlock and degraded verdicts rest on. Pure functions
// of the history, like the safety checker.
//   deadlock  some client kept trying to acquire and nobody held the lock
//             doing work (the holder crashed, or waits for its own lock)
//             for longer than LivenessSpec::deadlock_after; for a rate
//             limiter, requests kept being refused with none admitted;
//   degraded  more aborted transactions (EXEC -> nil while acquiring: seed
//             000's WATCH retry storm) per acquisition than the bound.
#ifndef LOCKSIM_SIM_CHECK_LIVENESS_H_
#define LOCKSIM_SIM_CHECK_LIVENESS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "sim/core/history.h"

namespace locksim {

// The liveness bounds behind the deadlock and degraded verdicts.
struct LivenessSpec {
  // Deadlock: some client kept trying and nobody worked in a critical
  // section (the holder died, or waits for itself) for longer than this.
  Nanos deadlock_after = std::chrono::seconds(60);
  // Degraded: more aborted transactions (EXEC -> nil) per acquisition.
  std::optional<double> max_retries_per_acquisition;
};

struct LivenessResult {
  Nanos stuck_from{0};  // the longest stretch with nobody making progress
  Nanos stuck_to{0};
  bool deadlock = false;
  int64_t acquisitions = 0;
  // EXECs answered nil (a WATCHed key changed: the transaction aborted)
  // while acquiring, and per acquisition. JSON: aborted_transactions.
  int64_t aborted_transactions = 0;
  double aborted_per_acquisition = 0;
  bool degraded = false;
  std::string text;  // one sentence for reports
  Nanos stuck() const { return stuck_to - stuck_from; }
};

LivenessResult CheckLiveness(const History& history, Nanos end, const LivenessSpec& spec,
                             bool limiter);

}  // namespace locksim

#endif  // LOCKSIM_SIM_CHECK_LIVENESS_H_
