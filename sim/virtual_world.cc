#include "sim/virtual_world.h"

#include <algorithm>

namespace locksim {

VirtualWorld::VirtualWorld(const Options& options)
    : Runtime(options.seed, kVirtualEpoch), options_(options) {
  for (int g = 0; g < options.nodes; ++g) {
    Group group;
    for (int r = 0; r <= options.replicas; ++r) {
      const int physical = static_cast<int>(nodes_.size());
      const std::string name = "redis" + std::to_string(g) +
                               (options.replicas > 0 ? (r == 0 ? "m" : "r" + std::to_string(r)) : "");
      Node n{AddProcess(name), g, std::make_unique<VirtualRedis>()};
      n.redis->SetPersistence(options.persistence,
                              duration_cast<Millis>(options.rdb_interval).count());
      if (r > 0) {
        n.redis->SetReplica(true);
        n.replica_of = static_cast<int>(nodes_.size()) - r;
      }
      nodes_.push_back(std::move(n));
      group.members.push_back(physical);
    }
    group.master = group.members.front();
    groups_.push_back(std::move(group));
  }
}

int64_t VirtualWorld::NodeMillis(int physical) const {
  return duration_cast<Millis>(LocalNow(nodes_[physical].process)).count();
}

Nanos VirtualWorld::Arrival(int from, int to) {
  Nanos latency(
      network_random().Between(options_.latency_min.count(), options_.latency_max.count()));
  Nanos& last = link_last_[{from, to}];
  last = std::max(last, now_ + latency);
  return last;
}

VirtualRedis::ConnId VirtualWorld::ConnectionOf(int actor, int physical) {
  Node& n = nodes_[physical];
  auto it = conns_.find({actor, physical});
  if (it == conns_.end() || it->second.first != n.epoch) {
    const VirtualRedis::ConnId id = n.redis->Connect();
    conns_[{actor, physical}] = {n.epoch, id};
    return id;
  }
  return it->second.second;
}

void VirtualWorld::Send(int client, int actor, int node, Command cmd,
                        std::function<void(Reply)> done) {
  const int physical = groups_[node].master;
  const int server = nodes_[physical].process;
  At(Arrival(client, server), server,
     [this, client, actor, physical, server, cmd = std::move(cmd), done = std::move(done)] {
       Reply reply;
       Node& n = nodes_[physical];
       if (!n.up) {
         reply = Reply::Error("ERR locksim: connection refused by " + ProcessName(server) +
                              " (node down)");
       } else {
         reply = n.redis->Execute(ConnectionOf(actor, physical), cmd, NodeMillis(physical));
         Replicate(physical);
         ScheduleCron(physical);
         // TODO(issue 4): deliver pub/sub pushes to subscribed clients.
         for (auto& [key, conn] : conns_) {
           if (key.second == physical && conn.first == n.epoch) n.redis->TakePushes(conn.second);
         }
       }
       At(Arrival(server, client), client, [done, reply = std::move(reply)] { done(reply); });
     });
}

void VirtualWorld::Replicate(int physical) {
  std::vector<Command> effects = nodes_[physical].redis->TakeReplicationStream();
  if (effects.empty()) return;
  const Node& master = nodes_[physical];
  for (int member : groups_[master.group].members) {
    Node& replica = nodes_[member];
    if (replica.replica_of != physical) continue;
    // The replication link is a TCP stream: FIFO, after the lag.
    Nanos& last = link_last_[{master.process, replica.process}];
    last = std::max(last, now_ + options_.replication_lag);
    const int epoch = replica.epoch;
    const int master_epoch = master.epoch;
    const int link = replica.link_epoch;
    // The lag stands for the master's output buffer and the wire: if the
    // master dies first, or the link is cut (a failover re-points the
    // replica), what was not delivered is lost.
    At(last, replica.process, [this, physical, master_epoch, member, epoch, link, effects] {
      Node& r = nodes_[member];
      if (!r.up || r.epoch != epoch) return;  // the replica restarted: it resyncs
      if (nodes_[physical].epoch != master_epoch || r.link_epoch != link) return;
      for (const Command& c : effects) r.redis->ApplyReplicated(c, NodeMillis(member));
      ScheduleCron(member);
    });
  }
}

void VirtualWorld::ScheduleCron(int physical) {
  Node& n = nodes_[physical];
  if (n.cron_pending || !n.up || !n.redis->HasCronWork()) return;
  n.cron_pending = true;
  const Nanos period = std::chrono::milliseconds(VirtualRedis::kCronPeriodMs);
  const Nanos next = (now_ / period + 1) * period;
  At(next, n.process, [this, physical] {
    Node& node = nodes_[physical];
    node.cron_pending = false;
    if (!node.up) return;
    node.redis->Cron(NodeMillis(physical), process_random(node.process));
    Replicate(physical);
    ScheduleCron(physical);
  });
}

void VirtualWorld::CrashNode(int physical, bool power_loss) {
  Node& n = nodes_[physical];
  if (!n.up) return;
  n.redis->Crash(power_loss);
  n.up = false;
  ++n.epoch;
}

void VirtualWorld::RestartNode(int physical) {
  Node& n = nodes_[physical];
  if (n.up) return;
  n.up = true;
  n.redis->Restart(NodeMillis(physical));
  if (n.replica_of >= 0) {
    Repoint(physical, n.replica_of, /*resync=*/true);
  } else {
    // A master that comes back (empty, or with what its persistence kept)
    // is the reference again: its replicas resynchronise from it, which is
    // how a restart without persistence wipes them too.
    for (int member : groups_[n.group].members) {
      if (nodes_[member].replica_of == physical) Repoint(member, physical, /*resync=*/true);
    }
  }
  ScheduleCron(physical);
}

void VirtualWorld::Repoint(int member, int master, bool resync) {
  Node& m = nodes_[member];
  m.replica_of = master;
  ++m.link_epoch;
  m.redis->SetReplica(master >= 0);
  if (resync && master >= 0 && m.up && nodes_[master].up) {
    m.redis->LoadFrom(*nodes_[master].redis);
  }
}

int VirtualWorld::Failover(int group) {
  Group& g = groups_[group];
  const int old_master = g.master;
  int promoted = -1;
  for (int member : g.members) {
    if (member != old_master && nodes_[member].up) {
      promoted = member;
      break;
    }
  }
  if (promoted < 0) return -1;
  // Promotion cuts the promoted replica's link: what the old master had not
  // delivered yet is lost (F7). The rest of the group follows the new
  // master with a full resync (Sentinel reconfigures them); the old master,
  // if it is still running (a partition, not a crash), is demoted and
  // resynced, losing its unreplicated writes; if it is down, it is resynced
  // when it comes back.
  Repoint(promoted, -1, /*resync=*/false);
  for (int member : g.members) {
    if (member != promoted) Repoint(member, promoted, /*resync=*/true);
  }
  g.master = promoted;
  ScheduleCron(promoted);  // a master expires keys itself from now on
  return promoted;
}

}  // namespace locksim
