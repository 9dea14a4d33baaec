// The two kinds of failure locksim reports besides a verdict. Exceptions are
// used only at the boundaries (scenario files, command line, starting real
// servers) and become an exit code in main(): bad input or usage is 2, a
// failure of the harness itself is 3.
#ifndef LOCKSIM_SIM_CORE_ERRORS_H_
#define LOCKSIM_SIM_CORE_ERRORS_H_

#include <stdexcept>
#include <string>

namespace locksim {

// The user's input is wrong: a malformed scenario, an unknown algorithm, a
// missing redis-server. The message names the file, JSON path or option.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// locksim itself failed (a server died, a socket broke).
struct HarnessError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline constexpr int kExitSafe = 0;
inline constexpr int kExitViolated = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitHarness = 3;

}  // namespace locksim

#endif  // LOCKSIM_SIM_CORE_ERRORS_H_
