#include "sim/cli/terminal.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace locksim {

bool UseColour(int fd) {
  const char* no_color = std::getenv("NO_COLOR");
  return isatty(fd) == 1 && (no_color == nullptr || no_color[0] == '\0');
}

ProgressLine::ProgressLine(bool quiet)
    : on_(!quiet && isatty(STDERR_FILENO) == 1), start_(Clock::now()) {}

void ProgressLine::Show(double fraction, const std::string& text, bool force) {
  if (!on_) return;
  const Clock::time_point now = Clock::now();
  if (drawn_ && !force && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  drawn_ = true;
  std::string line;
  if (fraction >= 0) {
    constexpr int kWidth = 24;
    const int filled = static_cast<int>(std::min(fraction, 1.0) * kWidth);
    line = "[" + std::string(static_cast<size_t>(filled), '#') +
           std::string(static_cast<size_t>(kWidth - filled), '.') + "] ";
  }
  std::fprintf(stderr, "\r\x1b[K%s%s", line.c_str(), text.c_str());
  std::fflush(stderr);
}

void ProgressLine::Clear() {
  if (!on_ || !drawn_) return;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

double ProgressLine::Elapsed() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

}  // namespace locksim
