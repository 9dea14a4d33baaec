// RedisServer's start on real processes: a server that stays silent (seen
// once under ASan on a loaded CI machine: alive, no log, no answer to PING
// for 10 s) is killed and started again on a new port and folder, and what
// starts is a real, answering redis-server. The Unix socket the observer
// uses lives in the server's folder, for its owner only, and survives a
// restart.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/real/redis_server.h"
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

TEST(RedisServerStart, AUnixSocketLivesInTheServersFolderForItsOwnerOnly) {
  const std::string redis = RedisServer::Resolve("redis-server");
  if (redis.empty()) GTEST_SKIP() << "redis-server not found";
  RedisServerOptions options;
  options.binary = redis;
  options.unix_socket = true;
  std::string path;
  {
    std::unique_ptr<RedisServer> server = RedisServer::Start(options);
    path = server->unix_socket();
    ASSERT_EQ(path, server->dir() + "/redis.sock");
    struct stat st {};
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    redisContext* c = redisConnectUnix(path.c_str());
    EXPECT_TRUE(Pongs(c));
    redisFree(c);
    // kill -9 and a restart: the socket is there again.
    server->Kill();
    server->Restart();
    c = redisConnectUnix(path.c_str());
    EXPECT_TRUE(Pongs(c));
    redisFree(c);
  }
  EXPECT_FALSE(fs::exists(path)) << "removed with the server's folder";
}

// TMPDIR set for the scope of one test, and put back however it ends.
class ScopedTmpdir {
 public:
  explicit ScopedTmpdir(const std::string& dir) {
    const char* old = std::getenv("TMPDIR");
    had_ = old != nullptr;
    if (had_) saved_ = old;
    setenv("TMPDIR", dir.c_str(), 1);
  }
  ~ScopedTmpdir() { had_ ? setenv("TMPDIR", saved_.c_str(), 1) : unsetenv("TMPDIR"); }

 private:
  bool had_ = false;
  std::string saved_;
};

TEST(RedisServerStart, AFolderTooLongForASocketPathStartsOnTcpAlone) {
  const std::string redis = RedisServer::Resolve("redis-server");
  if (redis.empty()) GTEST_SKIP() << "redis-server not found";
  TempDir tmp("locksim-servertest");
  const std::string deep = tmp.path + "/" + std::string(120, 'd');
  fs::create_directories(deep);
  const ScopedTmpdir scoped(deep);
  RedisServerOptions options;
  options.binary = redis;
  options.unix_socket = true;
  std::unique_ptr<RedisServer> server = RedisServer::Start(options);
  EXPECT_EQ(server->unix_socket(), "");
  redisContext* c = redisConnect("127.0.0.1", server->port());
  EXPECT_TRUE(Pongs(c));
  redisFree(c);
}

}  // namespace
}  // namespace locksim
