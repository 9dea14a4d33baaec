// World: the one interface a run sees of its backend. It is the Runtime
// (the event loop, processes, clocks, history; sim/world/runtime.h) plus the
// Redis deployment as the runner and the nemesis act on it, so that one
// fault means the same thing on each backend:
//   * VirtualWorld (sim/world/virtual_world.h) acts on in-process models
//     and simulated links;
//   * RealWorld (sim/real/real_world.h) acts on redis-server processes by
//     real means: SIGSTOP and SIGCONT, kill -9 and a restart with the
//     scenario's persistence, the clock shim, an admin connection,
//     redis-sentinel, and the loopback proxy on every client's and
//     replica's connection.
// What only one backend can do is a capability asked for by an accessor
// that the other answers with null (adapter_host()), never a cast.
//
// Physical nodes are numbered 0..PhysicalNodeCount()-1: group g's first
// master, then its replicas ("redis0", "redis0r1", ...). Lock code only ever
// addresses groups (Env node 0..N-1), whose commands go to the current
// master. sim/run/make_world.h makes a World from a backend.
#ifndef LOCKSIM_SIM_WORLD_WORLD_H_
#define LOCKSIM_SIM_WORLD_WORLD_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/persistence.h"
#include "sim/core/time.h"
#include "sim/world/runtime.h"

namespace locksim {

class ScriptStatePool;  // sim/vredis/script_lua.h

// How to build a world: the deployment, the same for both backends, and a
// few settings only one of them reads (marked).
struct WorldOptions {
  uint64_t seed = 1;
  int nodes = 1;  // groups: independent masters
  // Virtual backend only: each message's one-way latency, drawn from the
  // seed between these (a real network has its own).
  Nanos latency_min = std::chrono::microseconds(100);
  Nanos latency_max = std::chrono::microseconds(500);
  int replicas = 0;  // per group
  Nanos replication_lag = std::chrono::milliseconds(1);  // master -> replica
  Persistence persistence = Persistence::kNone;
  Nanos rdb_interval = std::chrono::seconds(60);
  // Real backend only: the harness's own client connections go straight
  // to the node instead of through the fault proxy, which would only add
  // two socket hops and a thread's wake-up each way. For a scenario with
  // no fault on a link (partition, heal, delay, drop). Replication links
  // and a third-party client's (tapped) links always cross the proxy.
  bool direct_client_links = false;
  // Real backend only: how long after the harness last sent a command its
  // poll loop keeps polling without sleeping while a reply is due, before
  // it sleeps in ppoll(). On a virtual machine, waking a thread that slept
  // costs more than the round trip itself (docs/performance.md, "Waiting
  // for a reply without sleeping"); 0 sleeps at once.
  Nanos reply_spin = std::chrono::microseconds(200);
  // Real backend only: the binaries it starts.
  std::string redis_server = "redis-server";
  std::string redis_sentinel = "redis-sentinel";
  // Virtual backend only: where the nodes' Lua states come from and go
  // back to (RunOptions::script_states); null: each makes its own.
  ScriptStatePool* script_states = nullptr;
};

// What a client whose lock code runs in a process of its own (an adapter,
// sim/real/adapter_lock.h) needs of its world: where to connect, the poll
// loop to read its replies, and a clock that starts once it is ready. Only
// the real world has it (World::adapter_host()).
class AdapterHost {
 public:
  // Where client `process` reaches node `node`: what a third-party client
  // is told to connect to. Always ask here, never use a port directly: a
  // node's address may differ per client (a proxy in between).
  struct Address {
    std::string host;
    int port = 0;
  };
  virtual Address NodeAddress(int process, int node) = 0;

  // Other descriptors the poll loop serves besides the Redis connections
  // (an adapter's stdout): `readable` runs from the loop when `fd` is
  // readable or closed, and may schedule events for now (At(Now(), ...)),
  // call UnwatchFd, or throw to end the run.
  virtual void WatchFd(int fd, std::function<void()> readable) = 0;
  virtual void UnwatchFd(int fd) = 0;

  // Starts true time (and the unix time it maps to) again from now.
  // REQUIRES: nothing has run yet. For set-up that takes real time before
  // the run (adapter processes starting), so that it does not eat into the
  // scenario's first seconds.
  virtual void RestartClock() = 0;

 protected:
  ~AdapterHost() = default;
};

class World : public Runtime {
 public:
  using Runtime::Runtime;

  // ---- The nodes ----
  virtual int PhysicalNodeCount() const = 0;
  // The physical node whose runtime process is `process`, or -1.
  virtual int PhysicalOf(int process) const = 0;
  virtual int node_process(int physical) const = 0;
  virtual const std::string& NodeName(int physical) const = 0;
  virtual int GroupOf(int physical) const = 0;
  virtual int MasterOf(int group) const = 0;
  virtual bool IsUp(int physical) const = 0;

  // Keys whose state on every node is recorded in the history: a `state`
  // op each time one changes, with the client thread whose command changed
  // it (sim/core/history.h).
  virtual void WatchKeys(std::vector<std::string> keys) = 0;

  // ---- Node faults ----
  // The node runs nothing until true time `until` (a stop-the-world pause,
  // SIGSTOP): its clients' commands wait in its socket.
  virtual void PauseNode(int physical, Nanos until) = 0;
  // A crashed node refuses connections and loses what its persistence
  // policy loses (power_loss: also what was not fsynced).
  virtual void CrashNode(int physical, bool power_loss) = 0;
  // Starts a crashed node again with what its persistence kept. A former
  // master whose group failed over comes back as a replica of the new one.
  virtual void RestartNode(int physical) = 0;
  // Promotes a live replica of `group` to master, as Sentinel does, and
  // calls `done` with the new master (-1: none could be promoted) once
  // clients are sent to it: at once in the virtual world, when Sentinel has
  // switched the master in the real one.
  virtual void Failover(int group, std::function<void(int promoted)> done) = 0;
  // The node's process clock was just changed (Runtime::SetClock): make
  // the node see it (the virtual node expires keys by it; the real one
  // reads it through the clock shim).
  virtual void NodeClockChanged(int physical) = 0;
  // The key disappears from the node now (an operator's DEL, an eviction),
  // or, with `ttl`, gets that TTL; the change replicates.
  virtual void ExpireKey(int physical, const std::string& key, std::optional<Nanos> ttl) = 0;

  // ---- Link faults ----
  // Between two processes (a client or a node each), both ways. A
  // partitioned link holds what is sent on it (TCP keeps resending) and
  // delivers it in order when healed, unless the sender gave up on the
  // connection meanwhile.
  virtual void SetPartitioned(int a, int b, bool partitioned) = 0;
  virtual void SetExtraLatency(int a, int b, Nanos extra) = 0;
  virtual void SetLoss(int a, int b, int64_t percent) = 0;
  virtual void HealAll() = 0;

  // ---- Capabilities of one backend ----
  // Clients in processes of their own (adapters): the real world only.
  virtual AdapterHost* adapter_host() { return nullptr; }
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_WORLD_WORLD_H_
