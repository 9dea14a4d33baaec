// The serve loop: one thread, one poll(), non-blocking sockets, as Redis's
// own event loop. Each TCP connection is one VirtualRedis connection, so
// MULTI, WATCH and SUBSCRIBE state is per client, exactly as on a real node.
// Requests are framed by RequestReader (hiredis's redisReader: RESP arrays
// of bulk strings, as redis-cli and client libraries send them); replies are
// written by AppendResp (sim/serve/resp.h).
#include "sim/serve/serve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/errors.h"
#include "sim/core/random.h"
#include "sim/core/interrupt.h"
#include "sim/serve/request_reader.h"
#include "sim/serve/resp.h"
#include "sim/vredis/server.h"

namespace locksim {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Replies not yet read by a client. Redis drops a pub/sub client at 32 MB
// (client-output-buffer-limit pubsub); here it applies to every client, so
// that one that publishes or subscribes and never reads cannot exhaust the
// host's memory.
constexpr size_t kMaxOutputBytes = size_t{32} << 20;
// How much one read() takes from a client per loop turn (Redis's
// PROTO_IOBUF_LEN): a client sending a lot cannot starve the others.
constexpr size_t kReadChunk = 16 * 1024;

std::string Errno(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// Owns one file descriptor.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { Reset(); }
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      Reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  int get() const { return fd_; }
  void Reset() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

// ---- The listening address ----

bool IsLoopback(const sockaddr* sa) {
  if (sa->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(sa);
    return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
  }
  if (sa->sa_family == AF_INET6) {
    return IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr);
  }
  return false;
}

// "127.0.0.1:6379" or "[::1]:6379".
std::string AddressText(const sockaddr* sa) {
  char host[INET6_ADDRSTRLEN] = "?";
  if (sa->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(sa);
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    return std::string(host) + ":" + std::to_string(ntohs(in->sin_port));
  }
  const auto* in6 = reinterpret_cast<const sockaddr_in6*>(sa);
  inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
  return "[" + std::string(host) + "]:" + std::to_string(ntohs(in6->sin6_port));
}

struct ListenAddress {
  sockaddr_storage addr{};
  socklen_t len = 0;
};

// Resolves --bind and refuses anything that is not loopback. A name is
// accepted only if every address it resolves to is loopback ("localhost"),
// so that no resolver answer can put the model on a network; an IPv4 answer
// is preferred, as it always exists on lo.
ListenAddress ResolveBind(const std::string& bind, int port) {
  const char* kOnly =
      "locksim serve listens on loopback only (127.0.0.0/8, ::1, or a name such as localhost "
      "that resolves only to those)";
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(bind.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (rc != 0) {
    throw InputError("--bind: cannot resolve \"" + bind + "\": " + gai_strerror(rc) + "; " +
                     kOnly);
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owner(found, &freeaddrinfo);
  const addrinfo* chosen = nullptr;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    if (!IsLoopback(a->ai_addr)) {
      char host[INET6_ADDRSTRLEN] = "?";
      getnameinfo(a->ai_addr, a->ai_addrlen, host, sizeof host, nullptr, 0, NI_NUMERICHOST);
      const std::string what = host == bind ? "\"" + bind + "\" is not a loopback address"
                                            : "\"" + bind + "\" resolves to " + host +
                                                  ", which is not a loopback address";
      throw InputError("--bind: " + what + "; " + kOnly);
    }
    if (chosen == nullptr || (chosen->ai_family != AF_INET && a->ai_family == AF_INET)) {
      chosen = a;
    }
  }
  if (chosen == nullptr) throw InputError("--bind: \"" + bind + "\" has no address; " + kOnly);
  ListenAddress out;
  std::memcpy(&out.addr, chosen->ai_addr, chosen->ai_addrlen);
  out.len = chosen->ai_addrlen;
  return out;
}

// A listening, non-blocking socket on `where`; the bind errors a user can
// cause become InputError naming the option to change.
Fd Listen(const ListenAddress& where) {
  const auto* sa = reinterpret_cast<const sockaddr*>(&where.addr);
  const std::string text = AddressText(sa);
  Fd fd(socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) throw HarnessError(Errno("socket()"));
  // As Redis: a restarted server may take over a port whose old connections
  // are in TIME_WAIT. It does not let two servers listen on one port.
  const int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd.get(), sa, where.len) != 0 || listen(fd.get(), 511) != 0) {
    const int e = errno;
    if (e == EADDRINUSE) {
      throw InputError("--port: " + text +
                       " is already in use (another server listens there); choose another "
                       "port, or --port 0 for a free one");
    }
    if (e == EACCES) {
      throw InputError("--port: permission denied for " + text +
                       " (ports below 1024 need privileges); choose another port");
    }
    if (e == EADDRNOTAVAIL || e == EAFNOSUPPORT) {
      throw InputError("--bind: cannot listen on " + text + ": " + std::strerror(e));
    }
    throw HarnessError("cannot listen on " + text + ": " + std::strerror(e));
  }
  return fd;
}

constexpr timespec kNoWait{0, 0};

class ServeLoop {
 public:
  ServeLoop(Fd listener, const ServeOptions& options)
      : busy_threshold_(options.busy_reply_threshold_ms),
        listener_(std::move(listener)),
        offset_ms_(options.clock_offset_ms),
        random_(options.seed) {
    // A script that does not end keeps running, as on redis-server; the
    // other clients are answered while it does (WhileBusy).
    node_.SetScriptInstructionLimit(0);
    node_.SetBusyScriptHandler([this](int64_t instructions) { WhileBusy(instructions); });
  }

  // Serves until a stop signal (returns its number) or SHUTDOWN (returns 0).
  int Run();

 private:
  struct Client {
    Fd fd;
    VirtualRedis::ConnId conn = 0;
    RequestReader requests;
    std::string out;      // encoded replies; out[sent..] not yet written
    size_t sent = 0;
    bool closing = false;  // after QUIT or a protocol error: flush, then close
    bool closed = false;   // removed at the end of the loop turn
  };

  // The node clock: the host's wall clock plus the offset. This is the one
  // place where a locksim virtual node reads the host clock; the
  // deterministic virtual world never does, its nodes run on simulated time.
  int64_t NodeNowMs() const {
    using std::chrono::duration_cast;
    using std::chrono::milliseconds;
    return duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch())
               .count() +
           offset_ms_;
  }

  // Called from a running script every 100 000 Lua instructions. Past
  // Redis's busy threshold (busy-reply-threshold, 5 s unless
  // --busy-reply-threshold says otherwise), the other clients
  // are served: BUSY for every command but SCRIPT KILL (and QUIT and
  // LOCKSIM.CLOCK); a stop signal kills the script so that serve can stop.
  void WhileBusy(int64_t instructions);
  void Accept();
  void Read(Client& c);
  void Handle(Client& c, const Command& argv);
  Reply ClockCommand(const Command& argv);
  void Shutdown(Client& c, const Command& argv);
  void DrainPushes();
  void Flush(Client& c);
  void Close(Client& c);

  const std::chrono::milliseconds busy_threshold_;
  Client* running_ = nullptr;  // the client whose command runs now
  bool busy_ = false;          // a script has run past the threshold
  bool shutdown_ = false;      // SHUTDOWN was accepted: nothing more is written
  // When the command now running started: a script's start. (Taken from
  // the instruction count before, a fresh server's first script was busy at
  // its first check, whatever the threshold.)
  SteadyClock::time_point script_started_;
  Fd listener_;
  int64_t offset_ms_;
  Random random_;
  VirtualRedis node_;
  std::vector<std::unique_ptr<Client>> clients_;
};

int ServeLoop::Run() {
  constexpr auto kCronPeriod = std::chrono::milliseconds(VirtualRedis::kCronPeriodMs);
  // The cron's period is measured on the monotonic clock, so that a host
  // clock step does not stop or flood it; it is given the node's time.
  auto next_cron = SteadyClock::now() + kCronPeriod;
  std::vector<pollfd> fds;
  for (;;) {
    if (int signo = InterruptGuard::PendingSignal()) return signo;
    if (shutdown_) return 0;
    fds.clear();
    fds.push_back(pollfd{listener_.get(), POLLIN, 0});
    for (const auto& c : clients_) {
      short events = c->closing ? 0 : POLLIN;
      if (c->sent < c->out.size()) events |= POLLOUT;
      fds.push_back(pollfd{c->fd.get(), events, 0});
    }
    const auto wait = std::max(SteadyClock::duration::zero(), next_cron - SteadyClock::now());
    const auto wait_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(wait).count();
    const timespec ts{static_cast<time_t>(wait_ns / 1000000000),
                      static_cast<long>(wait_ns % 1000000000)};
    // The guard keeps the stop signals blocked except inside ppoll(), which
    // unblocks them atomically while it waits: a signal that arrives between
    // the check above and the wait cannot be missed.
    if (ppoll(fds.data(), fds.size(), &ts, InterruptGuard::WaitMask()) < 0) {
      if (errno == EINTR) continue;  // a stop signal: seen at the top
      throw HarnessError(Errno("poll()"));
    }
    // Clients first, in connection order; fds[i + 1] is clients_[i]. New
    // clients are appended after, so the indices stay valid.
    const size_t polled = clients_.size();
    for (size_t i = 0; i < polled; ++i) {
      Client& c = *clients_[i];
      const short revents = fds[i + 1].revents;
      // A closing client is only written to; Flush() notices if it is gone.
      if (c.closed || c.closing || revents == 0) continue;
      if (revents & (POLLIN | POLLHUP | POLLERR)) Read(c);
    }
    if (fds[0].revents & POLLIN) Accept();
    if (SteadyClock::now() >= next_cron) {
      node_.Cron(NodeNowMs(), random_);
      DrainPushes();
      // One tick per period; after a stall (a suspended process), resume
      // the rhythm rather than run the missed ticks back to back.
      next_cron += kCronPeriod;
      if (next_cron <= SteadyClock::now()) next_cron = SteadyClock::now() + kCronPeriod;
    }
    // Write what each client is owed now, rather than wait a turn for POLLOUT.
    for (const auto& c : clients_) {
      if (!c->closed) Flush(*c);
    }
    std::erase_if(clients_, [](const auto& c) { return c->closed; });
  }
}

void ServeLoop::WhileBusy(int64_t /*instructions*/) {
  const auto now = SteadyClock::now();
  // A stop signal waits, blocked, for the next poll: look for it here.
  sigset_t pending;
  sigemptyset(&pending);
  sigpending(&pending);
  if (InterruptGuard::PendingSignal() || sigismember(&pending, SIGTERM) ||
      sigismember(&pending, SIGINT)) {
    // The server is stopping: the script goes, written or not (as
    // SHUTDOWN NOSAVE); Run() sees the signal once the command returns.
    node_.KillRunningScript(/*force=*/true);
    return;
  }
  if (shutdown_ || now - script_started_ < busy_threshold_) return;
  busy_ = true;
  std::vector<pollfd> fds;
  fds.push_back(pollfd{listener_.get(), POLLIN, 0});
  for (const auto& c : clients_) {
    short events = c->closing || c.get() == running_ ? 0 : POLLIN;
    if (c->sent < c->out.size()) events |= POLLOUT;
    fds.push_back(pollfd{c->fd.get(), events, 0});
  }
  if (ppoll(fds.data(), fds.size(), &kNoWait, InterruptGuard::WaitMask()) > 0) {
    const size_t polled = fds.size() - 1;
    for (size_t i = 0; i < polled; ++i) {
      Client& c = *clients_[i];
      // The running client's next requests wait for its script, as Redis's.
      if (&c == running_ || c.closed || c.closing || fds[i + 1].revents == 0) continue;
      if (fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR)) Read(c);
    }
    if (fds[0].revents & POLLIN) Accept();
  }
  for (const auto& c : clients_) {
    if (!c->closed && c.get() != running_) Flush(*c);
  }
  busy_ = false;
}

void ServeLoop::Accept() {
  for (;;) {
    Fd fd(accept4(listener_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (fd.get() < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      // EAGAIN: no more for now. EMFILE and the like: the connection stays
      // in the backlog until a client leaves.
      return;
    }
    const int one = 1;  // replies are small and latency matters, as in Redis
    setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto c = std::make_unique<Client>();
    c->fd = std::move(fd);
    c->conn = node_.Connect();
    clients_.push_back(std::move(c));
  }
}

void ServeLoop::Read(Client& c) {
  char buf[kReadChunk];
  const ssize_t n = recv(c.fd.get(), buf, sizeof buf, 0);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  if (n <= 0) {  // the client left (or its connection broke)
    Close(c);
    return;
  }
  c.requests.Feed(buf, static_cast<size_t>(n));
  Command argv;
  std::string error;
  while (!c.closing) {
    switch (c.requests.Next(&argv, &error)) {
      case RequestReader::Status::kRequest:
        Handle(c, argv);
        break;
      case RequestReader::Status::kNeedMore:
        return;
      case RequestReader::Status::kError:
        // As Redis: report it and close the connection, since nothing after
        // a malformed request can be framed.
        AppendResp(Reply::Error("ERR Protocol error: " + error), &c.out);
        c.closing = true;
        return;
    }
  }
}

void ServeLoop::Handle(Client& c, const Command& argv) {
  if (IsKeyword(argv[0], "QUIT")) {
    // Redis 7.0 answers QUIT before any other check (arity, MULTI,
    // subscribed state) and closes once the reply is written.
    AppendResp(Reply::Ok(), &c.out);
    c.closing = true;
    return;
  }
  if (IsKeyword(argv[0], "SHUTDOWN") && !node_.InMulti(c.conn)) {
    Shutdown(c, argv);  // inside MULTI, the node refuses it as Redis does
    return;
  }
  if (IsKeyword(argv[0], "LOCKSIM.CLOCK")) {
    // Administration of the fixture, not a Redis command: it runs at once,
    // even inside MULTI or in the subscribed state.
    AppendResp(ClockCommand(argv), &c.out);
    return;
  }
  if (busy_) {
    const bool kill = IsKeyword(argv[0], "SCRIPT") && argv.size() == 2 && IsKeyword(argv[1], "KILL");
    AppendResp(kill ? node_.KillRunningScript()
                    : Reply::Error("BUSY Redis is busy running a script. You can only call "
                                   "SCRIPT KILL or SHUTDOWN NOSAVE."),
               &c.out);
    return;
  }
  running_ = &c;
  script_started_ = SteadyClock::now();
  const Reply reply = node_.Execute(c.conn, argv, NodeNowMs());
  running_ = nullptr;
  // Reply has a single Nil; RESP2 has two. Of the commands a node answers,
  // only EXEC's nil is a nil array ("*-1", a transaction aborted by WATCH,
  // as redis-server 7.0 writes it: checked byte for byte by
  // tests/serve/serve_test.cc against a real server); every other nil reply
  // (GET, SET ... GET, EVAL returning false or nil) is a nil bulk string
  // ("$-1"). EXEC cannot be queued nor called from a script, so its name in
  // argv[0] identifies the reply. Deciding by command keeps Reply and
  // VirtualRedis free of wire details; a command added later with a nil
  // array reply in RESP2 (BLPOP's timeout) would join EXEC here.
  const NilAs nil = IsKeyword(argv[0], "EXEC") ? NilAs::kArray : NilAs::kBulk;
  AppendResp(reply, &c.out, nil);
  DrainPushes();
}

// shutdownCommand(): SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT], as Redis
// 7.0 checks it. serve keeps nothing on disk, so SAVE saves nothing; every
// accepted SHUTDOWN closes every connection without a reply and ends the
// server (exit 0). While a script is busy only SHUTDOWN NOSAVE is allowed
// (the others get BUSY, as in Redis); it kills the script, written or not.
void ServeLoop::Shutdown(Client& c, const Command& argv) {
  bool nosave = false, save = false, abort = false;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (IsKeyword(argv[i], "NOSAVE")) {
      nosave = true;
    } else if (IsKeyword(argv[i], "SAVE")) {
      save = true;
    } else if (IsKeyword(argv[i], "ABORT")) {
      abort = true;
    } else if (!IsKeyword(argv[i], "NOW") && !IsKeyword(argv[i], "FORCE")) {
      AppendResp(Reply::Error("ERR syntax error"), &c.out);
      return;
    }
  }
  if ((abort && argv.size() != 2) || (nosave && save)) {
    AppendResp(Reply::Error("ERR syntax error"), &c.out);
    return;
  }
  if (abort) {  // no shutdown ever waits for replicas here
    AppendResp(Reply::Error("ERR No shutdown in progress."), &c.out);
    return;
  }
  if (busy_ && !nosave) {
    AppendResp(Reply::Error("BUSY Redis is busy running a script. You can only call SCRIPT "
                            "KILL or SHUTDOWN NOSAVE."),
               &c.out);
    return;
  }
  if (busy_) node_.KillRunningScript(/*force=*/true);
  shutdown_ = true;
}

// LOCKSIM.CLOCK GET | JUMP <ms> | OFFSET <ms> | HELP
Reply ServeLoop::ClockCommand(const Command& argv) {
  auto wrong_arity = [] {
    return Reply::Error("ERR wrong number of arguments for 'locksim.clock' command");
  };
  if (argv.size() < 2) return wrong_arity();
  const std::string& sub = argv[1];
  if (IsKeyword(sub, "GET")) {
    if (argv.size() != 2) return wrong_arity();
    return Reply::Array({Reply::Integer(offset_ms_), Reply::Integer(NodeNowMs())});
  }
  if (IsKeyword(sub, "JUMP") || IsKeyword(sub, "OFFSET")) {
    if (argv.size() != 3) return wrong_arity();
    int64_t ms = 0;
    if (!StringToInt64(argv[2], &ms)) return Reply::Error(std::string(kNotIntegerErr));
    // Both terms within twice the bound: their sum cannot overflow.
    const bool jump = IsKeyword(sub, "JUMP");
    const bool in_range = ms >= -2 * kMaxClockOffsetMs && ms <= 2 * kMaxClockOffsetMs;
    const int64_t offset = jump ? offset_ms_ + (in_range ? ms : 0) : ms;
    if (!in_range || offset < -kMaxClockOffsetMs || offset > kMaxClockOffsetMs) {
      return Reply::Error("ERR clock offset out of range: at most " +
                          std::to_string(kMaxClockOffsetMs) +
                          " ms (100 years) either way of the host clock");
    }
    // A jump forward makes keys whose time has come expire at once: lazily
    // when a command touches them, and by the next cron's active cycle.
    offset_ms_ = offset;
    return Reply::Integer(offset_ms_);
  }
  if (IsKeyword(sub, "HELP")) {
    return Reply::Array({
        Reply::Status("LOCKSIM.CLOCK <subcommand> [<arg> ...]. Subcommands are:"),
        Reply::Status("GET"),
        Reply::Status("    Return [offset ms, node unix time ms]."),
        Reply::Status("JUMP <ms>"),
        Reply::Status("    Move the node clock by <ms> (negative: back). Return the new offset."),
        Reply::Status("OFFSET <ms>"),
        Reply::Status("    Set the node clock to the host clock + <ms>. Return the offset."),
        Reply::Status("HELP"),
        Reply::Status("    Print this help."),
    });
  }
  return Reply::Error("ERR unknown subcommand '" + sub.substr(0, 128) +
                      "'. Try LOCKSIM.CLOCK HELP.");
}

// Messages published to other connections (and the extra notices of a
// SUBSCRIBE of several channels) go out after the command that caused them.
void ServeLoop::DrainPushes() {
  for (const auto& c : clients_) {
    if (c->closed) continue;
    for (const Reply& push : node_.TakePushes(c->conn)) AppendResp(push, &c->out);
  }
}

void ServeLoop::Flush(Client& c) {
  if (shutdown_) return;  // as Redis: the connections close, unanswered
  while (c.sent < c.out.size()) {
    const ssize_t n =
        send(c.fd.get(), c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      Close(c);  // EPIPE, ECONNRESET: the client is gone
      return;
    }
    c.sent += static_cast<size_t>(n);
  }
  if (c.sent == c.out.size()) {
    c.out.clear();
    c.sent = 0;
    if (c.closing) Close(c);
  } else if (c.out.size() - c.sent > kMaxOutputBytes) {
    Close(c);  // it does not read its replies: drop it, as Redis would
  }
}

void ServeLoop::Close(Client& c) {
  if (c.closed) return;
  node_.Disconnect(c.conn);
  c.fd.Reset();
  c.closed = true;
}

}  // namespace

int Serve(const ServeOptions& options, std::ostream& out) {
  if (options.port < 0 || options.port > 65535) {
    throw InputError("--port: expected 0 to 65535, got " + std::to_string(options.port));
  }
  if (options.clock_offset_ms < -kMaxClockOffsetMs || options.clock_offset_ms > kMaxClockOffsetMs) {
    throw InputError("--clock-offset: at most " + std::to_string(kMaxClockOffsetMs) +
                     " ms (100 years) either way, got " + std::to_string(options.clock_offset_ms));
  }
  if (options.busy_reply_threshold_ms < 0 || options.busy_reply_threshold_ms > kMaxClockOffsetMs) {
    throw InputError("--busy-reply-threshold: expected 0 to " + std::to_string(kMaxClockOffsetMs) +
                     " ms, got " + std::to_string(options.busy_reply_threshold_ms));
  }
  // The guard is in place before the address is printed: a client (or a
  // test) that reads it and signals at once still gets a clean stop.
  InterruptGuard guard;
  Fd listener = Listen(ResolveBind(options.bind, options.port));
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  if (getsockname(listener.get(), reinterpret_cast<sockaddr*>(&bound), &len) != 0) {
    throw HarnessError(Errno("getsockname()"));
  }
  out << "locksim serve: listening on " << AddressText(reinterpret_cast<sockaddr*>(&bound))
      << std::endl;
  ServeLoop loop(std::move(listener), options);
  return loop.Run();
}

}  // namespace locksim
