// Time in locksim is integer nanoseconds, always (no double seconds, no
// epsilons). "True time" is the simulation's own time line, starting at 0
// when a run starts; every history record carries it. A process's *local*
// clock is a unix-epoch reading derived from true time by its offset and
// drift (see runtime.h).
#ifndef LOCKSIM_SIM_CORE_TIME_H_
#define LOCKSIM_SIM_CORE_TIME_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace locksim {

using Nanos = std::chrono::nanoseconds;
using std::chrono::duration_cast;
using Millis = std::chrono::milliseconds;

// The unix time at which every virtual run starts: 2024-01-01T00:00:00Z.
// Fixed so that virtual runs never read the host clock and stay
// byte-identical; virtual Redis nodes and client clocks count from it.
inline constexpr Nanos kVirtualEpoch = std::chrono::seconds(1704067200);

// Parses "250ms", "1.5s", "3m", "1m30s", "100us", "20ns", "1h": one or more
// parts, each a decimal number with an optional fraction and a unit. Returns nullopt (and sets
// *error) for anything else, including negative values and values that are
// not a whole number of nanoseconds.
std::optional<Nanos> ParseDuration(std::string_view text, std::string* error);

// "0s", "250ms", "1.5s", "4m00.0002s": exact, short, human-readable.
std::string FormatDuration(Nanos d);

// Whole milliseconds, as a command's argument ("30000" for 30 s).
inline std::string MillisText(Nanos d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
}

// A time scale as an exact ratio, for compressing scenario time on the real
// backend ("1/500": a 3-minute lease becomes 360 ms).
struct TimeScale {
  int64_t num = 1;
  int64_t den = 1;
  Nanos Apply(Nanos d) const {
    return Nanos(static_cast<int64_t>(static_cast<__int128>(d.count()) * num /
                                      den));
  }
  bool IsIdentity() const { return num == den; }
  std::string ToString() const;
};

// Parses "1", "1/500", "0.002". Positive only.
std::optional<TimeScale> ParseTimeScale(std::string_view text,
                                        std::string* error);

}  // namespace locksim

#endif  // LOCKSIM_SIM_CORE_TIME_H_
