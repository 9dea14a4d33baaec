// What the subcommands (run, serve, compare, explore) share in reading their
// options: an integer option checked against its range, with a message
// naming the option (exit 2 through InputError).
#ifndef LOCKSIM_SIM_CLI_OPTIONS_H_
#define LOCKSIM_SIM_CLI_OPTIONS_H_

#include <charconv>
#include <cstdint>
#include <string>

#include "sim/core/errors.h"

namespace locksim {

// A decimal integer option within [lo, hi].
inline int64_t ParseIntOption(const std::string& option, const std::string& text, int64_t lo,
                              int64_t hi) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || p != end || v < lo || v > hi) {
    throw InputError(option + ": expected an integer from " + std::to_string(lo) + " to " +
                     std::to_string(hi) + ", got \"" + text + "\"");
  }
  return v;
}

}  // namespace locksim

#endif  // LOCKSIM_SIM_CLI_OPTIONS_H_
