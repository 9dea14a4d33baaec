// ProxyHub against a real redis-server (and, where the node's behaviour must
// be scripted byte by byte, a listening socket of the test's own): bytes
// pass unchanged; a partition holds them and heal delivers them, unless the
// client gave up; delay and loss hold them at least as long as set; a dead
// node or a cut closes the client's side; nothing leaks. Time bounds are
// lower bounds on what the proxy holds back, or generous limits on waits,
// never measurements of speed.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sim/core/random.h"
#include "sim/real/proxy.h"
#include "sim/real/redis_server.h"

namespace locksim {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Held-back bytes must not show up within this long.
constexpr milliseconds kQuiet{300};
// What must happen does within this long (a loaded CI machine included).
constexpr milliseconds kPatience{5000};

std::string Resp(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return out;
}

// A client on a plain socket, so that a test controls exactly what is sent
// and when, and can wait for a reply without breaking the connection.
class RawClient {
 public:
  explicit RawClient(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    connected_ = fd_ >= 0 && connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~RawClient() { Close(); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool connected() const { return connected_; }
  int fd() const { return fd_; }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  void Send(const std::string& bytes) { ASSERT_TRUE(TrySend(bytes)) << "send: " << strerror(errno); }
  // For a connection the peer may already have reset.
  bool TrySend(const std::string& bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }
  // What arrives within `within`, stopping once `want` bytes have (or at
  // the first bytes, with want = 1), or when the peer closes.
  std::string Read(size_t want, milliseconds within) {
    std::string got;
    const auto deadline = Clock::now() + within;
    while (got.size() < want) {
      const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
      if (left.count() < 0) break;
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
      char buf[65536];
      const ssize_t n = read(fd_, buf, sizeof buf);
      if (n <= 0) break;
      got.append(buf, static_cast<size_t>(n));
    }
    return got;
  }
  std::string Call(const std::vector<std::string>& args, size_t reply_size) {
    Send(Resp(args));
    return Read(reply_size, kPatience);
  }
  // Whether the peer closes (FIN or reset) within `within`; data is skipped.
  bool ClosedWithin(milliseconds within) {
    const auto deadline = Clock::now() + within;
    for (;;) {
      const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
      if (left.count() < 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
      char buf[4096];
      const ssize_t n = read(fd_, buf, sizeof buf);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return true;
    }
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

struct ContextFree {
  void operator()(redisContext* c) const { redisFree(c); }
};
struct ReplyFree {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using Context = std::unique_ptr<redisContext, ContextFree>;
using ReplyPtr = std::unique_ptr<redisReply, ReplyFree>;

Context Connect(int port) {
  timeval tv{5, 0};
  Context c(redisConnectWithTimeout("127.0.0.1", port, tv));
  if (c && c->err == 0) redisSetTimeout(c.get(), tv);
  return c;
}

ReplyPtr Command(const Context& c, const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const std::string& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  return ReplyPtr(static_cast<redisReply*>(
      redisCommandArgv(c.get(), static_cast<int>(args.size()), argv.data(), lens.data())));
}

// "nil", "OK", "PONG", the string, or the integer as text.
std::string Text(const ReplyPtr& r) {
  if (!r) return "<no reply>";
  switch (r->type) {
    case REDIS_REPLY_NIL:
      return "nil";
    case REDIS_REPLY_INTEGER:
      return std::to_string(r->integer);
    default:
      return std::string(r->str, r->len);
  }
}

std::string GetDirect(int port, const std::string& key) {
  Context c = Connect(port);
  if (!c || c->err) return "<cannot connect>";
  return Text(Command(c, {"GET", key}));
}

template <typename Pred>
bool Eventually(Pred pred, milliseconds within = kPatience) {
  const auto deadline = Clock::now() + within;
  while (!pred()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return true;
}

size_t OpenDescriptors() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

const std::string kPing = Resp({"PING"});
const std::string kPong = "+PONG\r\n";

class ProxyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = RedisServer::Start(RedisServerOptions{});
    hub_ = std::make_unique<ProxyHub>(1);
    link_ = hub_->Open("A->redis0", server_->port());
    port_ = hub_->Port(link_);
  }

  std::unique_ptr<RedisServer> server_;
  std::unique_ptr<ProxyHub> hub_;
  int link_ = -1;
  int port_ = 0;
};

TEST_F(ProxyTest, PassesBytesThroughUnchanged) {
  Context c = Connect(port_);
  ASSERT_TRUE(c && c->err == 0);
  EXPECT_EQ(Text(Command(c, {"PING"})), "PONG");
  EXPECT_EQ(Text(Command(c, {"SET", "k", "v"})), "OK");
  EXPECT_EQ(Text(Command(c, {"GET", "k"})), "v");

  // A few MB of every byte value, CR LF and NUL included, both ways.
  Random random(7);
  std::string big(3 * 1024 * 1024 + 17, '\0');
  for (char& ch : big) ch = static_cast<char>(random.Uniform(256));
  EXPECT_EQ(Text(Command(c, {"SET", "big", big})), "OK");
  EXPECT_EQ(Text(Command(c, {"GET", "big"})), big);
  EXPECT_EQ(GetDirect(server_->port(), "big"), big);  // the node got the same bytes
  EXPECT_EQ(hub_->LiveConnections(link_), 1u);
  EXPECT_EQ(hub_->LastError(), "");
}

// A tapped link reports what a client's connection carried, decoded:
// pipelined commands and a big value split across reads included, and
// each reply before the client can have read it.
TEST_F(ProxyTest, ATappedLinkReportsEachCommandAndReplyInOrder) {
  hub_->Tap(link_);
  Context c = Connect(port_);
  ASSERT_TRUE(c && c->err == 0);
  const std::string big(200 * 1024, 'x');
  EXPECT_EQ(Text(Command(c, {"SET", "k", big, "PX", "5000", "NX"})), "OK");
  std::vector<ProxyHub::Tapped> seen = hub_->TakeTapped();  // the reply came: it is there
  RawClient raw(port_);
  raw.Send(Resp({"GET", "nokey"}) + Resp({"INCR", "n"}));  // pipelined
  EXPECT_EQ(raw.Read(9, kPatience), "$-1\r\n:1\r\n");
  for (ProxyHub::Tapped& t : hub_->TakeTapped()) seen.push_back(std::move(t));
  using Kind = ProxyHub::Tapped::Kind;
  ASSERT_EQ(seen.size(), 6u);
  EXPECT_EQ(seen[0].kind, Kind::kCommand);
  EXPECT_EQ(seen[0].command, (locksim::Command{"SET", "k", big, "PX", "5000", "NX"}));
  EXPECT_EQ(seen[1].kind, Kind::kReply);
  EXPECT_EQ(seen[1].reply, Reply::Status("OK"));
  EXPECT_EQ(seen[0].conn, 1u);
  EXPECT_EQ(seen[2].command, (locksim::Command{"GET", "nokey"}));
  EXPECT_EQ(seen[3].command, (locksim::Command{"INCR", "n"}));
  EXPECT_EQ(seen[4].reply, Reply::Nil());
  EXPECT_EQ(seen[5].reply, Reply::Integer(1));
  EXPECT_EQ(seen[2].conn, 2u);
  // Bytes that are not RESP end the tap on that connection, once.
  RawClient inline_client(port_);
  inline_client.Send("PING\r\n");  // an inline command: Redis answers, hiredis cannot read it
  EXPECT_EQ(inline_client.Read(kPong.size(), kPatience), kPong);
  const std::vector<ProxyHub::Tapped> after = hub_->TakeTapped();
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].kind, Kind::kUndecodable);
  EXPECT_NE(after[0].reply.str.find("stopped decoding A->redis0 connection 3"), std::string::npos)
      << after[0].reply.str;
  // An untapped link reports nothing.
  const int other = hub_->Open("B->redis0", server_->port());
  Context b = Connect(hub_->Port(other));
  ASSERT_TRUE(b && b->err == 0);
  EXPECT_EQ(Text(Command(b, {"PING"})), "PONG");
  EXPECT_TRUE(hub_->TakeTapped().empty());
}

TEST_F(ProxyTest, PartitionHoldsCommandsUntilHealThenDeliversThemInOrder) {
  RawClient before(port_);
  ASSERT_EQ(before.Call({"PING"}, kPong.size()), kPong);
  hub_->SetPartitioned(link_, true);
  before.Send(kPing);
  before.Send(Resp({"ECHO", "a"}));
  before.Send(Resp({"INCR", "n"}));
  RawClient during(port_);  // connects while partitioned
  ASSERT_TRUE(during.connected());
  during.Send(kPing);

  EXPECT_EQ(before.Read(1, kQuiet), "");
  EXPECT_EQ(during.Read(1, milliseconds(10)), "");
  EXPECT_EQ(GetDirect(server_->port(), "n"), "nil");  // not executed either

  hub_->SetPartitioned(link_, false);
  const std::string expected = kPong + "$1\r\na\r\n:1\r\n";
  EXPECT_EQ(before.Read(expected.size(), kPatience), expected);
  EXPECT_EQ(during.Read(kPong.size(), kPatience), kPong);
}

TEST_F(ProxyTest, ClientClosingDuringPartitionDropsWhatItSent) {
  RawClient c(port_);
  ASSERT_EQ(c.Call({"PING"}, kPong.size()), kPong);
  hub_->SetPartitioned(link_, true);
  c.Send(Resp({"INCR", "k"}));
  std::this_thread::sleep_for(milliseconds(50));  // the proxy holds it
  c.Close();
  ASSERT_TRUE(Eventually([&] { return hub_->LiveConnections(link_) == 0; }));
  hub_->Heal(link_);
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_EQ(GetDirect(server_->port(), "k"), "nil");
  EXPECT_EQ(GetDirect(port_, "k"), "nil");  // and the healed link works
}

// More than the proxy holds per direction (4 MiB): it stops reading, and
// must still notice the client giving up. (An abortive close: a FIN would
// wait in the client's kernel behind the bytes the proxy has not taken.)
TEST_F(ProxyTest, ClientResettingDuringPartitionDropsEvenWhatTheProxyCouldNotHold) {
  RawClient c(port_);
  ASSERT_EQ(c.Call({"PING"}, kPong.size()), kPong);
  hub_->SetPartitioned(link_, true);
  const std::string command = Resp({"SET", "k", std::string(6 * 1024 * 1024, 'x')});
  size_t sent = 0;
  auto last_progress = Clock::now();
  while (sent < command.size() && Clock::now() - last_progress < milliseconds(200)) {
    const ssize_t n = send(c.fd(), command.data() + sent, command.size() - sent,
                           MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent += static_cast<size_t>(n);
      last_progress = Clock::now();
    } else {
      std::this_thread::sleep_for(milliseconds(5));
    }
  }
  ASSERT_GT(sent, size_t{5} * 1024 * 1024) << "the kernel buffers took too little to test this";
  linger abort_on_close{1, 0};
  setsockopt(c.fd(), SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
  c.Close();
  ASSERT_TRUE(Eventually([&] { return hub_->LiveConnections(link_) == 0; }));
  hub_->Heal(link_);
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_EQ(GetDirect(server_->port(), "k"), "nil");
}

TEST_F(ProxyTest, ClientClosingOnASlowLinkStillDeliversWhatItSent) {
  // Without a partition the bytes are on their way: the FIN follows them.
  hub_->SetDelay(link_, milliseconds(100));
  RawClient c(port_);
  c.Send(Resp({"INCR", "k"}));
  c.Close();
  EXPECT_TRUE(Eventually([&] { return GetDirect(server_->port(), "k") == "1"; }));
  EXPECT_TRUE(Eventually([&] { return hub_->LiveConnections(link_) == 0; }));
}

TEST_F(ProxyTest, DelayHoldsEachDirectionAtLeastTheExtra) {
  RawClient c(port_);
  ASSERT_EQ(c.Call({"PING"}, kPong.size()), kPong);
  auto round_trip = [&] {
    const auto start = Clock::now();
    EXPECT_EQ(c.Call({"PING"}, kPong.size()), kPong);
    return Clock::now() - start;
  };
  hub_->SetDelay(link_, milliseconds(150));
  EXPECT_GE(round_trip(), milliseconds(300));
  hub_->SetDelay(link_, milliseconds(0), milliseconds(200));
  EXPECT_GE(round_trip(), milliseconds(200));
  hub_->SetDelay(link_, milliseconds(200), milliseconds(0));
  EXPECT_GE(round_trip(), milliseconds(200));
  hub_->Heal(link_);
  EXPECT_EQ(c.Call({"PING"}, kPong.size()), kPong);
}

TEST_F(ProxyTest, LossDeliversEverythingInOrderOnceItStops) {
  RawClient c(port_);
  ASSERT_EQ(c.Call({"PING"}, kPong.size()), kPong);
  hub_->SetLoss(link_, 100);
  std::string expected;
  for (int i = 0; i < 50; ++i) {
    const std::string v = std::to_string(i);
    c.Send(Resp({"ECHO", v}));
    expected += "$" + std::to_string(v.size()) + "\r\n" + v + "\r\n";
  }
  EXPECT_EQ(c.Read(1, kQuiet), "");  // every attempt so far was lost
  hub_->SetLoss(link_, 0);
  // The next retransmission (600 ms after the first try) gets through.
  EXPECT_EQ(c.Read(expected.size(), kPatience), expected);
}

TEST_F(ProxyTest, RetargetSendsNewConnectionsToTheOtherServer) {
  std::unique_ptr<RedisServer> other = RedisServer::Start(RedisServerOptions{});
  ASSERT_EQ(Text(Command(Connect(server_->port()), {"SET", "who", "first"})), "OK");
  ASSERT_EQ(Text(Command(Connect(other->port()), {"SET", "who", "second"})), "OK");
  Context old_conn = Connect(port_);
  ASSERT_EQ(Text(Command(old_conn, {"GET", "who"})), "first");
  hub_->Retarget(link_, other->port());
  EXPECT_EQ(Text(Command(Connect(port_), {"GET", "who"})), "second");
  EXPECT_EQ(Text(Command(old_conn, {"GET", "who"})), "first");  // live ones keep their node
}

// replica -> proxy -> master: the master's stream is the link's to_client
// direction, so its delay is the replication lag, and a partition holds it.
TEST_F(ProxyTest, ReplicationLinkLagsAndHoldsTheMastersStream) {
  std::unique_ptr<RedisServer> replica = RedisServer::Start(RedisServerOptions{});
  Context master = Connect(server_->port());
  Context r = Connect(replica->port());
  ASSERT_EQ(Text(Command(master, {"CONFIG", "SET", "repl-diskless-sync-delay", "0"})), "OK");
  const int repl = hub_->Open("redis1->redis0", server_->port());
  ASSERT_EQ(Text(Command(r, {"REPLICAOF", "127.0.0.1", std::to_string(hub_->Port(repl))})), "OK");
  ASSERT_EQ(Text(Command(master, {"SET", "x", "1"})), "OK");
  auto replica_has = [&](const std::string& v) { return Text(Command(r, {"GET", "x"})) == v; };
  ASSERT_TRUE(Eventually([&] { return replica_has("1"); }));
  EXPECT_EQ(hub_->LiveConnections(repl), 1u);

  hub_->SetDelay(repl, milliseconds(0), milliseconds(300));
  const auto start = Clock::now();
  ASSERT_EQ(Text(Command(master, {"SET", "x", "2"})), "OK");
  ASSERT_TRUE(Eventually([&] { return replica_has("2"); }));
  EXPECT_GE(Clock::now() - start, milliseconds(300));

  hub_->SetPartitioned(repl, true);
  ASSERT_EQ(Text(Command(master, {"SET", "x", "3"})), "OK");
  std::this_thread::sleep_for(kQuiet);
  EXPECT_TRUE(replica_has("2"));
  hub_->Heal(repl);
  EXPECT_TRUE(Eventually([&] { return replica_has("3"); }));
}

TEST_F(ProxyTest, CutConnectionsClosesEveryLiveConnection) {
  RawClient a(port_), b(port_);
  ASSERT_EQ(a.Call({"PING"}, kPong.size()), kPong);
  ASSERT_EQ(b.Call({"PING"}, kPong.size()), kPong);
  EXPECT_EQ(hub_->LiveConnections(link_), 2u);
  hub_->CutConnections(link_);
  EXPECT_EQ(hub_->LiveConnections(link_), 0u);  // at once
  EXPECT_TRUE(a.ClosedWithin(kPatience));
  EXPECT_TRUE(b.ClosedWithin(kPatience));
  RawClient c(port_);  // the link itself stays open
  EXPECT_EQ(c.Call({"PING"}, kPong.size()), kPong);
}

TEST_F(ProxyTest, KilledServerClosesTheClientSideAndRefusesNewOnes) {
  RawClient c(port_);
  ASSERT_EQ(c.Call({"PING"}, kPong.size()), kPong);
  server_.reset();  // SIGKILL
  EXPECT_TRUE(c.ClosedWithin(kPatience));
  EXPECT_TRUE(Eventually([&] { return hub_->LiveConnections(link_) == 0; }));
  RawClient refused(port_);
  refused.TrySend(kPing);  // the reset may come first
  EXPECT_TRUE(refused.ClosedWithin(kPatience));
  EXPECT_TRUE(Eventually([&] { return hub_->LiveConnections(link_) == 0; }));
  EXPECT_EQ(hub_->LastError(), "");  // a refused connect is expected
}

// A node of the test's own, to script it: it sends its last words and
// closes. The client gets every byte (after the link's delay), then EOF.
TEST(ProxyHubTest, NodeThatClosesHasItsBytesFlushedBeforeTheClientIsClosed) {
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(listener, 4), 0);
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);

  ProxyHub hub(1);
  const int link = hub.Open("A->fake", ntohs(addr.sin_port));
  hub.SetDelay(link, milliseconds(0), milliseconds(200));
  RawClient c(hub.Port(link));
  pollfd p{listener, POLLIN, 0};
  ASSERT_EQ(poll(&p, 1, static_cast<int>(kPatience.count())), 1);
  int node = accept(listener, nullptr, nullptr);
  ASSERT_GE(node, 0);
  const std::string last_words = "-ERR going away\r\n";
  ASSERT_EQ(write(node, last_words.data(), last_words.size()),
            static_cast<ssize_t>(last_words.size()));
  close(node);
  close(listener);
  EXPECT_EQ(c.Read(1, milliseconds(100)), "");  // still delayed
  EXPECT_EQ(c.Read(last_words.size(), kPatience), last_words);
  EXPECT_TRUE(c.ClosedWithin(kPatience));
}

// The listening socket's local address in /proc/net/tcp (hex, network
// order as the kernel prints it): 0100007F is 127.0.0.1.
std::string ListeningAddressInProc(const std::string& table, int port) {
  std::ifstream in(table);
  std::string line;
  std::getline(in, line);  // header
  char hex_port[8];
  std::snprintf(hex_port, sizeof hex_port, "%04X", port);
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    fields >> slot >> local >> remote >> state;
    const auto colon = local.rfind(':');
    if (state == "0A" && local.substr(colon + 1) == hex_port) return local.substr(0, colon);
  }
  return "";
}

TEST_F(ProxyTest, ListensOnLoopbackOnly) {
  EXPECT_EQ(hub_->ListenAddress(link_), "127.0.0.1:" + std::to_string(port_));
  EXPECT_EQ(ListeningAddressInProc("/proc/net/tcp", port_), "0100007F");
  EXPECT_EQ(ListeningAddressInProc("/proc/net/tcp6", port_), "");
  EXPECT_EQ(hub_->Name(link_), "A->redis0");
}

TEST_F(ProxyTest, DestructorWithLiveConnectionsAndHeldDataIsPromptAndLeaksNothing) {
  hub_.reset();
  const size_t before = OpenDescriptors();
  {
    std::vector<std::unique_ptr<RawClient>> clients;
    {
      auto hub = std::make_unique<ProxyHub>(2);
      const int held = hub->Open("A->redis0", server_->port());
      const int slow = hub->Open("B->redis0", server_->port());
      const int lossy = hub->Open("C->redis0", server_->port());
      for (int link : {held, slow, lossy}) {
        clients.push_back(std::make_unique<RawClient>(hub->Port(link)));
        ASSERT_EQ(clients.back()->Call({"PING"}, kPong.size()), kPong);
      }
      hub->SetPartitioned(held, true);
      hub->SetDelay(slow, std::chrono::seconds(30));
      hub->SetLoss(lossy, 100);
      for (auto& c : clients) c->Send(Resp({"SET", "k", std::string(100000, 'x')}));
      clients.push_back(std::make_unique<RawClient>(hub->Port(held)));  // not yet connected on
      std::this_thread::sleep_for(milliseconds(50));
      EXPECT_EQ(hub->LiveConnections(held), 2u);
      const auto start = Clock::now();
      hub.reset();
      EXPECT_LT(Clock::now() - start, std::chrono::seconds(2));
    }
    for (auto& c : clients) EXPECT_TRUE(c->ClosedWithin(kPatience));
  }
  EXPECT_EQ(OpenDescriptors(), before);
  EXPECT_EQ(GetDirect(server_->port(), "k"), "nil");  // nothing held got through
}

}  // namespace
}  // namespace locksim
