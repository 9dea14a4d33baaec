// libFuzzer target: the scenario loader. Any text must either load or be
// refused with an InputError naming the JSON path; a crash, a sanitizer
// report or any other exception is a bug. A loaded scenario is also scaled
// (its durations multiplied), which must not overflow silently.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/core/errors.h"
#include "sim/scenario/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    locksim::Scenario s = locksim::ParseScenario(text, "fuzz.json");
    locksim::Scaled(s, locksim::TimeScale{1, 2});
    locksim::Scaled(s, locksim::TimeScale{1000, 1});
  } catch (const locksim::InputError&) {
  }
  return 0;
}
