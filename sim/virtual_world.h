// VirtualWorld: the deterministic backend. True time jumps from event to
// event and never reads the host clock; Redis nodes are VirtualRedis models
// in this process, each a process of its own with its own clock; messages
// cross a simulated network whose one-way latency is drawn from the run's
// seed, in FIFO order per link (a TCP connection never reorders).
#ifndef LOCKSIM_SIM_VIRTUAL_WORLD_H_
#define LOCKSIM_SIM_VIRTUAL_WORLD_H_

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "sim/runtime.h"
#include "sim/vredis/server.h"

namespace locksim {

class VirtualWorld : public Runtime {
 public:
  struct Options {
    uint64_t seed = 1;
    int nodes = 1;
    Nanos latency_min = std::chrono::microseconds(100);
    Nanos latency_max = std::chrono::microseconds(500);
  };
  explicit VirtualWorld(const Options& options);

  void Send(int client, int node, Command cmd,
            std::function<void(Reply)> done) override;
  int NodeCount() const override { return static_cast<int>(nodes_.size()); }

  int node_process(int node) const { return nodes_[node].process; }
  VirtualRedis& node(int node) { return *nodes_[node].redis; }

 protected:
  void AdvanceTo(Nanos t) override { now_ = t; }

 private:
  struct Node {
    int process;
    std::unique_ptr<VirtualRedis> redis;
  };
  // When a message sent now from `from` to `to` arrives.
  Nanos Arrival(int from, int to);

  Options options_;
  std::vector<Node> nodes_;
  std::map<std::pair<int, int>, Nanos> link_last_;  // FIFO per link
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_VIRTUAL_WORLD_H_
