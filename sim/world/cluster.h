// Cluster: the Redis nodes and the links to them, as the nemesis sees them.
// Both worlds implement it, so that one fault means the same thing on each:
//   * VirtualWorld acts on its in-process models and simulated links;
//   * RealWorld acts on redis-server processes by real means: SIGSTOP and
//     SIGCONT, kill -9 and a restart with the scenario's persistence, the
//     clock shim, an admin connection, redis-sentinel, and the loopback
//     proxy that sits on every client's and replica's connection.
//
// Physical nodes are numbered 0..PhysicalNodeCount()-1: group g's first
// master, then its replicas ("redis0", "redis0r1", ...). Lock code only ever
// addresses groups (Env node 0..N-1), whose commands go to the current
// master.
#ifndef LOCKSIM_SIM_WORLD_CLUSTER_H_
#define LOCKSIM_SIM_WORLD_CLUSTER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "sim/core/time.h"

namespace locksim {

class Cluster {
 public:
  virtual ~Cluster() = default;

  virtual int PhysicalNodeCount() const = 0;
  // The physical node whose runtime process is `process`, or -1.
  virtual int PhysicalOf(int process) const = 0;
  virtual int node_process(int physical) const = 0;
  virtual const std::string& NodeName(int physical) const = 0;
  virtual int GroupOf(int physical) const = 0;
  virtual int MasterOf(int group) const = 0;
  virtual bool IsUp(int physical) const = 0;

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

  // Link faults between two processes (a client or a node each), both ways.
  // A partitioned link holds what is sent on it (TCP keeps resending) and
  // delivers it in order when healed, unless the sender gave up on the
  // connection meanwhile.
  virtual void SetPartitioned(int a, int b, bool partitioned) = 0;
  virtual void SetExtraLatency(int a, int b, Nanos extra) = 0;
  virtual void SetLoss(int a, int b, int64_t percent) = 0;
  virtual void HealAll() = 0;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_WORLD_CLUSTER_H_
