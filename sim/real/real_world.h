// RealWorld: the backend that talks to real redis-server processes. True
// time is the host's monotonic clock since the run started; a client's local
// clock is the host's wall clock plus its offset. Each client process has its
// own hiredis connection to each node, driven asynchronously from one poll()
// loop, so clients contend for real while lock code stays single-threaded.
// A reply that arrives while its client is paused waits in the event queue,
// as it would wait in the socket of a stopped process.
#ifndef LOCKSIM_SIM_REAL_REAL_WORLD_H_
#define LOCKSIM_SIM_REAL_REAL_WORLD_H_

#include <chrono>
#include <map>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/runtime.h"

struct redisAsyncContext;

namespace locksim {

class RealWorld : public Runtime {
 public:
  struct Options {
    uint64_t seed = 1;
    std::vector<int> ports;  // one redis-server per node, on 127.0.0.1
  };
  explicit RealWorld(const Options& options);
  ~RealWorld() override;

  void Send(int client, int actor, int node, Command cmd,
            std::function<void(Reply)> done) override;
  int NodeCount() const override { return static_cast<int>(ports_.size()); }

  // Where client `process` reaches node `node`: what a third-party client
  // (an adapter) is told to connect to. Always ask here, never use a port
  // directly: a node's address may differ per client (a proxy in between).
  struct Address {
    std::string host;
    int port = 0;
  };
  Address NodeAddress(int process, int node) const;

  // Other descriptors the poll loop serves besides the Redis connections
  // (an adapter's stdout): `readable` runs from AdvanceTo when `fd` is
  // readable or closed, and may schedule events for now (At(Now(), ...)),
  // call UnwatchFd, or throw to end the run.
  void WatchFd(int fd, std::function<void()> readable);
  void UnwatchFd(int fd);

  // Starts true time (and the unix time it maps to) again from now.
  // REQUIRES: nothing has run yet. For set-up that takes real time before
  // the run (adapter processes starting), so that it does not eat into the
  // scenario's first seconds.
  void RestartClock();

 protected:
  void AdvanceTo(Nanos t) override;

 private:
  struct Conn;
  struct Pending;
  Conn* Connection(int actor, int node);
  Nanos Elapsed() const;
  static void OnReply(redisAsyncContext* ac, void* reply, void* privdata);

  std::vector<int> ports_;
  std::chrono::steady_clock::time_point start_;
  std::map<std::pair<int, int>, std::unique_ptr<Conn>> conns_;
  std::map<int, std::function<void()>> watched_;  // fd -> readable
  bool shutting_down_ = false;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_REAL_REAL_WORLD_H_
