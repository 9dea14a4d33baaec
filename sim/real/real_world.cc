#include "sim/real/real_world.h"

#include <poll.h>

#include <cctype>

#include <hiredis/async.h>
#include <hiredis/hiredis.h>

#include "sim/errors.h"
#include "sim/real/hiredis_reply.h"
#include "sim/real/interrupt.h"

namespace locksim {
namespace {

Nanos WallClock() {
  return duration_cast<Nanos>(std::chrono::system_clock::now().time_since_epoch());
}

bool IsSubscribe(const std::string& name) {
  std::string upper;
  for (char ch : name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return upper == "SUBSCRIBE" || upper == "PSUBSCRIBE" || upper == "SSUBSCRIBE" || upper == "MONITOR";
}

}  // namespace

// One client's connection to one node, with the read/write interest hiredis
// asks for through its event hooks (the same hooks its libevent or ae
// adapters implement; here poll() serves them).
struct RealWorld::Conn {
  redisAsyncContext* ac = nullptr;
  bool want_read = false;
  bool want_write = false;
  int node = 0;
};

struct RealWorld::Pending {
  RealWorld* world;
  int client;
  int node;
  std::function<void(Reply)> done;
};

RealWorld::RealWorld(const Options& options)
    : Runtime(options.seed, WallClock()),
      ports_(options.ports),
      start_(std::chrono::steady_clock::now()) {
  for (size_t i = 0; i < ports_.size(); ++i) AddProcess("redis" + std::to_string(i));
}

RealWorld::~RealWorld() {
  shutting_down_ = true;
  for (auto& [key, conn] : conns_) {
    if (conn->ac != nullptr) redisAsyncFree(conn->ac);  // runs pending callbacks
  }
}

Nanos RealWorld::Elapsed() const {
  return duration_cast<Nanos>(std::chrono::steady_clock::now() - start_);
}

RealWorld::Conn* RealWorld::Connection(int actor, int node) {
  auto& slot = conns_[{actor, node}];
  if (slot && slot->ac != nullptr) return slot.get();
  slot = std::make_unique<Conn>();
  slot->node = node;
  redisAsyncContext* ac = redisAsyncConnect("127.0.0.1", ports_[node]);
  if (ac == nullptr || ac->err) {
    std::string why = ac ? ac->errstr : "out of memory";
    if (ac) redisAsyncFree(ac);
    throw HarnessError("cannot connect to redis-server on 127.0.0.1:" +
                       std::to_string(ports_[node]) + ": " + why);
  }
  Conn* c = slot.get();
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
  return c;
}

void RealWorld::OnReply(redisAsyncContext* ac, void* reply, void* privdata) {
  auto* p = static_cast<Pending*>(privdata);
  RealWorld* world = p->world;
  if (!world->shutting_down_) {
    Reply r = reply != nullptr
                  ? ReplyFromHiredis(static_cast<redisReply*>(reply))
                  : Reply::Error("ERR locksim: connection to node " + std::to_string(p->node) +
                                 " lost" + (ac && ac->errstr[0] ? std::string(": ") + ac->errstr : ""));
    world->now_ = std::max(world->now_, world->Elapsed());
    world->At(world->now_, p->client,
              [done = std::move(p->done), r = std::move(r)] { done(r); });
  }
  delete p;
}

void RealWorld::Send(int client, int actor, int node, Command cmd,
                     std::function<void(Reply)> done) {
  if (!cmd.empty() && (IsSubscribe(cmd[0]))) {
    // hiredis keeps calling a SUBSCRIBE callback for every message, which
    // Env::Call's one-reply contract cannot serve; pub/sub needs its own API.
    At(now_, client, [done = std::move(done)] {
      done(Reply::Error("ERR locksim: SUBSCRIBE through Env::Call is not supported"));
    });
    return;
  }
  Conn* c = Connection(actor, node);
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const std::string& a : cmd) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  auto* pending = new Pending{this, client, node, std::move(done)};
  if (redisAsyncCommandArgv(c->ac, &RealWorld::OnReply, pending,
                            static_cast<int>(argv.size()), argv.data(),
                            lens.data()) != REDIS_OK) {
    Reply err = Reply::Error("ERR locksim: cannot send to node " + std::to_string(node));
    At(now_, client, [d = std::move(pending->done), err] { d(err); });
    delete pending;
  }
}

RealWorld::Address RealWorld::NodeAddress(int process, int node) const {
  (void)process;
  return Address{"127.0.0.1", ports_[node]};
}

void RealWorld::WatchFd(int fd, std::function<void()> readable) {
  watched_[fd] = std::move(readable);
}

void RealWorld::UnwatchFd(int fd) { watched_.erase(fd); }

void RealWorld::RestartClock() {
  if (now_ != Nanos{0}) InvariantBroken("RealWorld::RestartClock after the run started");
  start_ = std::chrono::steady_clock::now();
  SetUnixStart(WallClock());
}

void RealWorld::AdvanceTo(Nanos t) {
  for (;;) {
    now_ = Elapsed();
    if (now_ >= t) return;
    std::vector<pollfd> fds;
    std::vector<Conn*> owners;
    for (auto& [key, conn] : conns_) {
      if (conn->ac == nullptr || !(conn->want_read || conn->want_write)) continue;
      short events = (conn->want_read ? POLLIN : 0) | (conn->want_write ? POLLOUT : 0);
      fds.push_back(pollfd{conn->ac->c.fd, events, 0});
      owners.push_back(conn.get());
    }
    const size_t redis_fds = fds.size();
    for (const auto& [fd, readable] : watched_) fds.push_back(pollfd{fd, POLLIN, 0});
    const int n = InterruptGuard::Poll(fds.data(), fds.size(), t - now_);
    now_ = Elapsed();
    if (n <= 0) continue;  // timeout (or EINTR): loop re-checks the clock
    for (size_t i = redis_fds; i < fds.size(); ++i) {
      auto it = watched_.find(fds[i].fd);
      if (fds[i].revents == 0 || it == watched_.end()) continue;
      std::function<void()> readable = it->second;  // a copy: it may unwatch itself
      readable();
    }
    for (size_t i = 0; i < redis_fds; ++i) {
      Conn* c = owners[i];
      if (fds[i].revents == 0 || c->ac == nullptr) continue;
      if (fds[i].revents & (POLLIN | POLLERR | POLLHUP)) redisAsyncHandleRead(c->ac);
      if (c->ac != nullptr && (fds[i].revents & POLLOUT)) redisAsyncHandleWrite(c->ac);
    }
    return;  // replies may have scheduled events for now
  }
}

}  // namespace locksim
