// The peer every figure is measured against: a redis-server of our own
// (sim/real/redis_server.h: 127.0.0.1, a port we pick, a temporary folder)
// loaded by redis-benchmark, in the same run as our figures.
#ifndef LOCKSIM_BENCH_PEER_H_
#define LOCKSIM_BENCH_PEER_H_

#include <sys/resource.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/real/redis_server.h"

namespace locksim::bench {

// The CPU time that redis-benchmark runs took, summed: the client's own
// (its rusage) and the server's (its /proc/<pid>/stat, in clock ticks),
// over the requests they served.
struct PeerCpu {
  double client_seconds = 0;
  double server_seconds = 0;
  int64_t requests = 0;
};

class Peer {
 public:
  // Starts the server. Throws InputError / HarnessError as RedisServer does.
  Peer(std::string redis_benchmark, const std::string& redis_server);

  // redis-benchmark's requests per second for one command (argv, with
  // __rand_int__ drawn from 1000 keys), with `pipeline` requests in flight
  // per connection over `clients` connections, `requests` in all. Throws
  // HarnessError if redis-benchmark fails or prints no figure. With `cpu`,
  // the run's CPU time is added to it.
  double RequestsPerSecond(const std::vector<std::string>& command, int pipeline,
                           int clients, int requests, PeerCpu* cpu = nullptr);
  // The requests per second of one hiredis connection that sends
  // `command` (__rand_int__ drawn from 1000 keys, as redis-benchmark -r
  // 1000 does) and polls its socket for each reply without ever sleeping,
  // `requests` in all: the round trip of a client that waits as the
  // harness waits for a due reply (WorldOptions::reply_spin), where
  // redis-benchmark sleeps in its event loop. Throws HarnessError on a
  // failure, an error reply, or a minute without an answer.
  double PollingRequestsPerSecond(const std::vector<std::string>& command, int requests);
  // SCRIPT LOAD: the sha1 to EVALSHA `body` with.
  std::string LoadScript(const std::string& body);

  int port() const { return server_->port(); }
  // The exact command lines run so far, for the results file.
  const std::vector<std::string>& commands() const { return commands_; }

 private:
  std::string redis_benchmark_;
  std::unique_ptr<RedisServer> server_;
  std::vector<std::string> commands_;
};

// Runs argv (no shell) and returns what it printed on stdout; throws
// HarnessError when it cannot start or exits with a failure. With `usage`,
// the child's resource usage (its CPU time) is written there.
std::string RunCapture(const std::vector<std::string>& argv, rusage* usage = nullptr);
// Runs argv (no shell) with our stdout and stderr; throws HarnessError when
// it cannot start or exits with a failure.
void RunToTerminal(const std::vector<std::string>& argv);

}  // namespace locksim::bench

#endif  // LOCKSIM_BENCH_PEER_H_
