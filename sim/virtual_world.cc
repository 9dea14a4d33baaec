#include "sim/virtual_world.h"

#include <algorithm>

namespace locksim {

VirtualWorld::VirtualWorld(const Options& options)
    : Runtime(options.seed, kVirtualEpoch), options_(options) {
  for (int i = 0; i < options.nodes; ++i) {
    int p = AddProcess("redis" + std::to_string(i));
    nodes_.push_back(Node{p, std::make_unique<VirtualRedis>()});
  }
}

Nanos VirtualWorld::Arrival(int from, int to) {
  Nanos latency(random().Between(options_.latency_min.count(),
                                 options_.latency_max.count()));
  Nanos& last = link_last_[{from, to}];
  last = std::max(last, now_ + latency);
  return last;
}

void VirtualWorld::Send(int client, int node, Command cmd,
                        std::function<void(Reply)> done) {
  const int server = nodes_[node].process;
  At(Arrival(client, server), server,
     [this, client, node, server, cmd = std::move(cmd), done = std::move(done)] {
       const int64_t now_ms = duration_cast<Millis>(LocalNow(server)).count();
       Reply reply = nodes_[node].redis->Execute(cmd, now_ms);
       At(Arrival(server, client), client,
          [done, reply = std::move(reply)] { done(reply); });
     });
}

}  // namespace locksim
