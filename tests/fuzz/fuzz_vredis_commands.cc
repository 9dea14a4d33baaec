// libFuzzer target: command execution of the virtual Redis, scripts
// included, reached faster than through RESP. The input is text: one
// command per line, its arguments separated by tabs. A line "@" + digits
// moves the node clock that many milliseconds (expirations, the active
// expiry cycle); "#" + digit switches to one of three connections (MULTI,
// WATCH and pub/sub state are per connection); "!crash" and "!restart"
// crash the node and start it again (with an AOF). Every reply is encoded
// in RESP2; a replica applies the replication stream as it comes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/random.h"
#include "sim/serve/resp.h"
#include "sim/vredis/server.h"

namespace {

std::vector<std::string_view> Split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == sep) {
      out.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  locksim::VirtualRedis node;
  node.SetScriptInstructionLimit(1'000'000);
  node.SetScriptMemoryLimit(int64_t{64} << 20);  // Redis has none; a fuzzer needs one
  node.SetPersistence(locksim::Persistence::kAofAlways);
  locksim::VirtualRedis replica;
  replica.SetReplica(true);
  locksim::VirtualRedis::ConnId conns[3] = {node.Connect(), node.Connect(), node.Connect()};
  int current = 0;
  locksim::Random random(7);
  int64_t now_ms = 1'700'000'000'000;
  std::string out;
  for (std::string_view line : Split(text, '\n')) {
    if (line.empty()) continue;
    if (line[0] == '@') {
      now_ms += std::strtoll(std::string(line.substr(1, 9)).c_str(), nullptr, 10);
      node.Cron(now_ms, random);
      continue;
    }
    if (line[0] == '#' && line.size() == 2) {
      current = (line[1] - '0') % 3;
      if (current < 0) current += 3;
      continue;
    }
    if (line == "!crash") {
      node.Crash();
      continue;
    }
    if (line == "!restart") {
      node.Restart(now_ms);
      for (auto& c : conns) c = node.Connect();
      replica.LoadFrom(node);
      continue;
    }
    locksim::Command argv;
    for (std::string_view a : Split(line, '\t')) argv.emplace_back(a);
    locksim::AppendResp(node.Execute(conns[current], argv, now_ms), &out);
    for (const locksim::Reply& push : node.TakePushes(conns[current])) {
      locksim::AppendResp(push, &out);
    }
    for (const locksim::Command& write : node.TakeReplicationStream()) {
      replica.ApplyReplicated(write, now_ms);
    }
  }
  return 0;
}
