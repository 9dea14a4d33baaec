// RealWorld: the backend that talks to real redis-server processes. True
// time is the host's monotonic clock since the run started; a client's local
// clock reads the virtual world's calendar (kVirtualEpoch at true time 0)
// plus its offset. Each client process has its
// own hiredis connection to each node, driven asynchronously from one poll()
// loop, so clients contend for real while lock code stays single-threaded.
// A reply that arrives while its client is paused waits in the event queue,
// as it would wait in the socket of a stopped process.
//
// The world owns its servers: per group a master and its replicas (started
// with REPLICAOF), and, when there are replicas, three redis-sentinel
// processes that monitor every group. Every server runs with the clock shim,
// so a node's clock fault moves that server's wall clock. Faults act by real
// means (sim/world/world.h; the node and link faults are in real_nodes.cc).
// It is the one AdapterHost: clients whose lock code is a process of its
// own (sim/real/adapter_lock.h) connect where it says and are read by its
// poll loop.
#ifndef LOCKSIM_SIM_REAL_REAL_WORLD_H_
#define LOCKSIM_SIM_REAL_REAL_WORLD_H_

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/real/proxy.h"
#include "sim/real/redis_server.h"
#include "sim/world/world.h"

struct redisAsyncContext;

namespace locksim {

class RealWorld : public World, public AdapterHost {
 public:
  // Starts every server (and the sentinels) and waits until replication is
  // up; the replication lag is put on the replication links (the proxy).
  // Ignores the virtual network's latencies. Throws InputError when a
  // binary is missing, HarnessError otherwise.
  explicit RealWorld(const WorldOptions& options);
  ~RealWorld() override;

  void Send(int client, int actor, int node, Command cmd, ReplySink* sink) override;
  int NodeCount() const override { return static_cast<int>(groups_.size()); }
  void Abandon(int actor, int node) override;

  // World (sim/world/world.h), by real means.
  int PhysicalNodeCount() const override { return static_cast<int>(nodes_.size()); }
  int PhysicalOf(int process) const override;
  int node_process(int physical) const override { return nodes_[physical].process; }
  const std::string& NodeName(int physical) const override {
    return ProcessName(nodes_[physical].process);
  }
  int GroupOf(int physical) const override { return nodes_[physical].group; }
  int MasterOf(int group) const override { return groups_[group].master; }
  bool IsUp(int physical) const override { return nodes_[physical].server->running(); }
  void PauseNode(int physical, Nanos until) override;
  void CrashNode(int physical, bool power_loss) override;
  void RestartNode(int physical) override;
  void Failover(int group, std::function<void(int)> done) override;
  void NodeClockChanged(int physical) override;
  void ExpireKey(int physical, const std::string& key, std::optional<Nanos> ttl) override;
  void SetPartitioned(int a, int b, bool partitioned) override;
  void SetExtraLatency(int a, int b, Nanos extra) override;
  void SetLoss(int a, int b, int64_t percent) override;
  void HealAll() override;

  // Where process `process` (a client, or a replica) connects to reach
  // physical node `physical` on 127.0.0.1: its own link of the proxy,
  // opened on first use with the faults in force between the two.
  int PortFor(int process, int physical);

  // As the virtual world records them: Redis's keyspace events say when a
  // key changed; a read-only script then reads its value and TTL; the
  // change is put down to the client whose write to that node was in
  // flight (by the value it wrote, when several were). real_observe.cc.
  void WatchKeys(std::vector<std::string> keys) override;
  AdapterHost* adapter_host() override { return this; }
  RedisServer& server(int physical) { return *nodes_[physical].server; }

  // AdapterHost (sim/world/world.h).
  Address NodeAddress(int process, int node) override;
  void WatchFd(int fd, std::function<void()> readable) override;
  void UnwatchFd(int fd) override;
  void RestartClock() override;

 protected:
  void AdvanceTo(Nanos t) override;

 private:
  // One hiredis connection, with the read/write interest hiredis asks for
  // through its event hooks (served by AdvanceTo's poll()).
  struct Conn {
    redisAsyncContext* ac = nullptr;
    bool want_read = false;
    bool want_write = false;
    int node = 0;
  };
  struct Pending;
  struct Node {
    int process;
    int group;
    std::unique_ptr<RedisServer> server;
    int replica_of = -1;  // physical master while a replica
  };
  struct Group {
    int master;
    std::vector<int> members;
  };
  Conn* Connection(int client, int actor, int physical);
  // Writes what hiredis has buffered for `c` now, if it is connected, and
  // notes the time: its reply is polled for a while (AdvanceTo).
  void WriteNow(Conn* c);
  void Attach(Conn* c, redisAsyncContext* ac);
  // A third-party library's own commands and replies (an adapter's links
  // are tapped, ProxyHub::Tap): into the history as that client's redis
  // ops, and into flights_, so that the observer puts its writes down to it.
  void DrainTapped();
  // The observer (real_observe.cc).
  struct Flight {  // a client's command to a node, for attributing changes
    int physical;
    int actor;
    Command cmd;
    Nanos sent;
    Nanos replied;  // -1 while in flight; given up on: when (GaveUp)
    bool given_up = false;   // no answer ever: it may or may not have run
    Nanos retired{-1};       // given up on: when it stopped being a candidate
    bool ok = false;         // answered "+OK"
    bool unchanged = false;  // its answer says it changed nothing (ChangedNothing)
    bool matched = false;    // the cause of a batch of key events (Match)
    uint64_t id = 0;         // its key in flights_, numbered as sent (Fly)
  };
  struct Snapshot {  // a reading of a watched key, and what asked for it
    int physical;
    std::string key;
    std::vector<std::string> events;  // what it reads after; none: the first reading
    Nanos at;                          // when the first of them came

    bool Caused() const { return !events.empty(); }
    // Whether the key went by itself (nobody's doing).
    bool Expired() const {
      return std::any_of(events.begin(), events.end(),
                         [](const std::string& e) { return e == "expired" || e == "evicted"; });
    }
  };
  void Subscribe(int physical);
  void AwaitObservers();
  void ResubscribeLost();
  // Asks the node for the key's state (kSnapshotScript): false when the
  // node's observer connections are gone and it cannot.
  bool Snap(Snapshot snapshot);
  // A reading that will not come, or has: out of snaps_out_ and the counts.
  std::map<uint64_t, Snapshot>::iterator DropReading(std::map<uint64_t, Snapshot>::iterator it);
  static void OnKeyEvent(redisAsyncContext* ac, void* reply, void* privdata);
  // A keyspace event of `key` on `physical`: recorded at once when it says
  // the state (the key is gone), else read after this turn of the loop.
  void OnKeyChange(int physical, const std::string& key, const std::string& event);
  // Sends the readings that this turn's events asked for, one per key.
  void ReadPendingStates();
  struct KeyReadings;
  // One key's queued batch: explained and recorded, or read.
  void ReadQueued(KeyReadings& readings);
  static void OnSnapshot(redisAsyncContext* ac, void* reply, void* privdata);
  // A reading's state, as the node published it on the key's state channel.
  void OnReading(std::string_view message);
  void RecordState(const Snapshot& s, KeyState state);
  // A state on its way into the history (RecordState), in order: it waits
  // while a command that may have written its value is unanswered.
  struct Unrecorded {
    Snapshot s;
    KeyState state;
    OpType type;
    bool find_writer;   // put down to a client (Writer)
    std::string value;  // for Writer: the value written, or the one deleted
    Nanos queued;
  };
  bool AwaitingAnswers(const Unrecorded& u) const;
  void RecordReady();  // records the waiting states that need wait no more
  // When the first waiting state stops waiting for answers: AdvanceTo's poll
  // wakes then. Nanos::max() when none waits.
  Nanos RecordDeadline() const;
  // Who caused a state (an actor), or -1. `read_at`: when it was read.
  int Writer(const Snapshot& s, const std::string& value, bool absent, Nanos read_at);
  int RecentWriter(const Snapshot& s, const std::string& value, bool absent);
  int LateWriter(const Snapshot& s, const std::string& value, bool absent, Nanos read_at);
  // Whether `cmd` can cause one of keyspace events `events` (an EVAL
  // judged by its script, read once: ReadScript).
  bool CanCauseAny(const Command& cmd, const std::vector<std::string>& events);
  struct ScriptReading {
    std::string lower;      // the script in lower case
    bool anything = false;  // it can cause any event
  };
  const ScriptReading& ReadScript(const std::string& script);
  // For Writer and Match: in the order they were sent, those answered
  // within `window` of s.at, in flight, or given up on and not retired.
  std::vector<Flight*> RecentFlights(const Snapshot& s, Nanos window);
  // The state a `set` event announces, when the harness's own command
  // explains it without a reading (real_observe.cc); nullopt: read it.
  const Flight* Match(const Snapshot& s);
  std::optional<KeyState> Explained(const Snapshot& s, const Flight* writer,
                                    const KeyReadings& readings) const;
  // A command sent (Fly), its answer (Answered), or no answer ever: its
  // client gave up on it and closed its connection (GaveUp). For Writer.
  void Fly(uint64_t id, Flight flight);
  void Answered(uint64_t id, const Reply* reply = nullptr);
  void GaveUp(uint64_t id);
  // Link faults in force between two processes (either order).
  struct LinkFaults {
    bool partitioned = false;
    Nanos extra{0};
    int64_t loss_percent = 0;
  };
  LinkFaults& FaultsBetween(int a, int b);
  // Applies the faults between `process` and `physical`'s process to their
  // link, plus the replication lag when it is a replication link.
  void ApplyFaults(int process, int physical);
  void ApplyBetween(int a, int b);
  // Closes a connection a client gave up on (Abandon).
  void Disconnect(std::map<std::pair<int, int>, std::unique_ptr<Conn>>::iterator it);
  int& AbandonsOf(int actor, int node);
  Nanos Elapsed() const;
  static void OnReply(redisAsyncContext* ac, void* reply, void* privdata);
  // The REPLICAOF arguments that make `physical` a replica of `master`.
  std::vector<std::string> ReplicaArgs(int physical, int master);
  void StartSentinels(const WorldOptions& options);
  // Polls the sentinels until group `group`'s master is no longer `old`
  // (or gives up), then sends clients there and calls done.
  void AwaitSwitch(int group, int old, Nanos deadline, std::function<void(int)> done);

  std::chrono::steady_clock::time_point start_;
  Nanos replication_lag_{0};
  bool direct_ = false;  // WorldOptions::direct_client_links
  Nanos reply_spin_{0};  // WorldOptions::reply_spin
  Nanos last_sent_{0};   // true time WriteNow last ran (RestartClock moves it)
  // Declared before the servers and connections, so destroyed after them.
  ProxyHub proxy_;
  std::map<std::pair<int, int>, int> links_;  // (process, physical) -> proxy link
  std::map<std::pair<int, int>, LinkFaults> faults_;  // (lower, higher process)
  std::vector<Node> nodes_;
  std::vector<Group> groups_;
  std::vector<std::unique_ptr<RedisServer>> sentinels_;
  // (client thread, physical node) -> its connection
  std::map<std::pair<int, int>, std::unique_ptr<Conn>> conns_;
  bool dropping_replies_ = false;  // while closing connections on purpose
  // How many times each (actor, logical node) call was given up on
  // (Abandon), by actor then node: a reply read before and delivered after
  // is dropped.
  std::vector<std::vector<int>> abandons_;
  // Subscriptions and first readings not yet answered (AwaitObservers),
  // and whether it is waiting for them (true time stays 0 meanwhile).
  int awaiting_observers_ = 0;
  bool settling_ = false;
  std::vector<std::string> watched_;
  // (physical, 0 subscriber / 1 reader) -> the observer's connections
  std::map<std::pair<int, int>, std::unique_ptr<Conn>> observers_;
  // (physical, key) -> last recorded state and its absolute expiry (ms, -1 none)
  struct Observed {
    KeyState state;
    int64_t expiry;
  };
  std::map<std::pair<int, std::string>, Observed> observed_;
  // (physical, key) -> the observer's readings of that key on that node
  struct KeyReadings {
    std::optional<Snapshot> queued;  // what this turn's events asked for
    int out = 0;                     // sent, its state not come yet
    Nanos last_set{-1};              // when its latest `set` or `expire` came
    Nanos before_batch{-1};          // last_set before the queued batch's first
  };
  std::map<std::pair<int, std::string>, KeyReadings> readings_;
  // Readings sent whose state has not come yet, by id (Snap, OnReading).
  std::map<uint64_t, Snapshot> snaps_out_;
  uint64_t last_reading_ = 0;
  std::deque<Unrecorded> unrecorded_;
  // ReadScript's readings, by script: a lock sends the same few scripts all
  // run long, and lowering and searching one again at every event was a
  // tenth of the harness's instructions (callgrind of real-cycles).
  std::unordered_map<std::string, ScriptReading> script_readings_;
  // id -> a client's command that changes may be put down to: those not
  // answered yet (open_flights_) and those answered in the last second
  // (answered_, in the order of their answers, so by time), which a reading
  // that lands late may still need. Kept apart so that Writer looks at
  // what is recent, not at every command of the last second (some 20 000
  // on Redlock's five nodes; looking each recent one up in a tree of them
  // was an eighth of the harness's time, perf). A node-based hash map, so
  // that answered_ can point into it.
  std::unordered_map<uint64_t, Flight> flights_;
  std::set<uint64_t> open_flights_;
  // What RecentFlights filters on, copied out of the flight so that the
  // walk over the last 5 ms reads one deque and chases no pointer for the
  // flights of other nodes.
  struct AnsweredFlight {
    Flight* flight;  // in flights_ (a node-based map: it does not move)
    int physical;
    Nanos replied;
    bool has_cmd;
  };
  std::deque<AnsweredFlight> answered_;
  // Commands given up on (GaveUp), in that order: candidates until retired.
  std::deque<Flight*> given_up_;
  // A loss fault was applied: the proxy may hold a lost chunk for its
  // retransmission (up to 2 minutes) while later connections get through,
  // so a command given up on is not retired by a later answer.
  bool loss_seen_ = false;
  uint64_t next_flight_ = 0;
  std::map<int, std::function<void()>> watched_fds_;  // fd -> readable
  std::map<int, std::pair<int, int>> tapped_links_;  // link -> (process, physical)
  // (link, connection) -> its tapped commands not yet answered (flights_ ids)
  std::map<std::pair<int, uint64_t>, std::deque<uint64_t>> tap_flights_;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_REAL_REAL_WORLD_H_
