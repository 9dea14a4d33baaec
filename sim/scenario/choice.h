// A scenario's "choices" (docs/scenarios.md, Choices) and the choice points
// a run met: plain data shared by the scenario parser, the virtual world's
// chooser (sim/world/chooser.h) and a run's result.
#ifndef LOCKSIM_SIM_SCENARIO_CHOICE_H_
#define LOCKSIM_SIM_SCENARIO_CHOICE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/time.h"

namespace locksim {

// One deviation from the default, as a scenario's "choices" entry gives it
// (docs/scenarios.md). `at` and `message` (or `among`, the tie's streams
// in FIFO order) say which point is meant: a run whose point `point` is
// not that one does not apply it, and reports it unapplied.
struct ChoiceSpec {
  int64_t point = 0;  // 1-based, in the order the run meets its points
  Nanos at{0};
  bool tie = false;
  std::string message;              // a message: "A->redis0"
  Nanos delay{0};                   // a message: added to its latency
  std::vector<std::string> among;   // a tie: its streams, FIFO order first
  std::string first;                // a tie: the stream that runs first
};

// A choice point as a run met it.
struct ChoicePoint {
  int64_t point = 0;
  Nanos at{0};
  bool tie = false;
  std::string message;             // a message
  std::vector<std::string> among;  // a tie
  // What the run took there, when its script departed from the default:
  // the latency added to a message, the index of the tie's stream that ran
  // first.
  Nanos added{0};
  size_t picked = 0;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_SCENARIO_CHOICE_H_
