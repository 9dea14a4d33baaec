// `locksim serve`, run as a user runs it: the locksim binary as a child
// process, driven by the Debian redis-cli and by a hiredis client, and
// compared byte for byte with a real redis-server. Every child is killed
// and reaped on every exit path (Child's destructor), and dies with the test
// process if that is killed (PR_SET_PDEATHSIG).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "sim/real/redis_server.h"
#include "tests/testing/redis_oracle.h"

namespace locksim {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr char kRedisCli[] = "/usr/bin/redis-cli";
constexpr char kCompareAndDelete[] =
    "if redis.call(\"get\",KEYS[1]) == ARGV[1] then return redis.call(\"del\",KEYS[1]) "
    "else return 0 end";
constexpr milliseconds kTimeout{10000};

// A child process whose stdout and stderr are read through pipes.
class Child {
 public:
  explicit Child(const std::vector<std::string>& argv, const std::string& input = "") {
    int in[2], out[2], err[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
      throw std::runtime_error("pipe2 failed");
    }
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);
      dup2(in[0], 0);
      dup2(out[1], 1);
      dup2(err[1], 2);
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(err[1]);
    // Small inputs only: they fit in the pipe, so this cannot block.
    if (!input.empty() && write(in[1], input.data(), input.size()) < 0) {
      throw std::runtime_error("write to child failed");
    }
    close(in[1]);
    out_fd_ = out[0];
    err_fd_ = err[0];
  }
  ~Child() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_fd_ >= 0) close(out_fd_);
    if (err_fd_ >= 0) close(err_fd_);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& out() const { return out_; }
  const std::string& err() const { return err_; }

  // Reads output until stdout contains `needle`; false on timeout or EOF.
  bool ReadUntil(const std::string& needle, milliseconds timeout = kTimeout) {
    const auto deadline = Clock::now() + timeout;
    while (out_.find(needle) == std::string::npos) {
      if (!Pump(deadline)) return false;
    }
    return true;
  }

  // Waits for the exit (reading all output); the exit code, 128 + signal,
  // or -1 if it did not exit in time (it is then killed).
  int Wait(milliseconds timeout = kTimeout) {
    const auto deadline = Clock::now() + timeout;
    while (Pump(deadline)) {
    }
    for (;;) {
      int status = 0;
      const pid_t r = waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      if (Clock::now() >= deadline) return -1;  // the destructor kills it
      std::this_thread::sleep_for(milliseconds(5));
    }
  }

 private:
  // Reads what is available until the deadline; false at EOF or timeout.
  bool Pump(Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (left.count() <= 0 || (out_fd_ < 0 && err_fd_ < 0)) return false;
    pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    if (poll(fds, 2, static_cast<int>(left.count())) <= 0) return false;
    char buf[4096];
    for (int i = 0; i < 2; ++i) {
      if (fds[i].revents == 0) continue;
      int& fd = i == 0 ? out_fd_ : err_fd_;
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n <= 0) {
        close(fd);
        fd = -1;
      } else {
        (i == 0 ? out_ : err_).append(buf, static_cast<size_t>(n));
      }
    }
    return true;
  }

  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string out_, err_;
};

// `locksim serve` with `args`, started and waited for: port() is set once
// it printed its address.
class Server {
 public:
  explicit Server(std::vector<std::string> args = {"--port", "0"}) {
    args.insert(args.begin(), {LOCKSIM_BINARY, "serve"});
    child_ = std::make_unique<Child>(args);
    const std::string prefix = "locksim serve: listening on ";
    if (!child_->ReadUntil("\n")) return;
    const std::string& out = child_->out();
    if (out.rfind(prefix, 0) != 0) return;
    address_ = out.substr(prefix.size(), out.find('\n') - prefix.size());
    port_ = std::stoi(address_.substr(address_.rfind(':') + 1));
  }
  int port() const { return port_; }
  const std::string& address() const { return address_; }
  Child& child() { return *child_; }

 private:
  std::unique_ptr<Child> child_;
  std::string address_;
  int port_ = 0;
};

// One redis-cli invocation (one connection): its stdout, as redis-cli
// prints for a terminal (--no-raw), so types show: (integer) 1, (nil).
std::string RedisCli(int port, std::vector<std::string> args, const std::string& input = "") {
  args.insert(args.begin(), {kRedisCli, "--no-raw", "-p", std::to_string(port)});
  Child cli(args, input);
  const int code = cli.Wait();
  EXPECT_EQ(code, 0) << cli.err();
  return cli.out();
}

// A hiredis client with a timeout, so that a missing reply fails the test
// instead of hanging it.
class Hiredis {
 public:
  explicit Hiredis(int port) {
    const timeval tv{5, 0};
    c_ = redisConnectWithTimeout("127.0.0.1", port, tv);
    if (c_ != nullptr && c_->err == 0) redisSetTimeout(c_, tv);
  }
  ~Hiredis() {
    if (c_ != nullptr) redisFree(c_);
  }
  bool ok() const { return c_ != nullptr && c_->err == 0; }

  // The reply, and hiredis's own type code (to tell nil from the rest).
  Reply Send(const Command& cmd, int* type = nullptr) {
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (const std::string& a : cmd) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    void* r = redisCommandArgv(c_, static_cast<int>(argv.size()), argv.data(), lens.data());
    return Take(r, type);
  }
  // The next pushed message (pub/sub).
  Reply Next() {
    void* r = nullptr;
    if (redisGetReply(c_, &r) != REDIS_OK) r = nullptr;
    return Take(r, nullptr);
  }

 private:
  Reply Take(void* r, int* type) {
    if (r == nullptr) return Reply::Error("(no reply: " + std::string(c_->errstr) + ")");
    if (type != nullptr) *type = static_cast<redisReply*>(r)->type;
    Reply out = ReplyFromHiredis(static_cast<redisReply*>(r));
    freeReplyObject(r);
    return out;
  }
  redisContext* c_ = nullptr;
};

// A plain TCP connection, for the exact bytes on the wire.
class Raw {
 public:
  explicit Raw(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~Raw() { close(fd_); }
  bool connected() const { return connected_; }

  void Send(const std::string& bytes) {
    ASSERT_EQ(send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
  }
  // Reads until `replies` complete replies have arrived; returns their bytes.
  std::string Read(int replies) {
    std::unique_ptr<redisReader, decltype(&redisReaderFree)> reader(redisReaderCreate(),
                                                                     &redisReaderFree);
    std::string bytes;
    const auto deadline = Clock::now() + kTimeout;
    while (replies > 0) {
      void* r = nullptr;
      if (redisReaderGetReply(reader.get(), &r) != REDIS_OK) break;
      if (r != nullptr) {
        freeReplyObject(r);
        --replies;
        continue;
      }
      const std::string chunk = ReadSome(deadline);
      if (chunk.empty()) break;
      bytes += chunk;
      redisReaderFeed(reader.get(), chunk.data(), chunk.size());
    }
    return bytes;
  }
  // True if the server closed the connection (after whatever it sent).
  bool ClosedByPeer() {
    const auto deadline = Clock::now() + kTimeout;
    pollfd p{fd_, POLLIN, 0};
    while (Clock::now() < deadline && poll(&p, 1, 100) >= 0) {
      char buf[256];
      if (p.revents == 0) continue;
      const ssize_t n = recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return true;
    }
    return false;
  }

 private:
  std::string ReadSome(Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    pollfd p{fd_, POLLIN, 0};
    if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) <= 0) return {};
    char buf[4096];
    const ssize_t n = recv(fd_, buf, sizeof buf, 0);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
  }
  int fd_ = -1;
  bool connected_ = false;
};

std::string Resp(const Command& argv) {
  std::string s = "*" + std::to_string(argv.size()) + "\r\n";
  for (const std::string& a : argv) s += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return s;
}

class ServeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(kRedisCli, X_OK) != 0) GTEST_SKIP() << kRedisCli << " is not installed";
    server_ = std::make_unique<Server>(ServerArgs());
    ASSERT_NE(server_->port(), 0) << "no address printed; stdout: " << server_->child().out()
                                  << " stderr: " << server_->child().err();
    port_ = server_->port();
  }
  virtual std::vector<std::string> ServerArgs() const { return {"--port", "0"}; }
  std::unique_ptr<Server> server_;
  int port_ = 0;
};

TEST_F(ServeTest, PrintsItsLoopbackAddress) {
  EXPECT_EQ(server_->address(), "127.0.0.1:" + std::to_string(port_));
}

TEST_F(ServeTest, RedisCliLockSession) {
  EXPECT_EQ(RedisCli(port_, {"SET", "lock:order", "tokA", "NX", "PX", "5000"}), "OK\n");
  EXPECT_EQ(RedisCli(port_, {"SET", "lock:order", "tokB", "NX", "PX", "5000"}), "(nil)\n");
  EXPECT_EQ(RedisCli(port_, {"GET", "lock:order"}), "\"tokA\"\n");
  const std::string pttl = RedisCli(port_, {"PTTL", "lock:order"});
  ASSERT_EQ(pttl.rfind("(integer) ", 0), 0u) << pttl;
  const int ms = std::stoi(pttl.substr(10));
  EXPECT_GT(ms, 0);
  EXPECT_LE(ms, 5000);
  // The compare-and-delete release: another token leaves the lock alone.
  EXPECT_EQ(RedisCli(port_, {"EVAL", kCompareAndDelete, "1", "lock:order", "tokB"}),
            "(integer) 0\n");
  EXPECT_EQ(RedisCli(port_, {"EVAL", kCompareAndDelete, "1", "lock:order", "tokA"}),
            "(integer) 1\n");
  EXPECT_EQ(RedisCli(port_, {"GET", "lock:order"}), "(nil)\n");
}

TEST_F(ServeTest, RedisCliTransactionOnOneConnection) {
  // Commands on stdin go over one connection, so MULTI state carries over.
  EXPECT_EQ(RedisCli(port_, {}, "MULTI\nSET t 1\nGET t\nGET missing\nEXEC\n"),
            "OK\nQUEUED\nQUEUED\nQUEUED\n1) OK\n2) \"1\"\n3) (nil)\n");
}

TEST_F(ServeTest, HiredisLockTransactionAndWatch) {
  Hiredis a(port_), b(port_);
  ASSERT_TRUE(a.ok() && b.ok());
  int type = 0;
  EXPECT_EQ(a.Send({"SET", "lock:x", "tokA", "NX", "PX", "5000"}), Reply::Ok());
  EXPECT_EQ(b.Send({"SET", "lock:x", "tokB", "NX", "PX", "5000"}, &type), Reply::Nil());
  EXPECT_EQ(type, REDIS_REPLY_NIL);
  EXPECT_EQ(b.Send({"GET", "lock:x"}), Reply::String("tokA"));
  const Reply pttl = a.Send({"PTTL", "lock:x"});
  ASSERT_EQ(pttl.type, Reply::Type::kInteger);
  EXPECT_GT(pttl.integer, 0);
  EXPECT_LE(pttl.integer, 5000);
  EXPECT_EQ(b.Send({"EVAL", kCompareAndDelete, "1", "lock:x", "tokB"}), Reply::Integer(0));
  EXPECT_EQ(a.Send({"EVAL", kCompareAndDelete, "1", "lock:x", "tokA"}), Reply::Integer(1));

  // MULTI state is per connection: b's GET runs at once while a queues.
  EXPECT_EQ(a.Send({"MULTI"}), Reply::Ok());
  EXPECT_EQ(a.Send({"SET", "t", "1"}), Reply::Status("QUEUED"));
  EXPECT_EQ(b.Send({"GET", "t"}), Reply::Nil());
  EXPECT_EQ(a.Send({"EXEC"}), Reply::Array({Reply::Ok()}));
  EXPECT_EQ(b.Send({"GET", "t"}), Reply::String("1"));

  // WATCH: another client's write aborts the transaction (EXEC -> nil).
  EXPECT_EQ(a.Send({"WATCH", "t"}), Reply::Ok());
  EXPECT_EQ(b.Send({"SET", "t", "2"}), Reply::Ok());
  EXPECT_EQ(a.Send({"MULTI"}), Reply::Ok());
  EXPECT_EQ(a.Send({"SET", "t", "3"}), Reply::Status("QUEUED"));
  EXPECT_EQ(a.Send({"EXEC"}, &type), Reply::Nil());
  EXPECT_EQ(type, REDIS_REPLY_NIL);
  EXPECT_EQ(b.Send({"GET", "t"}), Reply::String("2"));
}

TEST_F(ServeTest, PublishReachesSubscribersOfOtherClients) {
  // A hiredis subscriber, redis-cli publishes.
  Hiredis sub(port_);
  ASSERT_TRUE(sub.ok());
  EXPECT_EQ(sub.Send({"SUBSCRIBE", "unlock:x"}),
            Reply::Array({Reply::String("subscribe"), Reply::String("unlock:x"),
                          Reply::Integer(1)}));
  EXPECT_EQ(RedisCli(port_, {"PUBLISH", "unlock:x", "released"}), "(integer) 1\n");
  EXPECT_EQ(sub.Next(), Reply::Array({Reply::String("message"), Reply::String("unlock:x"),
                                      Reply::String("released")}));

  // A redis-cli subscriber (it runs until killed), hiredis publishes.
  Child cli({kRedisCli, "--no-raw", "-p", std::to_string(port_), "SUBSCRIBE", "news"});
  ASSERT_TRUE(cli.ReadUntil("3) (integer) 1\n")) << cli.out() << cli.err();
  Hiredis pub(port_);
  // redis-cli printed the reply, so it is subscribed: one receiver.
  EXPECT_EQ(pub.Send({"PUBLISH", "news", "hello"}), Reply::Integer(1));
  EXPECT_TRUE(cli.ReadUntil("1) \"message\"\n2) \"news\"\n3) \"hello\"\n")) << cli.out();
}

TEST_F(ServeTest, ClockJumpExpiresKeysAndCanGoBack) {
  EXPECT_EQ(RedisCli(port_, {"SET", "lock:a", "t", "PX", "5000"}), "OK\n");
  EXPECT_EQ(RedisCli(port_, {"SET", "lock:b", "t", "PX", "5000"}), "OK\n");
  // 2 s forward: the lease has at most 3 s left (and, unless this machine
  // stalls for 3 s, some).
  EXPECT_EQ(RedisCli(port_, {"LOCKSIM.CLOCK", "JUMP", "2000"}), "(integer) 2000\n");
  const std::string pttl = RedisCli(port_, {"PTTL", "lock:a"});
  ASSERT_EQ(pttl.rfind("(integer) ", 0), 0u) << pttl;
  EXPECT_GT(std::stoi(pttl.substr(10)), 0);
  EXPECT_LE(std::stoi(pttl.substr(10)), 3000);
  // 10 s forward in all: both keys are gone, whether read or not.
  EXPECT_EQ(RedisCli(port_, {"LOCKSIM.CLOCK", "JUMP", "8000"}), "(integer) 10000\n");
  EXPECT_EQ(RedisCli(port_, {"GET", "lock:a"}), "(nil)\n");
  Hiredis h(port_);
  EXPECT_EQ(h.Send({"PTTL", "lock:b"}), Reply::Integer(-2));

  // GET reports the offset and the node time; a jump back, and a set.
  const Reply got = h.Send({"LOCKSIM.CLOCK", "GET"});
  ASSERT_EQ(got.type, Reply::Type::kArray);
  ASSERT_EQ(got.elements.size(), 2u);
  EXPECT_EQ(got.elements[0], Reply::Integer(10000));
  const int64_t host_ms = std::chrono::duration_cast<milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
  EXPECT_NEAR(static_cast<double>(got.elements[1].integer), host_ms + 10000.0, 2000.0);
  EXPECT_EQ(RedisCli(port_, {"LOCKSIM.CLOCK", "JUMP", "-10000"}), "(integer) 0\n");
  EXPECT_EQ(h.Send({"locksim.clock", "offset", "-250"}), Reply::Integer(-250));
  EXPECT_EQ(h.Send({"LOCKSIM.CLOCK", "JUMP", "x"}),
            Reply::Error("ERR value is not an integer or out of range"));
  EXPECT_TRUE(h.Send({"LOCKSIM.CLOCK", "OFFSET", "9223372036854775807"}).IsError());
  EXPECT_TRUE(h.Send({"LOCKSIM.CLOCK", "BOGUS"}).IsError());
  EXPECT_EQ(h.Send({"LOCKSIM.CLOCK", "GET"}).elements.at(0), Reply::Integer(-250));
}

TEST_F(ServeTest, QuitRepliesOkAndCloses) {
  Raw raw(port_);
  ASSERT_TRUE(raw.connected());
  raw.Send(Resp({"QUIT"}));
  EXPECT_EQ(raw.Read(1), "+OK\r\n");
  EXPECT_TRUE(raw.ClosedByPeer());
}

TEST_F(ServeTest, ProtocolErrorIsReportedThenTheConnectionCloses) {
  Raw raw(port_);
  ASSERT_TRUE(raw.connected());
  raw.Send("PING\r\n");  // inline commands are not accepted
  const std::string reply = raw.Read(1);
  EXPECT_EQ(reply.rfind("-ERR Protocol error: ", 0), 0u) << reply;
  EXPECT_TRUE(raw.ClosedByPeer());
  // The server itself carries on.
  Hiredis h(port_);
  EXPECT_EQ(h.Send({"PING"}), Reply::Status("PONG"));
}

TEST_F(ServeTest, PipelinedAndFragmentedRequests) {
  Raw raw(port_);
  ASSERT_TRUE(raw.connected());
  std::string many;
  for (int i = 0; i < 200; ++i) many += Resp({"PING", std::to_string(i)});
  raw.Send(many);
  std::string expected;
  for (int i = 0; i < 200; ++i) {
    const std::string s = std::to_string(i);
    expected += "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n";
  }
  EXPECT_EQ(raw.Read(200), expected);
  // One request, one byte at a time.
  for (char ch : Resp({"SET", "k", "v"})) raw.Send(std::string(1, ch));
  EXPECT_EQ(raw.Read(1), "+OK\r\n");
}

TEST_F(ServeTest, ManyClientsAtOnce) {
  std::vector<std::unique_ptr<Hiredis>> clients;
  for (int i = 0; i < 64; ++i) {
    clients.push_back(std::make_unique<Hiredis>(port_));
    ASSERT_TRUE(clients.back()->ok());
  }
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(clients[i]->Send({"SET", "k" + std::to_string(i), std::to_string(i)}), Reply::Ok());
  }
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(clients[63 - i]->Send({"GET", "k" + std::to_string(i)}),
              Reply::String(std::to_string(i)));
  }
}

// The bytes locksim serve writes are the bytes redis-server 7.0 writes, for
// every reply type, both nils (EXEC's *-1 and GET's $-1) and pub/sub.
TEST_F(ServeTest, SameBytesAsRedisServer) {
  std::unique_ptr<RedisServer> redis = RedisServer::Start(RedisServerOptions{});
  struct Step {
    int conn;
    Command argv;
    int replies;
  };
  const std::vector<Step> steps = {
      {0, {"PING"}, 1},
      {0, {"SET", "k", "v", "NX", "PX", "60000"}, 1},
      {0, {"SET", "k", "w", "NX", "PX", "60000"}, 1},
      {0, {"GET", "k"}, 1},
      {0, {"GET", "missing"}, 1},
      {0, {"SET", "k", "v2", "GET"}, 1},
      {0, {"PTTL", "k"}, 1},
      {0, {"PTTL", "missing"}, 1},
      {0, {"EVAL", kCompareAndDelete, "1", "k", "other"}, 1},
      {0, {"EVAL", "return redis.call('get', KEYS[1])", "1", "missing"}, 1},
      {0, {"EVAL", kCompareAndDelete, "1", "k", "v2"}, 1},
      {0, {"MULTI"}, 1},
      {0, {"SET", "t", "1"}, 1},
      {0, {"GET", "t"}, 1},
      {0, {"GET", "missing"}, 1},
      {0, {"EXEC"}, 1},
      {0, {"WATCH", "t"}, 1},
      {1, {"SET", "t", "2"}, 1},
      {0, {"MULTI"}, 1},
      {0, {"GET", "t"}, 1},
      {0, {"EXEC"}, 1},
      {0, {"EXEC"}, 1},
      {0, {"GET"}, 1},
      {0, {"NOSUCHCOMMAND", "a"}, 1},
      {0, {"SUBSCRIBE", "c1", "c2"}, 2},
      {1, {"PUBLISH", "c2", "hello"}, 1},
      {0, {}, 1},  // no request: read the message
      {0, {"PING"}, 1},
      {0, {"GET", "t"}, 1},
      {0, {"UNSUBSCRIBE", "c1", "c2"}, 2},
      {0, {"UNSUBSCRIBE"}, 1},  // no channel left: a nil bulk for it
      {0, {"DEL", "t", "missing"}, 1},
      {0, {"QUIT"}, 1},
  };
  Raw ours0(port_), ours1(port_), theirs0(redis->port()), theirs1(redis->port());
  ASSERT_TRUE(ours0.connected() && ours1.connected() && theirs0.connected() &&
              theirs1.connected());
  Raw* ours[] = {&ours0, &ours1};
  Raw* theirs[] = {&theirs0, &theirs1};
  for (const Step& s : steps) {
    const std::string request = s.argv.empty() ? "" : Resp(s.argv);
    if (!request.empty()) {
      theirs[s.conn]->Send(request);
      ours[s.conn]->Send(request);
    }
    const std::string expected = theirs[s.conn]->Read(s.replies);
    EXPECT_EQ(ours[s.conn]->Read(s.replies), expected) << FormatCommand(s.argv);
  }
}

TEST(ServeOptionsTest, OnlyLoopbackAddressesAndValidOptions) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--port", "0", "--bind", "0.0.0.0"}, "--bind: \"0.0.0.0\" is not a loopback address"},
      {{"--port", "0", "--bind", "192.168.1.10"}, "--bind: \"192.168.1.10\" is not a loopback"},
      {{"--port", "0", "--bind", "::"}, "--bind: \"::\" is not a loopback address"},
      {{"--port", "0", "--bind", "no such host!"}, "--bind: cannot resolve"},
      {{"--port", "70000"}, "--port: expected an integer from 0 to 65535"},
      {{"--port", "x"}, "--port: expected an integer"},
      {{}, "missing --port"},
      {{"--port", "0", "--clock-offset", "soon"}, "--clock-offset: expected an integer"},
      {{"--port", "0", "--seed", "-1"}, "--seed"},
      {{"--port", "0", "--busy-reply-threshold", "-1"}, "--busy-reply-threshold: expected"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {LOCKSIM_BINARY, "serve"};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    Child child(argv);
    EXPECT_EQ(child.Wait(), 2) << c.message;
    EXPECT_NE(child.err().find(c.message), std::string::npos) << child.err();
    EXPECT_EQ(child.out(), "");
  }
}

TEST(ServeOptionsTest, Ipv6LoopbackWorks) {
  Server server({"--port", "0", "--bind", "::1"});
  if (server.port() == 0 && server.child().err().find("--bind") != std::string::npos) {
    GTEST_SKIP() << "no IPv6 loopback here: " << server.child().err();
  }
  ASSERT_NE(server.port(), 0) << server.child().err();
  EXPECT_EQ(server.address(), "[::1]:" + std::to_string(server.port()));
}

TEST(ServeOptionsTest, SecondServerOnTheSamePortExitsTwo) {
  Server first;
  ASSERT_NE(first.port(), 0) << first.child().err();
  Child second({LOCKSIM_BINARY, "serve", "--port", std::to_string(first.port())});
  EXPECT_EQ(second.Wait(), 2);
  EXPECT_NE(second.err().find("--port: 127.0.0.1:" + std::to_string(first.port()) +
                              " is already in use"),
            std::string::npos)
      << second.err();
  // The first one is unharmed.
  Hiredis h(first.port());
  EXPECT_EQ(h.Send({"PING"}), Reply::Status("PONG"));
}

// A script that does not end: once it has run Redis's busy threshold (5 s)
// the other clients get BUSY, SCRIPT KILL stops it (its client gets
// Redis's error, byte for byte as redis-server 7.0 sends it), and the
// server serves again. One that wrote cannot be killed.
// serve and a redis-server 7.0 side by side, each with two connections
// (`runner` runs a script, `other` asks meanwhile): index 0 is serve's,
// 1 redis-server's.
class ServeSideBySideTest : public ServeTest {
 protected:
  void SetUp() override {
    ServeTest::SetUp();
    if (IsSkipped()) return;
    RedisServerOptions redis;
    redis.extra_args = {"--busy-reply-threshold", std::to_string(kBusyMs)};
    redis_ = RedisServer::Start(redis);
    for (int port : {port_, redis_->port()}) {
      runner_.push_back(std::make_unique<Raw>(port));
      other_.push_back(std::make_unique<Raw>(port));
      ASSERT_TRUE(runner_.back()->connected() && other_.back()->connected());
    }
  }
  // Sends argv on both connections of `conns` and expects the same bytes
  // back from both; returns redis-server's.
  std::string Both(std::vector<std::unique_ptr<Raw>>& conns, const Command& argv) {
    for (auto& c : conns) c->Send(Resp(argv));
    const std::string theirs = conns[1]->Read(1);
    EXPECT_EQ(conns[0]->Read(1), theirs) << FormatCommand(argv);
    return theirs;
  }
  // Starts `script` on both runners, and lets it start before the others
  // ask (two connections' requests are not ordered otherwise).
  void RunOnBoth(const std::string& script) {
    for (auto& r : runner_) r->Send(Resp({"EVAL", script, "0"}));
    std::this_thread::sleep_for(milliseconds(200));
  }
  // Both busy after 500 ms, not Redis's default 5 s: the same replies,
  // without two cores spun for 5 s a script.
  static constexpr int kBusyMs = 500;
  std::vector<std::string> ServerArgs() const override {
    return {"--port", "0", "--busy-reply-threshold", std::to_string(kBusyMs)};
  }
  std::unique_ptr<RedisServer> redis_;
  std::vector<std::unique_ptr<Raw>> runner_, other_;
};

// A script that never ends (both wait out the busy threshold at once):
// PING from another connection gets BUSY, SCRIPT KILL stops it (the
// script's client gets the killed error), PING gets PONG; a script that
// wrote cannot be killed. The same bytes from both, every step.
TEST_F(ServeSideBySideTest, ABusyScriptAnswersBusyAndScriptKillStopsIt) {
  auto expect_starts = [](const std::string& reply, const std::string& start) {
    EXPECT_EQ(reply.rfind(start, 0), 0u) << reply;
  };
  RunOnBoth("while true do end");
  expect_starts(Both(other_, {"PING"}), "-BUSY Redis is busy running a script.");
  expect_starts(Both(other_, {"SCRIPT", "KILL"}), "+OK");
  const std::string killed = runner_[1]->Read(1);
  EXPECT_EQ(runner_[0]->Read(1), killed);
  EXPECT_EQ(killed,
            "-ERR Script killed by user with SCRIPT KILL... script: "
            "694a5fe1ddb97a4c6a1bf299d9537c7d3d0f84e7, on @user_script:1.\r\n");
  expect_starts(Both(other_, {"PING"}), "+PONG");
  expect_starts(Both(other_, {"SCRIPT", "KILL"}), "-NOTBUSY");
  // A script that wrote: UNKILLABLE (SHUTDOWN NOSAVE ends it: below).
  RunOnBoth("redis.call('set', 'x', '1') while true do end");
  expect_starts(Both(other_, {"SCRIPT", "KILL"}),
                "-UNKILLABLE Sorry the script already executed write commands");
  for (auto& o : other_) o->Send(Resp({"SHUTDOWN", "NOSAVE"}));
}

// A script that wrote cannot be killed; SHUTDOWN NOSAVE is the way out:
// the same bytes back from both until then, then both close every
// connection unanswered and stop listening.
TEST_F(ServeSideBySideTest, ShutdownNosaveEndsAWritingBusyScriptAsRedisServerDoes) {
  // Outside a script: refused inside MULTI (and the transaction aborted).
  for (const Command& argv :
       std::vector<Command>{{"MULTI"}, {"SHUTDOWN"}, {"SHUTDOWN", "NOSAVE"}, {"EXEC"}}) {
    Both(other_, argv);
  }
  RunOnBoth("redis.call('set', 'x', '1') while true do end");
  for (const Command& argv : std::vector<Command>{{"PING"},
                                                  {"SHUTDOWN"},
                                                  {"SHUTDOWN", "SAVE"},
                                                  {"SHUTDOWN", "FOO"},
                                                  {"SHUTDOWN", "ABORT"},
                                                  {"SHUTDOWN", "NOSAVE", "ABORT"},
                                                  {"SHUTDOWN", "NOSAVE", "SAVE"},
                                                  {"SCRIPT", "KILL"}}) {
    Both(other_, argv);
  }
  for (auto& o : other_) o->Send(Resp({"SHUTDOWN", "NOSAVE"}));
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE(i == 0 ? "locksim serve" : "redis-server");
    EXPECT_TRUE(other_[i]->ClosedByPeer());
    EXPECT_TRUE(runner_[i]->ClosedByPeer());
  }
  EXPECT_EQ(server_->child().Wait(), 0) << server_->child().err();
  EXPECT_NE(server_->child().err().find("stopped by SHUTDOWN"), std::string::npos)
      << server_->child().err();
  EXPECT_FALSE(Raw(port_).connected()) << "serve still listening";
}

// --busy-reply-threshold, as redis-server's: the other clients are
// answered BUSY once a script has run that long, not before, and not only
// after the default 5 s.
TEST(ServeBusyThresholdTest, OtherClientsGetBusyOnceAScriptHasRunThatLong) {
  Server server({"--port", "0", "--busy-reply-threshold", "300"});
  ASSERT_NE(server.port(), 0) << server.child().err();
  Raw runner(server.port()), other(server.port());
  ASSERT_TRUE(runner.connected() && other.connected());
  const auto start = Clock::now();
  runner.Send(Resp({"EVAL", "while true do end", "0"}));
  std::this_thread::sleep_for(milliseconds(50));
  other.Send(Resp({"PING"}));
  const std::string reply = other.Read(1);
  const auto waited = Clock::now() - start;
  EXPECT_EQ(reply.rfind("-BUSY Redis is busy running a script.", 0), 0u) << reply;
  EXPECT_GE(waited, milliseconds(300));
  EXPECT_LT(waited, std::chrono::seconds(5)) << "the default threshold, not the one given";
  other.Send(Resp({"SCRIPT", "KILL"}));
  EXPECT_EQ(other.Read(1), "+OK\r\n");
}

class ServeStopTest : public ::testing::TestWithParam<int> {};

// A stop signal ends even a busy script that wrote, and then the server.
TEST(ServeBusyStopTest, AStopSignalEndsABusyScriptAndTheServer) {
  Server server;
  ASSERT_NE(server.port(), 0) << server.child().err();
  Raw runner(server.port());
  runner.Send(Resp({"EVAL", "redis.call('set', 'x', '1') while true do end", "0"}));
  std::this_thread::sleep_for(milliseconds(300));
  ASSERT_EQ(kill(server.child().pid(), SIGTERM), 0);
  EXPECT_EQ(server.child().Wait(), 0) << server.child().err();
  EXPECT_NE(server.child().err().find("stopped by SIGTERM"), std::string::npos)
      << server.child().err();
}

TEST_P(ServeStopTest, StopSignalClosesEverythingAndExitsZero) {
  const int signo = GetParam();
  Server server;
  ASSERT_NE(server.port(), 0) << server.child().err();
  Raw client(server.port());  // an open connection does not hold it up
  ASSERT_TRUE(client.connected());
  client.Send(Resp({"PING"}));
  EXPECT_EQ(client.Read(1), "+PONG\r\n");
  ASSERT_EQ(kill(server.child().pid(), signo), 0);
  EXPECT_EQ(server.child().Wait(), 0) << server.child().err();  // reaped
  EXPECT_NE(server.child().err().find(std::string("stopped by SIG") + sigabbrev_np(signo)),
            std::string::npos)
      << server.child().err();
  EXPECT_TRUE(client.ClosedByPeer());
  EXPECT_FALSE(Raw(server.port()).connected()) << "still listening";
}

INSTANTIATE_TEST_SUITE_P(Signals, ServeStopTest, ::testing::Values(SIGTERM, SIGINT),
                         [](const auto& info) {
                           return std::string("SIG") + sigabbrev_np(info.param);
                         });

}  // namespace
}  // namespace locksim
