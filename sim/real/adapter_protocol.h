// The adapter protocol's replies (docs/adapters.md): one JSON object per
// line on the adapter's stdout, answering the requests in order. These are
// the checks a line must pass, kept apart from the process plumbing of
// AdapterLock so that they are tested, and fuzzed (tests/fuzz/), alone.
#ifndef LOCKSIM_SIM_REAL_ADAPTER_PROTOCOL_H_
#define LOCKSIM_SIM_REAL_ADAPTER_PROTOCOL_H_

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace locksim {

// The request a line must answer: id 0 is the hello; op is "hello",
// "acquire", "release" or "extend".
struct DueRequest {
  int64_t id;
  std::string op;
};

// A line quoted in a message: at most 200 bytes of it.
std::string QuoteLine(const std::string& line);

// "" when `reply` (the answer to the hello) accepts the session; else why
// not, as a phrase for "the adapter ...".
std::string CheckHelloReply(const nlohmann::json& reply);

// Parses `line` into *reply and checks that it answers `due` (null: no
// request is outstanding). "" when it does; else why not, as a phrase for
// "the adapter ..." (which is a broken protocol: the harness stops).
std::string CheckAdapterLine(const std::string& line, const DueRequest* due,
                             nlohmann::json* reply);

}  // namespace locksim

#endif  // LOCKSIM_SIM_REAL_ADAPTER_PROTOCOL_H_
