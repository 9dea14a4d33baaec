// libFuzzer target: the adapter reply checks (sim/real/adapter_protocol.h).
// The first byte picks the request due (none, the hello, acquire, release,
// extend, an id); the rest is the line the adapter sent. Every line is
// accepted or refused with a reason; nothing else may happen.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/real/adapter_protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const char* const kOps[] = {"hello", "acquire", "release", "extend"};
  const uint8_t pick = data[0];
  const std::string line(reinterpret_cast<const char*>(data) + 1, size - 1);
  locksim::DueRequest due{pick % 4 == 0 ? 0 : 1 + (pick >> 4), kOps[pick % 4]};
  nlohmann::json reply;
  const std::string why =
      locksim::CheckAdapterLine(line, (pick & 8) != 0 ? nullptr : &due, &reply);
  (void)why.size();
  if (why.empty() && due.id == 0) locksim::CheckHelloReply(reply);
  return 0;
}
