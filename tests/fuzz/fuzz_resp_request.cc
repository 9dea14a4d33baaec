// libFuzzer target: the request path of `locksim serve`, bytes to replies.
// The input is what a client sends, framed by RequestReader (hiredis's
// reader), run by a virtual Redis node (scripts included) and answered in
// RESP2, as serve's loop does without its sockets. The first byte splits
// the input into two reads, so that requests cut across reads are framed too.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/core/random.h"
#include "sim/serve/request_reader.h"
#include "sim/serve/resp.h"
#include "sim/vredis/server.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const char* bytes = reinterpret_cast<const char*>(data) + 1;
  const size_t n = size - 1;
  const size_t cut = n == 0 ? 0 : data[0] % (n + 1);
  locksim::VirtualRedis node;
  // A script that loops is stopped quickly (serve would answer BUSY).
  node.SetScriptInstructionLimit(1'000'000);
  node.SetScriptMemoryLimit(int64_t{64} << 20);  // Redis has none; a fuzzer needs one
  const locksim::VirtualRedis::ConnId conn = node.Connect();
  locksim::Random random(1);
  locksim::RequestReader reader;
  std::string out;
  int64_t now_ms = 1'700'000'000'000;
  const size_t pieces[][2] = {{0, cut}, {cut, n - cut}};
  for (const auto& piece : pieces) {
    reader.Feed(bytes + piece[0], piece[1]);
    locksim::Command argv;
    std::string error;
    for (;;) {
      const auto status = reader.Next(&argv, &error);
      if (status == locksim::RequestReader::Status::kNeedMore) break;
      if (status == locksim::RequestReader::Status::kError) {
        locksim::AppendResp(locksim::Reply::Error("ERR Protocol error: " + error), &out);
        return 0;
      }
      locksim::AppendResp(node.Execute(conn, argv, now_ms), &out);
      for (const locksim::Reply& push : node.TakePushes(conn)) locksim::AppendResp(push, &out);
      now_ms += 7;
      node.Cron(now_ms, random);
    }
  }
  return 0;
}
