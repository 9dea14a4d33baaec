// What a person at a terminal gets and a pipe does not: colour (unless
// NO_COLOR is set, https://no-color.org) and a progress line on stderr.
#ifndef LOCKSIM_SIM_CLI_TERMINAL_H_
#define LOCKSIM_SIM_CLI_TERMINAL_H_

#include <chrono>
#include <string>

namespace locksim {

// Colour on `fd`: a terminal, and NO_COLOR unset or empty.
bool UseColour(int fd);

// One progress line on stderr, redrawn in place at most every 100 ms, and
// only when stderr is a terminal (and the command was not asked to be
// quiet). Wall time is read here, outside any simulation: what a command
// writes does not depend on it.
class ProgressLine {
 public:
  explicit ProgressLine(bool quiet);
  ~ProgressLine() { Clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // A bar for `fraction` (0..1; below 0: no bar) and `text` after it. With
  // `force`, drawn even if the last drawing was under 100 ms ago.
  void Show(double fraction, const std::string& text, bool force = false);
  // Removes the line (before the command prints its results).
  void Clear();
  // Seconds since the line was made.
  double Elapsed() const;

 private:
  using Clock = std::chrono::steady_clock;
  bool on_;
  bool drawn_ = false;
  Clock::time_point start_;
  Clock::time_point last_;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_CLI_TERMINAL_H_
