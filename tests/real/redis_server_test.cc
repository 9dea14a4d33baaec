// RedisServer's start on real processes: a server that stays silent (seen
// once under ASan on a loaded CI machine: alive, no log, no answer to PING
// for 10 s) is killed and started again on a new port and folder, and what
// starts is a real, answering redis-server.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

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

}  // namespace
}  // namespace locksim
