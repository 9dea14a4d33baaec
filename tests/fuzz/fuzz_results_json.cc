// libFuzzer target: the two results readers, compare's results.json
// (ParseResultsJson, which `locksim compare --from` and the report read)
// and explore's summary (ParseSummary). Any text is read or refused with
// an InputError; nothing else may happen.
#include <cstddef>
#include <cstdint>
#include <string>

#include "reports/compare_json.h"
#include "sim/core/errors.h"
#include "sim/explore/explore.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    locksim::ParseResultsJson(text, "results.json");
  } catch (const locksim::InputError&) {
  }
  try {
    locksim::ParseSummary(text, "summary.json");
  } catch (const locksim::InputError&) {
  }
  return 0;
}
