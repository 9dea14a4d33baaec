// `locksim serve`: one virtual Redis node behind a RESP2 socket.
#include <string.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/core/errors.h"
#include "sim/serve/serve.h"

namespace locksim {

int ServeCommand(const std::vector<std::string>& args) {
  std::string bind = "127.0.0.1", port, clock_offset = "0", seed = "1";
  std::string busy = std::to_string(ServeOptions{}.busy_reply_threshold_ms);
  CommandLine cl(
      "locksim serve --port P [options]\n"
      "Serves one virtual Redis node over RESP2 until SIGINT or SIGTERM (exit 0).\n"
      "Besides the node's commands it answers LOCKSIM.CLOCK GET | JUMP <ms> |\n"
      "OFFSET <ms> | HELP, which move the node clock.");
  cl.Add()("port", po::value(&port), "TCP port; 0 picks a free one (the address is printed)")(
      "bind", po::value(&bind)->default_value("127.0.0.1"),
      "loopback address to listen on: 127.x.y.z or ::1")(
      "clock-offset", po::value(&clock_offset)->default_value("0"),
      "node clock = host wall clock + this many ms (may be negative)")(
      "seed", po::value(&seed)->default_value("1"), "seed of the active expiry sampling")(
      "busy-reply-threshold", po::value(&busy)->default_value(busy),
      "ms a script runs before other clients get BUSY (redis-server's busy-reply-threshold)");
  if (!cl.Parse(args)) return kExitSafe;
  if (port.empty()) throw InputError("locksim serve: missing --port (--port 0 picks a free one)");
  ServeOptions options;
  options.bind = bind;
  options.port = static_cast<int>(ParseIntOption("--port", port, 0, 65535));
  options.clock_offset_ms =
      ParseIntOption("--clock-offset", clock_offset, -kMaxClockOffsetMs, kMaxClockOffsetMs);
  options.seed = ParseSeedOption("--seed", seed);
  options.busy_reply_threshold_ms =
      ParseIntOption("--busy-reply-threshold", busy, 0, kMaxClockOffsetMs);
  const int signo = Serve(options, std::cout);
  // A requested stop (a signal, or SHUTDOWN) is the normal end of a server: exit 0.
  if (signo == 0) {
    std::fprintf(stderr, "locksim serve: stopped by SHUTDOWN\n");
  } else {
    std::fprintf(stderr, "locksim serve: stopped by SIG%s\n",
                 sigabbrev_np(signo) ? sigabbrev_np(signo) : "?");
  }
  return kExitSafe;
}

}  // namespace locksim
