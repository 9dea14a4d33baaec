#include "sim/world/virtual_world.h"

#include <algorithm>

#include "sim/core/errors.h"

namespace locksim {
VirtualWorld::VirtualWorld(const WorldOptions& options)
    : World(options.seed, kVirtualEpoch), options_(options) {
  for (int g = 0; g < options.nodes; ++g) {
    Group group;
    for (int r = 0; r <= options.replicas; ++r) {
      const int physical = static_cast<int>(nodes_.size());
      // "redis0", and its replicas "redis0r1", "redis0r2"...
      const std::string name = "redis" + std::to_string(g) + (r == 0 ? "" : "r" + std::to_string(r));
      Node n{AddProcess(name), g, std::make_unique<VirtualRedis>()};
      n.redis->SetScriptStatePool(options.script_states);
      // Writes propagate only where something reads them: replicas, the AOF.
      n.redis->SetPropagation(options.replicas > 0 ||
                              options.persistence == Persistence::kAofAlways ||
                              options.persistence == Persistence::kAofEverySec);
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

int VirtualWorld::PhysicalOf(int process) const {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].process == process) return static_cast<int>(i);
  }
  return -1;
}

Nanos& VirtualWorld::GrowLinkLast(size_t from, size_t to) {
  if (link_last_.size() <= from) link_last_.resize(from + 1);
  std::vector<Nanos>& row = link_last_[from];
  if (row.size() <= to) row.resize(to + 1, Nanos{0});
  return row[to];
}

Nanos VirtualWorld::Arrival(int from, int to, uint32_t id) {
  Nanos latency(
      network_random().Between(options_.latency_min.count(), options_.latency_max.count()));
  if (chooser() != nullptr) {
    latency = chooser()->Latency(
        now_, id == kNoMessage ? ProcessName(from) + "->" + ProcessName(to) : WorldEventStreamName(id),
        latency);
  }
  auto it = links_.empty() ? links_.end() : links_.find({from, to});
  if (it != links_.end()) {
    latency += it->second.extra;
    // A lost segment is resent after the retransmission timeout (200 ms on
    // Linux, doubling each time), and holds up what follows on the stream.
    Nanos rto = std::chrono::milliseconds(200);
    while (it->second.loss_percent > 0 &&
           static_cast<int64_t>(network_random().Between(0, 99)) < it->second.loss_percent &&
           rto < std::chrono::seconds(120)) {
      latency += rto;
      rto *= 2;
    }
  }
  Nanos& last = LinkLast(from, to);
  last = std::max(last, now_ + latency);
  return last;
}

void VirtualWorld::Transmit(int from, int to, uint32_t id) {
  auto it = links_.empty() ? links_.end() : links_.find({from, to});
  if (it != links_.end() && it->second.partitioned) {
    it->second.held.push_back(Held{nullptr, id});
    return;
  }
  AtWorldEvent(Arrival(from, to, id), to, id);
}

void VirtualWorld::SetPartitioned(int a, int b, bool partitioned) {
  for (auto key : {std::make_pair(a, b), std::make_pair(b, a)}) {
    Link& link = links_[key];
    link.partitioned = partitioned;
    if (!partitioned) Heal(key, link);
  }
}

void VirtualWorld::Heal(std::pair<int, int> key, Link& link) {
  link.partitioned = false;
  std::vector<Held> held = std::move(link.held);
  link.held.clear();
  for (Held& h : held) {
    const Nanos at = Arrival(key.first, key.second, h.deliver ? kNoMessage : h.message);
    if (h.deliver) {
      At(at, key.second, std::move(h.deliver));
    } else {
      AtWorldEvent(at, key.second, h.message);
    }
  }
}

void VirtualWorld::SetExtraLatency(int a, int b, Nanos extra) {
  links_[{a, b}].extra = extra;
  links_[{b, a}].extra = extra;
}

void VirtualWorld::SetLoss(int a, int b, int64_t percent) {
  links_[{a, b}].loss_percent = percent;
  links_[{b, a}].loss_percent = percent;
}

void VirtualWorld::HealAll() {
  for (auto& [key, link] : links_) {
    link.extra = Nanos{0};
    link.loss_percent = 0;
    if (link.partitioned) Heal(key, link);
  }
}

int& VirtualWorld::GrowGenerations(size_t at) {
  generations_.resize(at + 1, 0);
  return generations_[at];
}

VirtualWorld::Conn& VirtualWorld::GrowConns(size_t at) {
  conns_.resize(at + 1);
  return conns_[at];
}

void VirtualWorld::Abandon(int actor, int node) {
  ++GenerationOf(actor, node);
  const int client = static_cast<size_t>(actor) < client_of_.size() ? client_of_[actor] : -1;
  for (int physical : groups_[node].members) {
    // The next connection is a new TCP stream: what the closed one still
    // had to resend (a lost segment, backing off) no longer holds it up.
    if (client >= 0) {
      LinkLast(client, nodes_[physical].process) = Nanos{0};
      LinkLast(nodes_[physical].process, client) = Nanos{0};
    }
    Conn& c = ConnOf(actor, physical);
    if (!c.open) continue;
    if (c.epoch == nodes_[physical].epoch) nodes_[physical].redis->Disconnect(c.id);
    c.open = false;
  }
}

void VirtualWorld::WatchKeys(std::vector<std::string> keys) {
  // What was seen of a key watched before stays with it.
  for (std::vector<Observed>& seen : observed_) {
    std::vector<Observed> kept(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      for (size_t j = 0; j < watched_.size() && j < seen.size(); ++j) {
        if (watched_[j] == keys[i]) kept[i] = seen[j];
      }
      kept[i].look_at = Nanos{-1};  // planned anew below
    }
    seen = std::move(kept);
  }
  watched_ = std::move(keys);
  for (size_t physical = 0; physical < observed_.size(); ++physical) {
    for (size_t k = 0; k < watched_.size(); ++k) LookAtExpiry(static_cast<int>(physical), k);
  }
}

void VirtualWorld::Observe(int physical, int cause) {
  if (watched_.empty()) return;
  Node& n = nodes_[physical];
  const int64_t now_ms = NodeMillis(physical);
  if (observed_.size() <= static_cast<size_t>(physical)) observed_.resize(physical + 1);
  std::vector<Observed>& seen = observed_[static_cast<size_t>(physical)];
  seen.resize(watched_.size());
  for (size_t k = 0; k < watched_.size(); ++k) {
    Observed& observed = seen[k];
    // What identifies a state is the value and the absolute expiry time
    // (the TTL itself shrinks as time passes). This runs around commands
    // (before one when a key may have expired, after one that wrote), and
    // copies nothing unless the key changed.
    const VirtualRedis::KeyChange change =
        n.redis->LookAtKey(watched_[k], now_ms, &observed.seen);
    if (change == VirtualRedis::KeyChange::kNone && observed.looked) continue;
    const bool first = !observed.looked;
    observed.looked = true;
    const VirtualRedis::KeySeen& now = observed.seen;
    if (first && !now.live) continue;  // nothing to report yet
    // ok: the value changed (or went away); info: only the TTL did.
    history().AddState(now_, MainActor(n.process),
                       first || change == VirtualRedis::KeyChange::kValue ? OpType::kOk
                                                                          : OpType::kInfo,
                       StateOf(watched_[k], now, now_ms), cause);
    LookAtExpiry(physical, k);
  }
}

bool VirtualWorld::TimeMayHaveChanged(int physical, int64_t now_ms) const {
  // Every change to a node's keys but an expiry is observed as it is made
  // (after a command, a replicated write, a fault, cron, a restart), so
  // until a key seen with a TTL is past it, a look finds what the last one
  // found. This look ran before every command; most find nothing.
  if (watched_.empty()) return false;
  if (static_cast<size_t>(physical) >= observed_.size()) return true;
  const std::vector<Observed>& seen = observed_[static_cast<size_t>(physical)];
  if (seen.size() != watched_.size()) return true;
  for (const Observed& o : seen) {
    if (!o.looked) return true;
    // As LookAtKey decides that a key has expired.
    if (o.seen.live && o.seen.expire_ms >= 0 && now_ms > o.seen.expire_ms) return true;
  }
  return false;
}

void VirtualWorld::LookAtExpiry(int physical, size_t k) {
  Observed& observed = observed_[static_cast<size_t>(physical)][k];
  const VirtualRedis::KeySeen& seen = observed.seen;
  if (!seen.live || seen.expire_ms < 0) return;
  // Look again when the key expires, so that the history shows the moment
  // it went, not the next time someone touched it: once the node's clock
  // reads expire_ms + 1 ms, ahead of anything else at that instant (a
  // command that would find it gone).
  // The node's clock gains drift_ppm per million: its `until` passes in
  // until * 10^6 / (10^6 + ppm) of true time (rounded up: never before).
  const int process = nodes_[physical].process;
  const Nanos until = std::max(Millis(seen.expire_ms + 1) - LocalNow(process), Nanos{0});
  const int64_t ppm = Clock(process).drift_ppm;
  const int64_t rate = 1'000'000 + ppm;
  if (rate <= 0) return;  // a clock that does not advance never gets there
  const __int128 scaled = static_cast<__int128>(until.count()) * 1'000'000;
  const Nanos at =  // the usual clock: no 128-bit division
      now_ + (ppm == 0 ? until : Nanos(static_cast<int64_t>((scaled + rate - 1) / rate)));
  // A look already due no later does this one's work: when it runs it
  // looks again for whatever expiry the key has then. So a key set and
  // deleted a thousand times keeps one look in the queue, not a thousand
  // (a lock's every acquisition left one behind, TTL-long: the queue held
  // two hundred of them in a five-client run, and its heap operations were
  // the largest item of the run's profile). A look planned later than the
  // one needed now stays queued and finds nothing when it runs.
  if (observed.look_at >= now_ && observed.look_at <= at) return;
  observed.look_at = at;
  AtFirst(at, nemesis(), [this, physical, k, at] {
    // (WatchKeys resets the pending looks: after it, `k` may be another
    // key or none, and this is one extra look.)
    std::vector<Observed>& seen = observed_[static_cast<size_t>(physical)];
    if (k < seen.size() && seen[k].look_at == at) seen[k].look_at = Nanos{-1};
    if (!nodes_[physical].up) return;
    Observe(physical);
    // Unchanged (a clock running slow, or set back, since the look was
    // planned): look again at the expiry the node's clock now gives.
    if (k < observed_[static_cast<size_t>(physical)].size()) LookAtExpiry(physical, k);
  });
}

void VirtualWorld::NodeClockChanged(int physical) {
  Observe(physical);
  // The expiries are where they were on the node's clock, but no longer
  // where the pending looks expected them in true time.
  if (static_cast<size_t>(physical) >= observed_.size()) return;
  for (size_t k = 0; k < observed_[static_cast<size_t>(physical)].size(); ++k) {
    observed_[static_cast<size_t>(physical)][k].look_at = Nanos{-1};
    LookAtExpiry(physical, k);
  }
}

KeyState VirtualWorld::StateOf(const std::string& key, const VirtualRedis::KeySeen& seen,
                               int64_t now_ms) {
  KeyState s;
  s.key = key;
  s.present = seen.live;
  if (!seen.live) return s;
  s.hash = seen.hash;
  s.str = seen.str;
  s.fields = seen.fields;
  if (seen.expire_ms >= 0) s.pttl_ms = seen.expire_ms - now_ms;
  return s;
}

void VirtualWorld::ExpireKey(int physical, const std::string& key, std::optional<Nanos> ttl) {
  Node& n = nodes_[physical];
  if (!n.up) return;
  Command cmd = ttl ? Command{"PEXPIRE", key, std::to_string(duration_cast<Millis>(*ttl).count())}
                    : Command{"DEL", key};
  if (n.redis->is_replica()) {
    n.redis->ApplyReplicated(cmd, NodeMillis(physical));
  } else {
    n.redis->Execute(cmd, NodeMillis(physical));
    Replicate(physical);
  }
  Observe(physical);
  ScheduleCron(physical);
}

VirtualRedis::ConnId VirtualWorld::ConnectionOf(int actor, int physical) {
  Node& n = nodes_[physical];
  Conn& c = ConnOf(actor, physical);
  if (!c.open || c.epoch != n.epoch) c = Conn{true, n.epoch, n.redis->Connect()};
  return c.id;
}

uint32_t VirtualWorld::NewRequest(int client, int actor, int node, ReplySink* sink) {
  if (free_messages_.empty()) {
    free_messages_.push_back(static_cast<uint32_t>(messages_.size()));
    messages_.emplace_back();
  }
  const uint32_t id = free_messages_.back();
  free_messages_.pop_back();
  if (client_of_.size() <= static_cast<size_t>(actor)) client_of_.resize(actor + 1, -1);
  client_of_[actor] = client;
  Message& m = messages_[id];
  m.client = client;
  m.actor = actor;
  m.node = node;
  m.physical = groups_[node].master;
  m.generation = GenerationOf(actor, node);
  m.replying = false;
  m.sink = sink;
  return id;
}

void VirtualWorld::FreeMessage(uint32_t id) {
  Message& m = messages_[id];
  m.cmd.clear();
  m.shared.reset();
  // Emptied in place: a Reply() built on the stack and assigned was loaded
  // back just after its narrower stores (perf: half of this function).
  m.reply.type = Reply::Type::kNil;
  m.reply.integer = 0;
  m.reply.str.clear();
  m.reply.elements = ReplyElements();
  m.sink = nullptr;
  free_messages_.push_back(id);
}

void VirtualWorld::Send(int client, int actor, int node, Command cmd, ReplySink* sink) {
  const uint32_t id = NewRequest(client, actor, node, sink);
  Message& m = messages_[id];
  m.cmd = std::move(cmd);
  Transmit(client, nodes_[m.physical].process, id);
}

void VirtualWorld::SendShared(int client, int actor, int node, SharedCommand cmd,
                              ReplySink* sink) {
  const uint32_t id = NewRequest(client, actor, node, sink);
  Message& m = messages_[id];
  m.shared = std::move(cmd);
  Transmit(client, nodes_[m.physical].process, id);
}

uint64_t VirtualWorld::WorldEventStream(uint32_t id) const {
  // A message's stream is its connection: (client thread, node).
  const Message& m = messages_[id];
  return (static_cast<uint64_t>(m.actor) + 1) << 32 | static_cast<uint32_t>(m.physical);
}

std::string VirtualWorld::WorldEventStreamName(uint32_t id) const {
  const Message& m = messages_[id];
  const std::string& client = history().name(m.actor);
  const std::string& node = ProcessName(nodes_[m.physical].process);
  return m.replying ? node + "->" + client : client + "->" + node;
}

void VirtualWorld::OnWorldEvent(uint32_t id) {
  if (messages_[id].replying) {
    DeliverReply(id);
  } else {
    ServeRequest(id);
  }
}

void VirtualWorld::ServeRequest(uint32_t id) {
  Message& m = messages_[id];
  // The client closed this connection (a timeout) before the command
  // arrived: it never runs.
  if (GenerationOf(m.actor, m.node) != m.generation) return FreeMessage(id);
  const int physical = m.physical;
  Node& n = nodes_[physical];
  if (!n.up) {
    m.reply = Reply::Error("ERR locksim: connection refused by " + ProcessName(n.process) +
                           " (node down)");
  } else {
    const int64_t now_ms = NodeMillis(physical);
    if (TimeMayHaveChanged(physical, now_ms)) Observe(physical);  // what time alone changed
    const int64_t dirty = n.redis->dirty();
    m.reply = n.redis->Execute(ConnectionOf(m.actor, physical), m.shared ? *m.shared : m.cmd,
                               now_ms);
    // Virtual time cannot wait for a script that does not end: the run
    // stops, naming it.
    if (std::optional<std::string> runaway = n.redis->TakeRunawayScript()) {
      throw HarnessError(ProcessName(n.process) + " ran " + *runaway + " for " +
                         std::to_string(VirtualRedis::kDefaultScriptInstructionLimit / 1000000) +
                         " million Lua instructions without it ending (redis-server would stay "
                         "busy until SCRIPT KILL; a simulation cannot wait for it); " +
                         ReplayText());
    }
    // A command that wrote nothing (a SET NX that lost, a GET: most of a
    // contended run) changed no key, and time was looked at just before.
    if (n.redis->dirty() != dirty) Observe(physical, m.actor);
    Replicate(physical);
    ScheduleCron(physical);
    // TODO(issue 4): deliver pub/sub pushes to subscribed clients.
    if (n.redis->HasPushes()) {
      for (size_t at = static_cast<size_t>(physical); at < conns_.size(); at += nodes_.size()) {
        if (conns_[at].open && conns_[at].epoch == n.epoch) n.redis->TakePushes(conns_[at].id);
      }
    }
  }
  m.replying = true;
  if (!m.shared) {  // a shared command stays the sender's (FreeMessage lets go of it)
    GiveBackCommand(std::move(m.cmd));
    m.cmd.clear();
  }
  Transmit(n.process, m.client, id);
}

void VirtualWorld::DeliverReply(uint32_t id) {
  Message& m = messages_[id];
  ReplySink* sink = m.sink;
  if (GenerationOf(m.actor, m.node) != m.generation) return FreeMessage(id);
  Reply reply = std::move(m.reply);
  FreeMessage(id);  // before Receive, which may send the next command
  sink->Receive(std::move(reply));
}

void VirtualWorld::Replicate(int physical) {
  // Most commands write nothing, and with no replica nothing is kept.
  if (!nodes_[physical].redis->HasReplicationStream()) return;
  std::vector<Command> effects = nodes_[physical].redis->TakeReplicationStream();
  const Node& master = nodes_[physical];
  for (int member : groups_[master.group].members) {
    Node& replica = nodes_[member];
    if (replica.replica_of != physical) continue;
    // The replication link is a TCP stream: FIFO, after the lag.
    Nanos& last = LinkLast(master.process, replica.process);
    last = std::max(last, now_ + options_.replication_lag);
    const int epoch = replica.epoch;
    const int master_epoch = master.epoch;
    const int link = replica.link_epoch;
    // The lag stands for the master's output buffer and the wire: if the
    // master dies first, or the link is cut (a failover re-points the
    // replica), what was not delivered is lost.
    Callback deliver = [this, physical, master_epoch, member, epoch, link, effects] {
      Node& r = nodes_[member];
      if (!r.up || r.epoch != epoch) return;  // the replica restarted: it resyncs
      if (nodes_[physical].epoch != master_epoch || r.link_epoch != link) return;
      for (const Command& c : effects) r.redis->ApplyReplicated(c, NodeMillis(member));
      Observe(member);
      ScheduleCron(member);
    };
    auto cut = links_.find({master.process, replica.process});
    if (cut != links_.end() && cut->second.partitioned) {
      cut->second.held.push_back(Held{std::move(deliver), 0});  // PSYNC catches up after the heal
    } else {
      At(last, replica.process, std::move(deliver));
    }
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
    // A tick changes the keys only by expiring some; else a look finds
    // something new only if time alone did (most ticks of a run).
    const size_t with_ttl = node.redis->KeysWithTtl();
    try {
      node.redis->Cron(NodeMillis(physical), process_random(node.process));
    } catch (const HarnessError& e) {
      InvariantBroken(e.what());  // a virtual Redis out of step with itself
    }
    if (node.redis->KeysWithTtl() != with_ttl ||
        TimeMayHaveChanged(physical, NodeMillis(physical))) {
      Observe(physical);
    }
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
  // Its connections are gone: a client's next command opens a new one.
  for (size_t at = static_cast<size_t>(physical); at < conns_.size(); at += nodes_.size()) {
    conns_[at].open = false;
  }
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
  Observe(physical);
  ScheduleCron(physical);
}

void VirtualWorld::Repoint(int member, int master, bool resync) {
  Node& m = nodes_[member];
  m.replica_of = master;
  ++m.link_epoch;
  m.redis->SetReplica(master >= 0);
  if (resync && master >= 0 && m.up && nodes_[master].up) {
    m.redis->LoadFrom(*nodes_[master].redis);
    Observe(member);
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
