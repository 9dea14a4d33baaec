// RedisServer's start on real processes: a server that stays silent (seen
// once under ASan on a loaded CI machine: alive, no log, no answer to PING
// for 10 s) is killed and started again on a new port and folder, and what
// starts is a real, answering redis-server. The Unix socket the observer
// uses lives in the server's folder, for its owner only, and survives a
// restart; a folder too long for one starts on TCP alone, and a relative
// TMPDIR still gives the server an absolute folder.
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/real/redis_server.h"
#include "tests/testing/scoped_tmpdir.h"
#include "tests/testing/temp_dir.h"

namespace locksim {
namespace {

namespace fs = std::filesystem;

TEST(RedisServerStart, ASilentFirstLaunchIsKilledAndStartedAgainOnANewPort) {
  const std::string redis = RedisServer::Resolve("redis-server");
  if (redis.empty()) GTEST_SKIP() << "redis-server not found";
  TempDir tmp("locksim-servertest");
  // A stand-in binary: silent the first time (it only sleeps), the real
  // redis-server the second. The marker is how it tells the two apart.
  const std::string marker = tmp.path + "/first-launch-done";
  const std::string script = tmp.path + "/redis-server";
  std::ofstream(script) << "#!/bin/sh\n"
                        << "if [ ! -e '" << marker << "' ]; then : > '" << marker
                        << "'; exec sleep 60; fi\n"
                        << "exec '" << redis << "' \"$@\"\n";
  chmod(script.c_str(), 0755);

  RedisServerOptions options;
  options.binary = script;
  std::unique_ptr<RedisServer> server = RedisServer::Start(options);
  EXPECT_TRUE(fs::exists(marker)) << "the first launch ran";
  ASSERT_TRUE(server->running());
  // It answers, and it is the process the harness holds.
  redisContext* c = redisConnect("127.0.0.1", server->port());
  ASSERT_TRUE(c != nullptr && c->err == 0);
  auto* r = static_cast<redisReply*>(redisCommand(c, "INFO server"));
  ASSERT_NE(r, nullptr);
  EXPECT_NE(std::string(r->str, r->len).find("process_id:" + std::to_string(server->pid())),
            std::string::npos);
  freeReplyObject(r);
  redisFree(c);
}

// PING over a connection; true when it answers PONG.
bool Pongs(redisContext* c) {
  if (c == nullptr || c->err != 0) return false;
  auto* r = static_cast<redisReply*>(redisCommand(c, "PING"));
  const bool pong = r != nullptr && r->type == REDIS_REPLY_STATUS && std::string(r->str) == "PONG";
  if (r != nullptr) freeReplyObject(r);
  return pong;
}

// The socket's file: there, a socket, for its owner only.
void ExpectOwnersSocket(const std::string& path) {
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0) << path;
  EXPECT_TRUE(S_ISSOCK(st.st_mode)) << path;
  EXPECT_EQ(st.st_mode & 0777, 0700u) << path;
}

// CONFIG GET of one parameter: its value, or "?" when there is none.
std::string ConfigValue(redisContext* c, const char* name) {
  auto* r = static_cast<redisReply*>(redisCommand(c, "CONFIG GET %s", name));
  std::string value = "?";
  if (r != nullptr && r->type == REDIS_REPLY_ARRAY && r->elements == 2) {
    value.assign(r->element[1]->str, r->element[1]->len);
  }
  if (r != nullptr) freeReplyObject(r);
  return value;
}

// The longest path a Unix socket can have (sockaddr_un's sun_path, less
// its terminating NUL), and what a server folder's socket path will be.
constexpr size_t kMaxSocketPath = sizeof(sockaddr_un::sun_path) - 1;
size_t SocketPathLength(const std::string& tmpdir) {
  return (fs::path(tmpdir) / "locksim-redis-XXXXXX" / "redis.sock").string().size();
}

TEST(RedisServerStart, AUnixSocketLivesInTheServersFolderForItsOwnerOnly) {
  const std::string redis = RedisServer::Resolve("redis-server");
  if (redis.empty()) GTEST_SKIP() << "redis-server not found";
  if (SocketPathLength(fs::temp_directory_path().string()) > kMaxSocketPath) {
    GTEST_SKIP() << "TMPDIR too long for a Unix socket path";
  }
  RedisServerOptions options;
  options.binary = redis;
  options.unix_socket = true;
  std::string path;
  {
    std::unique_ptr<RedisServer> server = RedisServer::Start(options);
    path = server->unix_socket();
    ASSERT_EQ(path, server->dir() + "/redis.sock");
    ExpectOwnersSocket(path);
    redisContext* c = redisConnectUnix(path.c_str());
    EXPECT_TRUE(Pongs(c));
    redisFree(c);
    // kill -9 and a restart: the socket is there again, as it was.
    server->Kill();
    server->Restart();
    ExpectOwnersSocket(path);
    c = redisConnectUnix(path.c_str());
    EXPECT_TRUE(Pongs(c));
    redisFree(c);
  }
  EXPECT_FALSE(fs::exists(path)) << "removed with the server's folder";
}

TEST(RedisServerStart, AFolderTooLongForASocketPathStartsOnTcpAlone) {
  const std::string redis = RedisServer::Resolve("redis-server");
  if (redis.empty()) GTEST_SKIP() << "redis-server not found";
  const TmpdirTooLongForASocket tmpdir;
  ASSERT_GT(SocketPathLength(tmpdir.path()), kMaxSocketPath);
  RedisServerOptions options;
  options.binary = redis;
  options.unix_socket = true;
  std::unique_ptr<RedisServer> server = RedisServer::Start(options);
  EXPECT_EQ(server->unix_socket(), "");
  EXPECT_FALSE(fs::exists(server->dir() + "/redis.sock"));
  redisContext* c = redisConnect("127.0.0.1", server->port());
  EXPECT_TRUE(Pongs(c));
  EXPECT_EQ(ConfigValue(c, "unixsocket"), "") << "redis-server was given no socket";
  redisFree(c);
}

// The working folder for the scope of one test, put back however it ends.
class ScopedCwd {
 public:
  explicit ScopedCwd(const std::string& dir) : saved_(fs::current_path()) { fs::current_path(dir); }
  ~ScopedCwd() {
    std::error_code ec;
    fs::current_path(saved_, ec);
  }
  ScopedCwd(const ScopedCwd&) = delete;
  ScopedCwd& operator=(const ScopedCwd&) = delete;

 private:
  fs::path saved_;
};

// redis-server chdirs into --dir while it reads its options: a relative
// folder (a relative TMPDIR) would leave its log and its Unix socket,
// bound after that, pointing at nothing.
TEST(RedisServerStart, ARelativeTmpdirStillGivesTheServerItsLogAndSocket) {
  const std::string redis = RedisServer::Resolve("redis-server");
  if (redis.empty()) GTEST_SKIP() << "redis-server not found";
  TempDir tmp("locksim-servertest");
  fs::create_directories(tmp.path + "/rel");
  const ScopedCwd cwd(tmp.path);
  if (SocketPathLength(fs::current_path().string() + "/rel") > kMaxSocketPath) {
    GTEST_SKIP() << "TMPDIR too long for a Unix socket path";
  }
  const ScopedTmpdir scoped("rel");
  RedisServerOptions options;
  options.binary = redis;
  options.unix_socket = true;
  std::unique_ptr<RedisServer> server = RedisServer::Start(options);
  EXPECT_TRUE(fs::path(server->dir()).is_absolute()) << server->dir();
  EXPECT_TRUE(fs::exists(server->dir() + "/redis.log"));
  ASSERT_FALSE(server->unix_socket().empty());
  redisContext* c = redisConnectUnix(server->unix_socket().c_str());
  EXPECT_TRUE(Pongs(c));
  redisFree(c);
}

}  // namespace
}  // namespace locksim
