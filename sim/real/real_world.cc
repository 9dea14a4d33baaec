#include "sim/real/real_world.h"

#include <poll.h>
#include <sched.h>

#include <algorithm>
#include <csignal>

#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <nlohmann/json.hpp>

#include "sim/core/errors.h"
#include "sim/real/hiredis_reply.h"
#include "sim/core/interrupt.h"

namespace locksim {
namespace {

bool IsSubscribe(std::string_view name) {
  return CommandNameIs(name, "SUBSCRIBE") || CommandNameIs(name, "PSUBSCRIBE") ||
         CommandNameIs(name, "SSUBSCRIBE") || CommandNameIs(name, "MONITOR");
}

}  // namespace

// A command on its way: what to call with the reply.
struct RealWorld::Pending {
  RealWorld* world;
  int client;
  int node;  // physical
  uint64_t flight;
  std::function<void(Reply)> done;
  int actor;
  int group;     // the logical node
  int abandons;  // AbandonsOf(actor, group) when the command was sent
};

RealWorld::RealWorld(const WorldOptions& options)
    // The clients' clocks read the virtual world's calendar (true time 0 is
    // kVirtualEpoch), so that what a client schedules by its clock (a
    // scheduled job's ticks) lines up with the faults as it does there,
    // instead of with wherever the host's second happened to be. The
    // servers keep the host's wall clock; nothing compares the two.
    : World(options.seed, kVirtualEpoch),
      replication_lag_(options.replication_lag),
      direct_(options.direct_client_links),
      reply_spin_(options.reply_spin),
      proxy_(options.seed) {
  // hiredis writes with plain write(): a command written to a server that
  // just died (or a connection Sentinel closed) must be an error reply, not
  // a SIGPIPE that kills the harness before it stops its other servers.
  // locksim's main does the same; this covers every other embedder (the
  // tests, the bench), now that commands are written as they are sent.
  signal(SIGPIPE, SIG_IGN);
  // Servers first (each with a movable clock), masters before their
  // replicas; then, with replicas, the sentinels.
  for (int g = 0; g < options.nodes; ++g) {
    Group group;
    for (int r = 0; r <= options.replicas; ++r) {
      const int physical = static_cast<int>(nodes_.size());
      const std::string name = "redis" + std::to_string(g) + (r == 0 ? "" : "r" + std::to_string(r));
      RedisServerOptions server;
      server.binary = options.redis_server;
      server.movable_clock = true;
      server.unix_socket = true;  // the observer's way in (Subscribe)
      // A replica's first full sync starts at once, not after Redis's 5 s;
      // keyspace events let the harness record the watched keys' states.
      server.extra_args = {"--repl-diskless-sync-delay", "0", "--notify-keyspace-events", "KA"};
      switch (options.persistence) {
        case Persistence::kNone: break;
        case Persistence::kAofAlways:
          server.extra_args.insert(server.extra_args.end(),
                                   {"--appendonly", "yes", "--appendfsync", "always"});
          break;
        case Persistence::kAofEverySec:
          server.extra_args.insert(server.extra_args.end(),
                                   {"--appendonly", "yes", "--appendfsync", "everysec"});
          break;
        case Persistence::kRdb: {
          const int64_t s = std::max<int64_t>(1, duration_cast<std::chrono::seconds>(options.rdb_interval).count());
          server.extra_args.insert(server.extra_args.end(), {"--save", std::to_string(s) + " 1"});
          break;
        }
      }
      Node n{AddProcess(name), g, nullptr};
      if (r > 0) n.replica_of = group.members.front();
      nodes_.push_back(std::move(n));
      if (r > 0) {
        for (const std::string& a : ReplicaArgs(physical, group.members.front())) {
          server.extra_args.push_back(a);
        }
      }
      nodes_.back().server = RedisServer::Start(server);
      group.members.push_back(physical);
    }
    group.master = group.members.front();
    groups_.push_back(std::move(group));
  }
  if (options.replicas > 0) StartSentinels(options);
  start_ = std::chrono::steady_clock::now();
}

RealWorld::~RealWorld() {
  dropping_replies_ = true;
  for (auto& [key, conn] : conns_) {
    if (conn->ac != nullptr) redisAsyncFree(conn->ac);  // runs pending callbacks
  }
  for (auto& [key, conn] : observers_) {
    if (conn->ac != nullptr) redisAsyncFree(conn->ac);
  }
}

Nanos RealWorld::Elapsed() const {
  return duration_cast<Nanos>(std::chrono::steady_clock::now() - start_);
}

int RealWorld::PhysicalOf(int process) const {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].process == process) return static_cast<int>(i);
  }
  return -1;
}

int RealWorld::PortFor(int process, int physical) {
  auto it = links_.find({process, physical});
  if (it == links_.end()) {
    const int link = proxy_.Open(ProcessName(process) + "->" + NodeName(physical),
                                 nodes_[physical].server->port());
    it = links_.emplace(std::make_pair(process, physical), link).first;
    ApplyFaults(process, physical);
  }
  return proxy_.Port(it->second);
}

RealWorld::LinkFaults& RealWorld::FaultsBetween(int a, int b) {
  return faults_[{std::min(a, b), std::max(a, b)}];
}

void RealWorld::ApplyFaults(int process, int physical) {
  auto it = links_.find({process, physical});
  if (it == links_.end()) return;
  const LinkFaults& f = FaultsBetween(process, nodes_[physical].process);
  const int replica = PhysicalOf(process);
  // The replication stream flows node -> replica: the lag is that way.
  const Nanos lag = replica >= 0 ? replication_lag_ : Nanos{0};
  proxy_.SetPartitioned(it->second, f.partitioned);
  proxy_.SetDelay(it->second, f.extra, f.extra + lag);
  proxy_.SetLoss(it->second, static_cast<int>(f.loss_percent));
}

RealWorld::Conn* RealWorld::Connection(int client, int actor, int physical) {
  auto& slot = conns_[{actor, physical}];
  if (slot && slot->ac != nullptr) return slot.get();
  slot = std::make_unique<Conn>();
  slot->node = physical;
  const int port = direct_ ? nodes_[physical].server->port() : PortFor(client, physical);
  redisAsyncContext* ac = redisAsyncConnect("127.0.0.1", port);
  if (ac == nullptr) throw HarnessError("redisAsyncConnect: out of memory");
  if (ac->err) {
    // Refused at once (a crashed node): the caller answers with an error.
    redisAsyncFree(ac);
    return nullptr;
  }
  Attach(slot.get(), ac);
  return slot.get();
}

void RealWorld::Attach(Conn* c, redisAsyncContext* ac) {
  c->ac = ac;
  ac->ev.data = c;
  ac->ev.addRead = [](void* d) { static_cast<Conn*>(d)->want_read = true; };
  ac->ev.delRead = [](void* d) { static_cast<Conn*>(d)->want_read = false; };
  ac->ev.addWrite = [](void* d) { static_cast<Conn*>(d)->want_write = true; };
  ac->ev.delWrite = [](void* d) { static_cast<Conn*>(d)->want_write = false; };
  ac->ev.cleanup = [](void* d) {
    auto* conn = static_cast<Conn*>(d);
    conn->ac = nullptr;  // hiredis is freeing the context
    conn->want_read = conn->want_write = false;
  };
}

void RealWorld::Disconnect(std::map<std::pair<int, int>, std::unique_ptr<Conn>>::iterator it) {
  if (it->second->ac != nullptr) {
    dropping_replies_ = true;
    redisAsyncFree(it->second->ac);  // pending callbacks run: GaveUp on each
    dropping_replies_ = false;
  }
  conns_.erase(it);
}

int& RealWorld::AbandonsOf(int actor, int node) {
  if (abandons_.size() <= static_cast<size_t>(actor)) abandons_.resize(actor + 1);
  std::vector<int>& of = abandons_[static_cast<size_t>(actor)];
  if (of.size() <= static_cast<size_t>(node)) of.resize(node + 1, 0);
  return of[static_cast<size_t>(node)];
}

void RealWorld::Abandon(int actor, int node) {
  // The client gave up on its connection (a socket timeout): it is closed,
  // and whatever was in flight on it is never delivered, not even a reply
  // already read whose delivery is still queued (OnReply). What it had
  // written may still run on the node (GaveUp).
  ++AbandonsOf(actor, node);
  for (int physical : groups_[node].members) {
    auto it = conns_.find({actor, physical});
    if (it != conns_.end()) Disconnect(it);
  }
}

void RealWorld::OnReply(redisAsyncContext* ac, void* reply, void* privdata) {
  auto* p = static_cast<Pending*>(privdata);
  RealWorld* world = p->world;
  if (!world->dropping_replies_) {
    Reply r = reply != nullptr
                  ? ReplyFromHiredis(static_cast<redisReply*>(reply))
                  : Reply::Error("ERR locksim: connection to " + world->NodeName(p->node) +
                                 " lost" + (ac && ac->errstr[0] ? std::string(": ") + ac->errstr : ""));
    world->now_ = std::max(world->now_, world->Elapsed());
    world->Answered(p->flight, reply != nullptr ? &r : nullptr);
    // Delivered by an event: the client may give up on the call (its
    // timeout, due at the same moment or before) between now and then, and
    // the thread that waited is then gone.
    world->At(world->now_, p->client,
              [world, actor = p->actor, group = p->group, abandons = p->abandons,
               done = std::move(p->done), r = std::move(r)] {
                if (world->AbandonsOf(actor, group) == abandons) done(r);
              });
  } else {
    world->GaveUp(p->flight);
  }
  delete p;
}

void RealWorld::Send(int client, int actor, int node, Command cmd, ReplySink* sink) {
  std::function<void(Reply)> done = [sink](Reply r) { sink->Receive(std::move(r)); };
  if (!cmd.empty() && (IsSubscribe(cmd[0]))) {
    // hiredis keeps calling a SUBSCRIBE callback for every message, which
    // Env::Call's one-reply contract cannot serve; pub/sub needs its own API.
    At(now_, client, [done = std::move(done)] {
      done(Reply::Error("ERR locksim: SUBSCRIBE through Env::Call is not supported"));
    });
    return;
  }
  const int physical = MasterOf(node);
  Conn* c = Connection(client, actor, physical);
  if (c == nullptr) {
    At(now_, client, [done = std::move(done), name = NodeName(physical)] {
      done(Reply::Error("ERR locksim: connection to " + name + " refused"));
    });
    return;
  }
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  argv.reserve(cmd.size());
  lens.reserve(cmd.size());
  for (const std::string& a : cmd) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  const uint64_t flight = next_flight_++;
  auto* pending = new Pending{this,  client, physical, flight, std::move(done),
                              actor, node,    AbandonsOf(actor, node)};
  if (redisAsyncCommandArgv(c->ac, &RealWorld::OnReply, pending,
                            static_cast<int>(argv.size()), argv.data(),
                            lens.data()) != REDIS_OK) {
    Reply err = Reply::Error("ERR locksim: cannot send to " + NodeName(physical));
    At(now_, client, [d = std::move(pending->done), err] { d(err); });
    delete pending;
    return;
  }
  // hiredis has formatted the command into its buffer: the observer keeps
  // it, to put the changes it sees down to their writer.
  if (!watched_.empty()) Fly(flight, Flight{physical, actor, std::move(cmd), now_, Nanos{-1}});
  WriteNow(c);
}

// hiredis only formats a command into its buffer; the bytes leave when the
// socket is next found writable. A connected socket almost always is, so
// they are written now: waiting for the next poll cost a poll() and a turn
// of the loop per command. A write that fails closes the connection, as in
// the loop (its callbacks answer with an error).
void RealWorld::WriteNow(Conn* c) {
  if (c->ac != nullptr && c->want_write && (c->ac->c.flags & REDIS_CONNECTED)) {
    redisAsyncHandleWrite(c->ac);
  }
  last_sent_ = Elapsed();  // its reply is polled for, a while (AdvanceTo)
}

RealWorld::Address RealWorld::NodeAddress(int process, int node) {
  // The group's master now, through the client's own proxy link, which is
  // tapped: what the library sends and receives on it is recorded.
  const int physical = MasterOf(node);
  const int port = PortFor(process, physical);
  const int link = links_.at({process, physical});
  if (tapped_links_.emplace(link, std::make_pair(process, physical)).second) proxy_.Tap(link);
  return Address{"127.0.0.1", port};
}

void RealWorld::DrainTapped() {
  std::vector<ProxyHub::Tapped> tapped = proxy_.TakeTapped();
  if (tapped.empty()) return;
  now_ = std::max(now_, Elapsed());
  for (ProxyHub::Tapped& t : tapped) {
    const auto [process, physical] = tapped_links_.at(t.link);
    const int actor = MainActor(process);
    const int group = GroupOf(physical);
    std::deque<uint64_t>& open = tap_flights_[{t.link, t.conn}];
    switch (t.kind) {
      case ProxyHub::Tapped::Kind::kCommand:
        history().AddCommand(now_, actor, group, t.command);
        if (!watched_.empty()) {
          const uint64_t flight = next_flight_++;
          Fly(flight, Flight{MasterOf(group), actor, std::move(t.command), now_, Nanos{-1}});
          open.push_back(flight);
        }
        break;
      case ProxyHub::Tapped::Kind::kReply:
        if (!open.empty()) {
          Answered(open.front(), &t.reply);  // before the history records the reply
          open.pop_front();
        }
        history().AddReply(now_, actor, OpType::kOk, group, t.reply);
        break;
      case ProxyHub::Tapped::Kind::kUndecodable:
        history().AddAdapterMessage(now_, actor, OpType::kInfo,
                                    nlohmann::json{{"locksim", t.reply.str}}.dump());
        break;
    }
  }
}

void RealWorld::WatchFd(int fd, std::function<void()> readable) {
  watched_fds_[fd] = std::move(readable);
}

void RealWorld::UnwatchFd(int fd) { watched_fds_.erase(fd); }

void RealWorld::RestartClock() {
  if (now_ != Nanos{0}) InvariantBroken("RealWorld::RestartClock after the run started");
  const auto restart = std::chrono::steady_clock::now();
  // The set-up's last write (a first reading) put on the run's clock, as
  // every time is. (Left on the old one it could keep the loop polling for
  // as long as the set-up took; it cannot now, as the set-up waits for
  // every reading's answer and the run's first command writes anew.)
  last_sent_ -= duration_cast<Nanos>(restart - start_);
  start_ = restart;
  SetUnixStart(kVirtualEpoch);
}

void RealWorld::AdvanceTo(Nanos t) {
  for (;;) {
    now_ = Elapsed();
    if (now_ >= t) return;
    std::vector<pollfd> fds;
    std::vector<Conn*> owners;
    const size_t most = conns_.size() + observers_.size() + watched_fds_.size() + 1;
    fds.reserve(most);
    owners.reserve(most);
    bool reply_due = false;  // a command on one of the connections is unanswered
    auto add = [&](Conn* conn) {
      if (conn->ac == nullptr || !(conn->want_read || conn->want_write)) return;
      short events = (conn->want_read ? POLLIN : 0) | (conn->want_write ? POLLOUT : 0);
      fds.push_back(pollfd{conn->ac->c.fd, events, 0});
      owners.push_back(conn);
      reply_due = reply_due || conn->ac->replies.head != nullptr;
    };
    for (auto& [key, conn] : conns_) add(conn.get());
    for (auto& [key, conn] : observers_) add(conn.get());
    const size_t redis_fds = fds.size();
    for (const auto& [fd, readable] : watched_fds_) fds.push_back(pollfd{fd, POLLIN, 0});
    if (!tapped_links_.empty()) fds.push_back(pollfd{proxy_.tapped_fd(), POLLIN, 0});
    // A state waiting for answers (RecordReady) is recorded by its deadline.
    const Nanos until = std::min(t, RecordDeadline());
    // Shortly after a command went out, its reply is polled for without
    // sleeping (WorldOptions::reply_spin): a thread woken from ppoll() on
    // a virtual machine took longer to wake than the round trip took.
    // Between polls the core is offered to whatever waits for it, a server
    // the harness just woke perhaps: without that, a process's Redlock runs
    // after its first ran at 3.4 k cycles/s, not 4.4 k (docs/performance.md).
    int n = 0;
    const Nanos spin_until = std::min(until, last_sent_ + reply_spin_);
    while (reply_due && n == 0 && now_ < spin_until) {
      n = InterruptGuard::Poll(fds.data(), fds.size(), Nanos{0});
      if (n == 0) sched_yield();
      now_ = Elapsed();
    }
    if (n == 0) {
      n = InterruptGuard::Poll(fds.data(), fds.size(), until - now_);
      now_ = Elapsed();
    }
    if (n <= 0) {
      RecordReady();
      continue;  // timeout (or EINTR): loop re-checks the clock
    }
    // First what the proxy decoded: a library's reply is taken from the
    // proxy before the proxy hands it on, so before the adapter's answer
    // that follows from it can be read below.
    if (!tapped_links_.empty()) DrainTapped();
    for (size_t i = redis_fds; i < fds.size(); ++i) {
      if (!tapped_links_.empty() && fds[i].fd == proxy_.tapped_fd()) continue;
      auto it = watched_fds_.find(fds[i].fd);
      if (fds[i].revents == 0 || it == watched_fds_.end()) continue;
      std::function<void()> readable = it->second;  // a copy: it may unwatch itself
      readable();
    }
    for (size_t i = 0; i < redis_fds; ++i) {
      Conn* c = owners[i];
      if (fds[i].revents == 0 || c->ac == nullptr) continue;
      if (fds[i].revents & (POLLIN | POLLERR | POLLHUP)) redisAsyncHandleRead(c->ac);
      if (c->ac != nullptr && (fds[i].revents & POLLOUT)) redisAsyncHandleWrite(c->ac);
    }
    ReadPendingStates();
    RecordReady();  // answers this turn may have settled a waiting state's writer
    ResubscribeLost();
    return;  // replies may have scheduled events for now
  }
}

}  // namespace locksim
