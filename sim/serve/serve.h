// `locksim serve`: one VirtualRedis node behind a RESP2 socket, so that
// redis-cli, hiredis and any client library can talk to the model, with an
// administrative LOCKSIM.CLOCK command to skew or jump the node's clock.
//
// Only loopback addresses are accepted: the model has no authentication and
// no protected mode, and it is a test fixture, not a server for a network.
#ifndef LOCKSIM_SIM_SERVE_SERVE_H_
#define LOCKSIM_SIM_SERVE_SERVE_H_

#include <cstdint>
#include <ostream>
#include <string>

namespace locksim {

struct ServeOptions {
  std::string bind = "127.0.0.1";  // 127.x.y.z, ::1, or a name resolving only to those
  int port = 0;                    // 0: the kernel picks a free port
  int64_t clock_offset_ms = 0;     // node clock = host wall clock + this
  uint64_t seed = 1;               // for the active expiry cycle's sampling
  // How long a script runs before the other clients get BUSY, as
  // redis-server's busy-reply-threshold (0: at once).
  int64_t busy_reply_threshold_ms = 5000;
};

// How far the node clock may be set from the host's, either way: 100 years
// (36525 days). Keeps every node time and every PX/PXAT sum far from
// overflow.
inline constexpr int64_t kMaxClockOffsetMs = 36525LL * 24 * 3600 * 1000;

// Listens on options.bind:options.port, prints
//   locksim serve: listening on ADDR:PORT
// to `out` (ADDR as bound, PORT the actual port), then serves clients until
// SIGINT, SIGTERM or SIGHUP (returns the signal's number) or a client's
// SHUTDOWN (returns 0), and closes every socket. Throws InputError for an unusable --bind, --port,
// --clock-offset or --busy-reply-threshold (not loopback, port in use, out of range) and
// HarnessError if a system call fails unexpectedly.
int Serve(const ServeOptions& options, std::ostream& out);

}  // namespace locksim

#endif  // LOCKSIM_SIM_SERVE_SERVE_H_
