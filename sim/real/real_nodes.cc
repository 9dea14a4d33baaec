// RealWorld's node and link faults (World, sim/world/world.h), by real means:
//   pause    SIGSTOP, then SIGCONT when it ends
//   crash    kill -9 (the folder, and what persistence wrote to it, stays),
//            and its proxy links cut, so what was in flight is lost
//   restart  the same binary, port, folder and configuration; a former
//            master whose group failed over comes back as a replica
//   failover SENTINEL FAILOVER on a real redis-sentinel, then clients go
//            to the master Sentinel reports once it has switched
//   clock    the server's clock shim (sim/clockshim): offset, jump, drift
//   expire   DEL or PEXPIRE through an admin connection
#include <hiredis/hiredis.h>

#include <algorithm>

#include "sim/core/errors.h"
#include "sim/real/hiredis_reply.h"
#include "sim/core/interrupt.h"
#include "sim/real/real_world.h"

namespace locksim {
namespace {

// One command on a short-lived connection, bounded by `timeout`; an error
// reply if the server cannot be reached or does not answer in time.
Reply Admin(int port, const std::vector<std::string>& cmd,
            Nanos timeout = std::chrono::milliseconds(500)) {
  const auto us = duration_cast<std::chrono::microseconds>(timeout).count();
  timeval tv{static_cast<time_t>(us / 1000000), static_cast<suseconds_t>(us % 1000000)};
  redisContext* c = redisConnectWithTimeout("127.0.0.1", port, tv);
  if (c == nullptr || c->err) {
    std::string why = c ? c->errstr : "out of memory";
    if (c) redisFree(c);
    return Reply::Error("ERR locksim: cannot reach 127.0.0.1:" + std::to_string(port) + ": " + why);
  }
  redisSetTimeout(c, tv);
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const std::string& a : cmd) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  auto* r = static_cast<redisReply*>(
      redisCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lens.data()));
  Reply out = r != nullptr ? ReplyFromHiredis(r)
                           : Reply::Error(std::string("ERR locksim: no answer: ") + c->errstr);
  if (r != nullptr) freeReplyObject(r);
  redisFree(c);
  return out;
}

std::string GroupName(int group) { return "group" + std::to_string(group); }

// Waits (a blocking wait, at set-up only) until `ready` holds, for `limit`.
bool WaitUntil(const std::function<bool()>& ready, Nanos limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (ready()) return true;
    InterruptGuard::Poll(nullptr, 0, std::chrono::milliseconds(10));
  }
  return ready();
}

}  // namespace

std::vector<std::string> RealWorld::ReplicaArgs(int physical, int master) {
  return {"--replicaof", "127.0.0.1",
          std::to_string(PortFor(nodes_[physical].process, master))};
}

void RealWorld::StartSentinels(const WorldOptions& options) {
  // Replication first: a sentinel learns a group's replicas from its
  // master's INFO, so they must be attached when it starts.
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].replica_of < 0) continue;
    const int port = nodes_[i].server->port();
    if (!WaitUntil([&] {
          return Admin(port, {"INFO", "replication"}).ToString().find("master_link_status:up") !=
                 std::string::npos;
        }, std::chrono::seconds(10))) {
      throw HarnessError(NodeName(static_cast<int>(i)) + " (127.0.0.1:" + std::to_string(port) +
                         ") did not link to its master within 10s");
    }
  }
  // Three sentinels, quorum two, as a production deployment has. Their own
  // failure detection keeps Redis's default (30 s); a scenario's failover
  // fault forces the promotion at its time (SENTINEL FAILOVER).
  std::string config = "sentinel resolve-hostnames no\n";
  for (size_t g = 0; g < groups_.size(); ++g) {
    const std::string name = GroupName(static_cast<int>(g));
    config += "sentinel monitor " + name + " 127.0.0.1 " +
              std::to_string(nodes_[groups_[g].master].server->port()) + " 2\n";
    config += "sentinel down-after-milliseconds " + name + " 30000\n";
    config += "sentinel failover-timeout " + name + " 60000\n";
    config += "sentinel parallel-syncs " + name + " 1\n";
  }
  for (int i = 0; i < 3; ++i) {
    RedisServerOptions o;
    o.binary = options.redis_sentinel;
    o.config_text = config;
    sentinels_.push_back(RedisServer::Start(o));
  }
  // Each sentinel must know each group's replicas before it can promote one.
  for (auto& sentinel : sentinels_) {
    for (size_t g = 0; g < groups_.size(); ++g) {
      const int port = sentinel->port();
      const std::string name = GroupName(static_cast<int>(g));
      const size_t want = groups_[g].members.size() - 1;
      if (!WaitUntil([&] {
            Reply r = Admin(port, {"SENTINEL", "REPLICAS", name});
            if (r.type != Reply::Type::kArray || r.elements.size() < want) return false;
            const std::string text = r.ToString();
            return text.find("disconnected") == std::string::npos &&
                   text.find("s_down") == std::string::npos;
          }, std::chrono::seconds(10))) {
        throw HarnessError("redis-sentinel on 127.0.0.1:" + std::to_string(port) +
                           " did not discover the replicas of " + name + " within 10s");
      }
    }
  }
}

void RealWorld::PauseNode(int physical, Nanos until) {
  RedisServer* server = nodes_[physical].server.get();
  server->Pause();
  AtFirst(until, nemesis(), [server] { server->Resume(); });
}

void RealWorld::CrashNode(int physical, bool power_loss) {
  if (power_loss) {
    // kill -9 keeps what the kernel has buffered; losing it needs a machine
    // that loses power. Nemesis::CheckSupported refuses it before a run.
    throw HarnessError("a power loss cannot be carried out on --backend real");
  }
  // The machine dies, not just the process: what its links still carry
  // (a replication stream the proxy is delaying, say) is lost with it,
  // instead of being flushed as the kernel would for a killed process.
  for (const auto& [key, link] : links_) {
    if (key.second == physical || key.first == nodes_[physical].process) {
      proxy_.CutConnections(link);
    }
  }
  nodes_[physical].server->Kill();
}

void RealWorld::RestartNode(int physical) {
  Node& n = nodes_[physical];
  const int master = MasterOf(n.group);
  std::vector<std::string> extra;
  if (master == physical) {
    extra = {"--replicaof", "no", "one"};
    n.replica_of = -1;
  } else {
    extra = ReplicaArgs(physical, master);
    n.replica_of = master;
  }
  n.server->Restart(extra);
  Subscribe(physical);
}

void RealWorld::Failover(int group, std::function<void(int)> done) {
  const int old = MasterOf(group);
  if (sentinels_.empty()) {
    done(-1);  // no replicas, no sentinel: nothing to promote
    return;
  }
  // OK, or -INPROG when the sentinels already started one themselves.
  Admin(sentinels_.front()->port(), {"SENTINEL", "FAILOVER", GroupName(group)});
  AwaitSwitch(group, old, now_ + std::chrono::seconds(30), std::move(done));
}

void RealWorld::AwaitSwitch(int group, int old, Nanos deadline, std::function<void(int)> done) {
  Reply r = Admin(sentinels_.front()->port(),
                  {"SENTINEL", "GET-MASTER-ADDR-BY-NAME", GroupName(group)});
  int promoted = -1;
  if (r.type == Reply::Type::kArray && r.elements.size() == 2) {
    const int port = std::atoi(r.elements[1].str.c_str());
    for (int member : groups_[group].members) {
      if (member != old && nodes_[member].server->port() == port) promoted = member;
    }
  }
  if (promoted < 0 && now_ < deadline) {
    At(now_ + std::chrono::milliseconds(10), nemesis(),
       [this, group, old, deadline, done = std::move(done)]() mutable {
         AwaitSwitch(group, old, deadline, std::move(done));
       });
    return;
  }
  if (promoted >= 0) {
    groups_[group].master = promoted;
    for (int member : groups_[group].members) {
      nodes_[member].replica_of = member == promoted ? -1 : promoted;
    }
  }
  done(promoted);
}

void RealWorld::NodeClockChanged(int physical) {
  const int p = nodes_[physical].process;
  ClockControl* clock = nodes_[physical].server->clock();
  if (clock == nullptr) return;
  clock->Move(LocalNow(p) - LocalNow(nemesis()), Clock(p).drift_ppm);
}

void RealWorld::ExpireKey(int physical, const std::string& key, std::optional<Nanos> ttl) {
  const int port = nodes_[physical].server->port();
  if (ttl) {
    Admin(port, {"PEXPIRE", key, std::to_string(std::max<int64_t>(
                                     0, duration_cast<Millis>(*ttl).count()))});
  } else {
    Admin(port, {"DEL", key});
  }
}

// Link faults act on the proxy links between the two processes: a
// client's links to a node, a replica's replication link to its master.
void RealWorld::SetPartitioned(int a, int b, bool partitioned) {
  FaultsBetween(a, b).partitioned = partitioned;
  ApplyBetween(a, b);
}

void RealWorld::SetExtraLatency(int a, int b, Nanos extra) {
  FaultsBetween(a, b).extra = extra;
  ApplyBetween(a, b);
}

void RealWorld::SetLoss(int a, int b, int64_t percent) {
  if (percent > 0) loss_seen_ = true;
  FaultsBetween(a, b).loss_percent = percent;
  ApplyBetween(a, b);
}

void RealWorld::HealAll() {
  faults_.clear();
  for (const auto& [key, link] : links_) ApplyFaults(key.first, key.second);
}

void RealWorld::ApplyBetween(int a, int b) {
  const int pa = PhysicalOf(a), pb = PhysicalOf(b);
  if (pb >= 0) ApplyFaults(a, pb);
  if (pa >= 0) ApplyFaults(b, pa);
}

}  // namespace locksim
