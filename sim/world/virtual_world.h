// VirtualWorld: the deterministic backend. True time jumps from event to
// event and never reads the host clock; Redis nodes are VirtualRedis models
// in this process, each a process of its own with its own clock; messages
// cross a simulated network whose one-way latency is drawn from the run's
// seed, in FIFO order per link (a TCP connection never reorders).
//
// Topology: lock code addresses `groups` (Env node 0..N-1), each one master
// with optional replicas. A group's commands go to its current master, as a
// Sentinel-aware client would send them; Failover() changes that master.
// Each master's write effects reach its replicas after the replication lag,
// in order. Every node runs Redis's cron (active expiry, AOF fsync, RDB
// snapshots) every 100 ms of true time while it is up.
#ifndef LOCKSIM_SIM_WORLD_VIRTUAL_WORLD_H_
#define LOCKSIM_SIM_WORLD_VIRTUAL_WORLD_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/vredis/server.h"
#include "sim/world/world.h"

namespace locksim {

class VirtualWorld : public World {
 public:
  // Reads every field of WorldOptions but the real backend's binaries.
  explicit VirtualWorld(const WorldOptions& options);

  void Send(int client, int actor, int node, Command cmd, ReplySink* sink) override;
  void SendShared(int client, int actor, int node, SharedCommand cmd, ReplySink* sink) override;
  int NodeCount() const override { return static_cast<int>(groups_.size()); }
  void Abandon(int actor, int node) override;

  // World (sim/world/world.h).
  int PhysicalNodeCount() const override { return static_cast<int>(nodes_.size()); }
  int PhysicalOf(int process) const override;
  int node_process(int physical) const override { return nodes_[physical].process; }
  const std::string& NodeName(int physical) const override {
    return ProcessName(nodes_[physical].process);
  }
  int GroupOf(int physical) const override { return nodes_[physical].group; }
  int MasterOf(int group) const override { return groups_[group].master; }
  bool IsUp(int physical) const override { return nodes_[physical].up; }
  void PauseNode(int physical, Nanos until) override { Pause(nodes_[physical].process, until); }
  void CrashNode(int physical, bool power_loss) override;
  void RestartNode(int physical) override;
  void Failover(int group, std::function<void(int)> done) override { done(Failover(group)); }
  void NodeClockChanged(int physical) override;
  void ExpireKey(int physical, const std::string& key, std::optional<Nanos> ttl) override;
  void SetPartitioned(int a, int b, bool partitioned) override;
  void SetExtraLatency(int a, int b, Nanos extra) override;
  void SetLoss(int a, int b, int64_t percent) override;
  void HealAll() override;

  // Promotes the first live replica of `group` to master at once. Returns
  // the new master, or -1.
  int Failover(int group);
  const std::vector<int>& MembersOf(int group) const { return groups_[group].members; }
  VirtualRedis& node(int physical) { return *nodes_[physical].redis; }

  void WatchKeys(std::vector<std::string> keys) override;
  // Records what changed on the node since it was last looked at (after a
  // clock change, say).
  void Observe(int physical, int cause = -1);

 protected:
  void AdvanceTo(Nanos t) override { now_ = t; }
  void OnWorldEvent(uint32_t tag) override;
  void DropWorldEvent(uint32_t tag) override { FreeMessage(tag); }
  uint64_t WorldEventStream(uint32_t tag) const override;
  std::string WorldEventStreamName(uint32_t tag) const override;

 private:
  struct Node {
    int process;
    int group;
    std::unique_ptr<VirtualRedis> redis;
    bool up = true;
    int epoch = 0;          // incremented at each crash: connections reset
    int replica_of = -1;    // physical master while a replica
    int link_epoch = 0;     // bumped whenever the replication link is cut
    bool cron_pending = false;
  };
  struct Group {
    int master;
    std::vector<int> members;
  };
  // A command on its way to a node, then its reply on the way back: plain
  // data in a pool, so that a message costs no allocation of its own. Its
  // index is the tag of the world event that delivers it.
  struct Message {
    int client = 0;
    int actor = 0;
    int node = 0;      // the group addressed
    int physical = 0;  // the master it was sent to
    int generation = 0;  // of the client's connection when it was sent
    bool replying = false;
    Command cmd;
    SharedCommand shared;  // when set, the command (and `cmd` is empty)
    Reply reply;
    ReplySink* sink = nullptr;
  };
  // A new request from thread `actor` of process `client` to group `node`;
  // its command is for the caller to put in.
  uint32_t NewRequest(int client, int actor, int node, ReplySink* sink);
  void FreeMessage(uint32_t id);
  // A request reaching its node; a reply reaching its client.
  void ServeRequest(uint32_t id);
  void DeliverReply(uint32_t id);
  // When message `id`, sent now from process `from` to process `to`,
  // arrives: a latency drawn from the seed, which a chooser may lengthen.
  // kNoMessage: a replication stream's write held by a cut link.
  static constexpr uint32_t kNoMessage = UINT32_MAX;
  Nanos Arrival(int from, int to, uint32_t id);
  // Sends message `id` from process `from` to process `to`: delivered as an
  // event of `to` when it arrives, or later if the link is cut.
  void Transmit(int from, int to, uint32_t id);
  // What a cut link holds until it heals: a message, or (replication) a
  // callback.
  struct Held {
    Callback deliver;
    uint32_t message = 0;
  };
  struct Link {
    bool partitioned = false;
    Nanos extra{0};
    int64_t loss_percent = 0;
    std::vector<Held> held;  // sent while partitioned
  };
  // The connection generation of (client thread, group), and the node
  // connection of (client thread, physical node), grown on first use.
  // A message looks its generation up three times (sent, served,
  // delivered) and its node connection once: the lookup is here, to be
  // inlined, and the growing out of line. GrowGenerations and GrowConns
  // REQUIRE `at` past the table's end (they resize it to end there).
  int& GenerationOf(int actor, int group) {
    const size_t at = static_cast<size_t>(actor) * groups_.size() + static_cast<size_t>(group);
    return at < generations_.size() ? generations_[at] : GrowGenerations(at);
  }
  int& GrowGenerations(size_t at);
  struct Conn {
    bool open = false;
    int epoch = 0;  // the node's epoch when it was opened
    VirtualRedis::ConnId id = 0;
  };
  Conn& ConnOf(int actor, int physical) {
    const size_t at = static_cast<size_t>(actor) * nodes_.size() + static_cast<size_t>(physical);
    return at < conns_.size() ? conns_[at] : GrowConns(at);
  }
  Conn& GrowConns(size_t at);
  void Heal(std::pair<int, int> key, Link& link);
  int64_t NodeMillis(int physical) const {
    return duration_cast<Millis>(LocalNow(nodes_[physical].process)).count();
  }
  VirtualRedis::ConnId ConnectionOf(int actor, int physical);
  // Ships a master's pending write effects to its replicas.
  void Replicate(int physical);
  // Points `member` at a new master (or none) and cuts its old link: what
  // was in flight on it is lost. With `resync`, a full resynchronisation.
  void Repoint(int member, int master, bool resync);
  // Schedules the node's next cron tick (on the 100 ms grid of true time)
  // if it has work and no tick is pending.
  void ScheduleCron(int physical);

  WorldOptions options_;
  std::vector<Node> nodes_;
  std::vector<Group> groups_;
  // FIFO per link: when the last message sent on (from, to) arrives, by
  // process ids, [from][to] (LinkLast); looked up for every message. A
  // table, not a hash map: hashing a key took a 64-bit division by the
  // bucket count, the costliest instruction of a message's way (time
  // profile, perf; callgrind counts it as one instruction).
  std::vector<std::vector<Nanos>> link_last_;
  Nanos& LinkLast(int from, int to) {
    const auto f = static_cast<size_t>(from);
    const auto t = static_cast<size_t>(to);
    if (f < link_last_.size() && t < link_last_[f].size()) return link_last_[f][t];
    return GrowLinkLast(f, t);
  }
  Nanos& GrowLinkLast(size_t from, size_t to);
  std::map<std::pair<int, int>, Link> links_;       // faults per (from, to)
  std::vector<Message> messages_;
  std::vector<uint32_t> free_messages_;
  // By client thread, then group (at actor * groups + group): the
  // connection generation, bumped when the client abandons the connection,
  // which drops what is in flight on it.
  std::vector<int> generations_;
  // actor -> the client process it sends from (set by Send), so that a
  // connection closed by a timeout can leave its stream behind.
  std::vector<int> client_of_;
  std::vector<std::string> watched_;
  // What Observe last saw of a watched key on a node (`looked`: it has
  // looked at least once), and when the world will look again because the
  // key expires then (`look_at`; -1: no look pending).
  struct Observed {
    bool looked = false;
    VirtualRedis::KeySeen seen;
    Nanos look_at{-1};
  };
  // Makes sure the world looks at watched key `k` of the node once the node's
  // clock reads its expiry + 1 ms (if it has one): one pending look per key,
  // not one per state the key went through.
  void LookAtExpiry(int physical, size_t k);
  // Whether a look at the node now (its clock reading `now_ms`) could find
  // a change that nobody observed yet: false when every watched key was
  // looked at and none has an expiry it is past (the look before a command
  // is then skipped).
  bool TimeMayHaveChanged(int physical, int64_t now_ms) const;
  // The history's record of what was seen at node time `now_ms`.
  static KeyState StateOf(const std::string& key, const VirtualRedis::KeySeen& seen,
                          int64_t now_ms);
  // By physical node, then by index in watched_.
  std::vector<std::vector<Observed>> observed_;
  // By client thread, then physical node (at actor * nodes + physical).
  std::vector<Conn> conns_;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_WORLD_VIRTUAL_WORLD_H_
