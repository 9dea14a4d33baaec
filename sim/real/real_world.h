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
#include <memory>
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
  bool shutting_down_ = false;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_REAL_REAL_WORLD_H_
