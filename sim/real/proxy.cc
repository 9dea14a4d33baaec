#include "sim/real/proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <list>
#include <utility>

#include <hiredis/hiredis.h>

#include "sim/core/errors.h"
#include "sim/real/hiredis_reply.h"

namespace locksim {
namespace {

constexpr size_t kReadSize = 64 * 1024;
// Bytes the proxy holds per direction before it stops reading: beyond it
// the sender's kernel buffers fill and push back, as they would behind a
// slow or cut network. Large enough that a held command is always read.
constexpr size_t kMaxHeld = 4 * 1024 * 1024;
constexpr int kReadsPerPass = 16;
// Linux's initial retransmission timeout and its ceiling (TCP_RTO_MAX). The
// virtual network stops drawing losses once the timeout reaches the ceiling;
// so does the proxy, so that both deliver a 100%-lost chunk at the same time.
constexpr Nanos kInitialRto = std::chrono::milliseconds(200);
constexpr Nanos kMaxRto = std::chrono::seconds(120);
// How long accepting pauses when the process is out of descriptors.
constexpr Nanos kAcceptBackoff = std::chrono::milliseconds(100);

// A misuse of the API (an unknown link, a negative delay) is a bug in the
// harness: stop loudly, as a broken simulator invariant does.
[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "locksim: ProxyHub: %s\n", what.c_str());
  std::abort();
}

std::string ErrnoText(const std::string& what) { return what + ": " + std::strerror(errno); }

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// Closes with an RST instead of a FIN: the peer sees "connection reset",
// and the kernel discards what was still unsent toward it.
void ResetFd(int& fd) {
  if (fd < 0) return;
  linger l{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  CloseFd(fd);
}

// Small Redis commands must not wait for Nagle + delayed ACK (40 ms on
// loopback): the proxy's own delay is the only one it adds.
void NoDelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

sockaddr_in Loopback(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  return addr;
}

void CheckPort(int port) {
  if (port <= 0 || port > 65535) Die("target port " + std::to_string(port) + " out of range");
}

struct ReaderFree {
  void operator()(redisReader* r) const { redisReaderFree(r); }
};
struct ReplyObjectFree {
  void operator()(void* r) const { freeReplyObject(r); }
};

}  // namespace

// One direction of a tapped connection: hiredis's reader over its bytes.
struct ProxyHub::TapReader {
  std::unique_ptr<redisReader, ReaderFree> reader{redisReaderCreate()};
};

// What the proxy read in one read(), and when.
struct ProxyHub::Chunk {
  std::string bytes;
  size_t sent = 0;
  int64_t read_at = 0;  // steady-clock nanoseconds
  bool tapped = false;  // a tapped reply chunk, decoded
};

// One direction of one connection: what was read from the source and is
// not yet written to the destination, in order.
struct ProxyHub::Pipe {
  std::deque<Chunk> chunks;
  size_t held = 0;           // bytes in `chunks`
  bool eof = false;          // the source closed or failed: nothing more to read
  bool dead = false;         // the destination failed: what comes is dropped
  bool blocked = false;      // the last write would block: wait for POLLOUT
  bool shut = false;         // the source's FIN has been passed on
  bool head_passed = false;  // the head chunk survived its loss draw
  int64_t retry_at = -1;     // the head chunk was lost: when it is resent
  Nanos rto = kInitialRto;   // the next retransmission timeout

  void Drop() {
    chunks.clear();
    held = 0;
    head_passed = false;
    retry_at = -1;
  }
};

struct ProxyHub::Conn {
  enum class Up { kWaiting, kConnecting, kConnected, kGone };
  int client = -1;  // accepted from the client
  int node = -1;    // our connection to the target
  Up up = Up::kWaiting;
  Pipe to_node;    // client -> node
  Pipe to_client;  // node -> client
  uint64_t serial = 0;  // on its link, from 1
  // A tapped link's decoders, one per direction; both null once the bytes
  // stopped being RESP2 (or when the link is not tapped).
  std::unique_ptr<TapReader> tap_requests;
  std::unique_ptr<TapReader> tap_replies;

  bool Done() const { return client < 0 && node < 0; }
  void CloseAll(bool reset) {
    if (reset) {
      ResetFd(client);
      ResetFd(node);
    } else {
      CloseFd(client);
      CloseFd(node);
    }
    to_node.Drop();
    to_client.Drop();
    up = Up::kGone;
  }
};

struct ProxyHub::Link {
  std::string name;
  int listen = -1;
  int port = 0;
  int target_port = 0;
  bool partitioned = false;
  Nanos delay_to_node{0};
  Nanos delay_to_client{0};
  int loss_percent = 0;
  bool cut = false;             // CutConnections() waits for the loop to do it
  int64_t accept_paused_until = 0;
  bool tapped = false;
  uint64_t accepted = 0;  // connections so far
  int id = 0;
  std::list<std::unique_ptr<Conn>> conns;  // node-stable addresses for the poll slots
};

ProxyHub::ProxyHub(uint64_t seed) : random_(seed) {
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) throw HarnessError(ErrnoText("proxy: eventfd()"));
  tapped_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (tapped_fd_ < 0) {
    CloseFd(wake_fd_);
    throw HarnessError(ErrnoText("proxy: eventfd()"));
  }
  // The thread starts with every signal blocked (it inherits the mask), so
  // that SIGINT/SIGTERM/SIGHUP are always taken by the harness's main
  // thread, whose InterruptGuard turns them into a clean stop.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  try {
    thread_ = std::thread([this] { Loop(); });
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    CloseFd(wake_fd_);
    CloseFd(tapped_fd_);
    throw;
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

ProxyHub::~ProxyHub() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  Wake();
  thread_.join();
  // Plain close() never waits for a peer (no SO_LINGER timeout is set): held
  // bytes are simply dropped, as they are when the harness is killed.
  for (auto& link : links_) {
    for (auto& conn : link->conns) conn->CloseAll(false);
    CloseFd(link->listen);
  }
  CloseFd(wake_fd_);
  CloseFd(tapped_fd_);
}

void ProxyHub::Wake() {
  const uint64_t one = 1;
  // Only fails when the counter would overflow: the loop is awake anyway.
  [[maybe_unused]] ssize_t n = write(wake_fd_, &one, sizeof one);
}

int64_t ProxyHub::NowNanos() const {
  return duration_cast<Nanos>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

ProxyHub::Link& ProxyHub::At(int link) const {
  if (link < 0 || link >= static_cast<int>(links_.size())) Die("no link " + std::to_string(link));
  return *links_[link];
}

int ProxyHub::Open(std::string name, int target_port) {
  CheckPort(target_port);
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw HarnessError(ErrnoText("proxy " + name + ": socket()"));
  sockaddr_in addr = Loopback(0);
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(fd, 128) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const std::string why = ErrnoText("proxy " + name + ": listen on 127.0.0.1:0");
    close(fd);
    throw HarnessError(why);
  }
  auto link = std::make_unique<Link>();
  link->name = std::move(name);
  link->listen = fd;
  link->port = ntohs(addr.sin_port);
  link->target_port = target_port;
  std::lock_guard lock(mu_);
  link->id = static_cast<int>(links_.size());
  links_.push_back(std::move(link));
  Wake();
  return static_cast<int>(links_.size()) - 1;
}

void ProxyHub::Tap(int link) {
  std::lock_guard lock(mu_);
  At(link).tapped = true;
}

std::vector<ProxyHub::Tapped> ProxyHub::TakeTapped() {
  uint64_t count;
  [[maybe_unused]] ssize_t r = read(tapped_fd_, &count, sizeof count);
  std::lock_guard lock(mu_);
  return std::exchange(tapped_, {});
}

void ProxyHub::TapBytes(Link& link, Conn& conn, bool request, const char* data, size_t n) {
  std::unique_ptr<TapReader>& tap = request ? conn.tap_requests : conn.tap_replies;
  if (tap == nullptr || n == 0) return;
  redisReader* reader = tap->reader.get();
  const size_t before = tapped_.size();
  auto stop = [&](const std::string& why) {
    Tapped t{link.id, conn.serial, Tapped::Kind::kUndecodable, {},
             Reply::Error("locksim: the proxy stopped decoding " + link.name + " connection " +
                          std::to_string(conn.serial) + ": " + why)};
    tapped_.push_back(std::move(t));
    conn.tap_requests.reset();
    conn.tap_replies.reset();
  };
  if (redisReaderFeed(reader, data, n) != REDIS_OK) {
    stop(reader->errstr);
  } else {
    for (;;) {
      void* object = nullptr;
      if (redisReaderGetReply(reader, &object) != REDIS_OK) {
        stop(reader->errstr);
        break;
      }
      if (object == nullptr) break;
      std::unique_ptr<void, ReplyObjectFree> owner(object);
      const auto* r = static_cast<const redisReply*>(object);
      Tapped t{link.id, conn.serial, request ? Tapped::Kind::kCommand : Tapped::Kind::kReply, {},
               {}};
      if (request) {
        bool strings = r->type == REDIS_REPLY_ARRAY;
        for (size_t i = 0; strings && i < r->elements; ++i) {
          strings = r->element[i]->type == REDIS_REPLY_STRING;
          if (strings) t.command.emplace_back(r->element[i]->str, r->element[i]->len);
        }
        if (!strings) {
          stop("a request that is not an array of bulk strings");
          break;
        }
        if (t.command.empty()) continue;
      } else {
        t.reply = ReplyFromHiredis(r);
      }
      tapped_.push_back(std::move(t));
    }
  }
  if (tapped_.size() > before) {
    const uint64_t added = tapped_.size() - before;
    [[maybe_unused]] ssize_t w = write(tapped_fd_, &added, sizeof added);
  }
}

int ProxyHub::Port(int link) const {
  std::lock_guard lock(mu_);
  return At(link).port;
}

const std::string& ProxyHub::Name(int link) const {
  std::lock_guard lock(mu_);
  return At(link).name;  // never changes once opened
}

std::string ProxyHub::ListenAddress(int link) const {
  std::lock_guard lock(mu_);
  sockaddr_in addr{};
  socklen_t len = sizeof addr;
  if (getsockname(At(link).listen, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "";
  char ip[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &addr.sin_addr, ip, sizeof ip);
  return std::string(ip) + ":" + std::to_string(ntohs(addr.sin_port));
}

void ProxyHub::Retarget(int link, int target_port) {
  CheckPort(target_port);
  std::lock_guard lock(mu_);
  At(link).target_port = target_port;
}

void ProxyHub::SetPartitioned(int link, bool on) {
  std::lock_guard lock(mu_);
  At(link).partitioned = on;
  Wake();
}

void ProxyHub::SetDelay(int link, Nanos extra_one_way) { SetDelay(link, extra_one_way, extra_one_way); }

void ProxyHub::SetDelay(int link, Nanos to_target, Nanos to_client) {
  if (to_target.count() < 0 || to_client.count() < 0) Die("negative delay");
  std::lock_guard lock(mu_);
  Link& l = At(link);
  l.delay_to_node = to_target;
  l.delay_to_client = to_client;
  Wake();
}

void ProxyHub::SetLoss(int link, int percent) {
  if (percent < 0 || percent > 100) Die("loss of " + std::to_string(percent) + "%");
  std::lock_guard lock(mu_);
  At(link).loss_percent = percent;
  Wake();
}

void ProxyHub::Heal(int link) {
  std::lock_guard lock(mu_);
  Link& l = At(link);
  l.partitioned = false;
  l.delay_to_node = l.delay_to_client = Nanos{0};
  l.loss_percent = 0;
  Wake();
}

void ProxyHub::CutConnections(int link) {
  std::unique_lock lock(mu_);
  At(link).cut = true;
  const uint64_t ticket = ++requested_;
  Wake();
  cv_.wait(lock, [&] { return served_ >= ticket || stop_; });
}

size_t ProxyHub::LiveConnections(int link) const {
  std::lock_guard lock(mu_);
  const Link& l = At(link);
  return static_cast<size_t>(
      std::count_if(l.conns.begin(), l.conns.end(), [](const auto& c) { return !c->Done(); }));
}

std::string ProxyHub::LastError() const {
  std::lock_guard lock(mu_);
  return last_error_;
}

// ---------------------------------------------------------------------------
// The hub's thread. It holds mu_ except while it waits in ppoll(), so the
// API's changes land between two passes and take effect in the next one.

void ProxyHub::Loop() {
  enum class Role { kWake, kListen, kClient, kNode };
  struct Slot {
    Role role;
    Link* link;
    Conn* conn;
  };
  std::vector<pollfd> fds;
  std::vector<Slot> slots;
  std::unique_lock lock(mu_);
  while (!stop_) {
    if (served_ < requested_) {
      for (auto& link : links_) {
        if (!link->cut) continue;
        for (auto& conn : link->conns) conn->CloseAll(true);
        link->conns.clear();
        link->cut = false;
      }
      served_ = requested_;
      cv_.notify_all();
    }

    fds.clear();
    slots.clear();
    fds.push_back(pollfd{wake_fd_, POLLIN, 0});
    slots.push_back(Slot{Role::kWake, nullptr, nullptr});
    const int64_t now = NowNanos();
    int64_t wake_at = -1;
    auto earliest = [&wake_at](int64_t t) {
      if (t >= 0 && (wake_at < 0 || t < wake_at)) wake_at = t;
    };
    for (auto& link_ptr : links_) {
      Link& link = *link_ptr;
      if (now >= link.accept_paused_until) {
        fds.push_back(pollfd{link.listen, POLLIN, 0});
        slots.push_back(Slot{Role::kListen, &link, nullptr});
      } else {
        earliest(link.accept_paused_until);
      }
      for (auto& conn_ptr : link.conns) {
        Conn& conn = *conn_ptr;
        // Only descriptors with some interest are polled: a closed peer
        // would otherwise report POLLHUP on every pass.
        short client_events = 0;
        if (!conn.to_node.eof && conn.to_node.held < kMaxHeld) {
          client_events |= POLLIN;
        } else if (!conn.to_node.eof && link.partitioned) {
          // Too much held to read more, but a client that gives up must
          // still be noticed: what it sent is then dropped (Settle()).
          client_events |= POLLRDHUP;
        }
        if (conn.to_client.blocked) client_events |= POLLOUT;
        if (conn.client >= 0 && client_events != 0) {
          fds.push_back(pollfd{conn.client, client_events, 0});
          slots.push_back(Slot{Role::kClient, &link, &conn});
        }
        short node_events = 0;
        if (conn.up == Conn::Up::kConnecting) {
          node_events = POLLOUT;
        } else if (conn.up == Conn::Up::kConnected) {
          if (!conn.to_client.eof && conn.to_client.held < kMaxHeld) node_events |= POLLIN;
          if (conn.to_node.blocked) node_events |= POLLOUT;
        }
        if (conn.node >= 0 && node_events != 0) {
          fds.push_back(pollfd{conn.node, node_events, 0});
          slots.push_back(Slot{Role::kNode, &link, &conn});
        }
        earliest(NextDue(link, conn, conn.to_node));
        earliest(NextDue(link, conn, conn.to_client));
      }
    }

    timespec ts{};
    timespec* timeout = nullptr;
    if (wake_at >= 0) {
      const int64_t wait = std::max<int64_t>(0, wake_at - now);
      ts = timespec{static_cast<time_t>(wait / 1000000000), static_cast<long>(wait % 1000000000)};
      timeout = &ts;
    }
    lock.unlock();
    const int n = ppoll(fds.data(), fds.size(), timeout, nullptr);
    lock.lock();
    if (stop_) break;
    if (n < 0 && errno != EINTR) {
      last_error_ = ErrnoText("proxy: ppoll()");
      continue;
    }

    for (size_t i = 0; n > 0 && i < fds.size(); ++i) {
      const short revents = fds[i].revents;
      if (revents == 0) continue;
      Slot& s = slots[i];
      switch (s.role) {
        case Role::kWake: {
          uint64_t count;
          [[maybe_unused]] ssize_t r = read(wake_fd_, &count, sizeof count);
          break;
        }
        case Role::kListen:
          Accept(*s.link);
          break;
        case Role::kClient:
          if (s.conn->client < 0) break;
          // An error or hang-up ends a wait for POLLOUT too: the next
          // send() then fails and says how.
          if (revents & (POLLOUT | POLLERR | POLLHUP)) s.conn->to_client.blocked = false;
          if (revents & (POLLIN | POLLERR | POLLHUP)) {
            if (s.conn->tap_requests) {
              std::string read;
              ReadInto(s.conn->to_node, s.conn->client, &read);
              TapBytes(*s.link, *s.conn, true, read.data(), read.size());
            } else {
              ReadInto(s.conn->to_node, s.conn->client);
            }
          }
          // Polled for POLLRDHUP alone: the client closed or reset while
          // the proxy held all it could (a FIN, though, waits in the
          // client's kernel behind the bytes the proxy has not taken).
          if ((revents & (POLLRDHUP | POLLERR | POLLHUP)) && s.conn->to_node.held >= kMaxHeld) {
            s.conn->to_node.eof = true;
          }
          break;
        case Role::kNode:
          if (s.conn->node < 0) break;
          if (s.conn->up == Conn::Up::kConnecting) {
            FinishConnect(*s.conn);
            break;
          }
          if (revents & (POLLOUT | POLLERR | POLLHUP)) s.conn->to_node.blocked = false;
          if (revents & (POLLIN | POLLERR | POLLHUP)) {
            ReadInto(s.conn->to_client, s.conn->node);
          }
          break;
      }
    }

    // Forward whatever is due, then apply the closing rules: after every
    // pass, including those woken by the API (a heal, a shorter delay).
    for (auto& link_ptr : links_) {
      Link& link = *link_ptr;
      for (auto& conn : link.conns) Settle(link, *conn);
      link.conns.remove_if([](const auto& c) { return c->Done(); });
    }
  }
  cv_.notify_all();  // a CutConnections() waiting on a hub being destroyed
}

void ProxyHub::Accept(Link& link) {
  for (;;) {
    int fd = accept4(link.listen, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) {
        last_error_ = ErrnoText("proxy " + link.name + ": accept()");
        link.accept_paused_until = NowNanos() + kAcceptBackoff.count();
      }
      return;
    }
    NoDelay(fd);
    auto conn = std::make_unique<Conn>();
    conn->client = fd;
    conn->serial = ++link.accepted;
    if (link.tapped) {
      conn->tap_requests = std::make_unique<TapReader>();
      conn->tap_replies = std::make_unique<TapReader>();
    }
    // Connecting is part of the network too: while partitioned the proxy
    // does not reach for the node (Settle() connects on heal).
    if (!link.partitioned) StartConnect(link, *conn);
    link.conns.push_back(std::move(conn));
  }
}

void ProxyHub::StartConnect(Link& link, Conn& conn) {
  conn.node = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (conn.node < 0) {
    last_error_ = ErrnoText("proxy " + link.name + ": socket()");
    conn.CloseAll(true);
    return;
  }
  NoDelay(conn.node);
  sockaddr_in addr = Loopback(link.target_port);
  if (connect(conn.node, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    conn.up = Conn::Up::kConnected;
  } else if (errno == EINPROGRESS) {
    conn.up = Conn::Up::kConnecting;
  } else {
    // The node is down (ECONNREFUSED): the client is refused too, by a
    // reset of the connection the kernel already accepted for it.
    conn.CloseAll(true);
  }
}

void ProxyHub::FinishConnect(Conn& conn) {
  int error = 0;
  socklen_t len = sizeof error;
  if (getsockopt(conn.node, SOL_SOCKET, SO_ERROR, &error, &len) != 0) error = errno;
  if (error == 0) {
    conn.up = Conn::Up::kConnected;
  } else {
    conn.CloseAll(true);
  }
}

void ProxyHub::ReadInto(Pipe& pipe, int fd, std::string* copy) {
  for (int i = 0; i < kReadsPerPass && !pipe.eof && pipe.held < kMaxHeld; ++i) {
    std::string buf(kReadSize, '\0');
    const ssize_t n = read(fd, buf.data(), buf.size());
    if (n > 0) {
      buf.resize(static_cast<size_t>(n));
      if (copy != nullptr) copy->append(buf);
      pipe.held += buf.size();
      pipe.chunks.push_back(Chunk{std::move(buf), 0, NowNanos()});
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    pipe.eof = true;  // FIN (0) or a reset / other error: the source is gone
  }
}

int64_t ProxyHub::NextDue(const Link& link, const Conn& conn, const Pipe& pipe) const {
  if (pipe.chunks.empty() || pipe.blocked || pipe.dead || link.partitioned) return -1;
  const bool to_node = &pipe == &conn.to_node;
  if (to_node ? conn.up != Conn::Up::kConnected : conn.client < 0) return -1;
  if (pipe.head_passed) return 0;
  const Nanos delay = to_node ? link.delay_to_node : link.delay_to_client;
  return std::max(pipe.chunks.front().read_at + delay.count(), pipe.retry_at);
}

void ProxyHub::Flush(Link& link, Conn& conn, Pipe& pipe, int fd) {
  if (pipe.dead) pipe.Drop();
  const int64_t now = NowNanos();
  while (fd >= 0 && !pipe.chunks.empty() && !pipe.blocked && !link.partitioned) {
    Chunk& head = pipe.chunks.front();
    if (!pipe.head_passed) {
      const int64_t due = NextDue(link, conn, pipe);
      if (due < 0 || now < due) return;
      // A lost chunk is resent after the RTO, which doubles while the
      // losses go on (virtual_world.cc's Arrival() draws the same way).
      if (link.loss_percent > 0 && pipe.rto < kMaxRto &&
          static_cast<int>(random_.Uniform(100)) < link.loss_percent) {
        pipe.retry_at = now + pipe.rto.count();
        pipe.rto *= 2;
        return;
      }
      pipe.head_passed = true;
      pipe.retry_at = -1;
      pipe.rto = kInitialRto;
    }
    // A reply is decoded as it starts out to the client, not after: the
    // harness must have it before the adapter can answer because of it.
    if (&pipe == &conn.to_client && conn.tap_replies && !head.tapped) {
      head.tapped = true;
      TapBytes(link, conn, false, head.bytes.data(), head.bytes.size());
    }
    const ssize_t n =
        send(fd, head.bytes.data() + head.sent, head.bytes.size() - head.sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        pipe.blocked = true;
        return;
      }
      pipe.dead = true;  // EPIPE, ECONNRESET: the destination is gone
      pipe.Drop();
      return;
    }
    head.sent += static_cast<size_t>(n);
    if (head.sent == head.bytes.size()) {
      pipe.held -= head.bytes.size();
      pipe.chunks.pop_front();
      pipe.head_passed = false;
    }
  }
}

// The closing rules, as the virtual network has them: a client that gives
// up while the link is partitioned loses what it had sent (its connection is
// dropped at once, as VirtualWorld::Abandon drops it); otherwise its FIN
// follows its bytes. A node that goes away has what it sent delivered
// first; then the client's side closes.
void ProxyHub::Settle(Link& link, Conn& conn) {
  if (conn.Done()) return;
  if (conn.up == Conn::Up::kWaiting && !link.partitioned) StartConnect(link, conn);
  if (conn.Done()) return;  // refused

  Flush(link, conn, conn.to_node, conn.up == Conn::Up::kConnected ? conn.node : -1);
  Flush(link, conn, conn.to_client, conn.client);

  if (conn.to_client.dead) {  // the client is gone for good (reset)
    conn.CloseAll(false);
    return;
  }
  const bool client_gone = conn.to_node.eof;
  const bool node_gone =
      conn.to_client.eof || conn.to_node.dead || conn.up == Conn::Up::kGone;
  if (client_gone && (link.partitioned || conn.up == Conn::Up::kWaiting)) {
    conn.CloseAll(false);  // held bytes are never delivered
    return;
  }
  if (client_gone && conn.up == Conn::Up::kConnected && conn.to_node.chunks.empty() &&
      !conn.to_node.shut && conn.node >= 0) {
    shutdown(conn.node, SHUT_WR);  // the client's FIN, after its bytes
    conn.to_node.shut = true;
  }
  if (node_gone) {
    conn.to_node.Drop();  // nowhere to deliver it
    if (conn.to_client.chunks.empty()) conn.CloseAll(false);
  }
}

}  // namespace locksim
