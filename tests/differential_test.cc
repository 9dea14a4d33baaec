// The virtual Redis against a real redis-server 7, command for command.
//
// The server runs with the clock shim and its wall clock frozen at exactly
// the time the virtual node is given, so replies that depend on time (PTTL,
// expiry) must match to the millisecond, not approximately.
#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <filesystem>
#include <memory>

#include "sim/random.h"
#include "sim/real/clock_control.h"
#include "sim/real/redis_server.h"
#include "sim/vredis/server.h"

namespace locksim {
namespace {

Reply FromHiredis(const redisReply* r) {
  switch (r->type) {
    case REDIS_REPLY_STATUS: return Reply::Status(std::string(r->str, r->len));
    case REDIS_REPLY_ERROR: return Reply::Error(std::string(r->str, r->len));
    case REDIS_REPLY_INTEGER: return Reply::Integer(r->integer);
    case REDIS_REPLY_STRING: return Reply::String(std::string(r->str, r->len));
    case REDIS_REPLY_ARRAY: {
      std::vector<Reply> e;
      for (size_t i = 0; i < r->elements; ++i) e.push_back(FromHiredis(r->element[i]));
      return Reply::Array(std::move(e));
    }
    default: return Reply::Nil();
  }
}

class Differential : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "locksim-clock-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    clock_ = std::make_unique<ClockControl>(dir_ + "/clock");
    clock_->Freeze(std::chrono::milliseconds(now_ms_));
    RedisServerOptions options;
    options.clock_shim = ClockControl::ShimPath();
    options.clock_file = clock_->path();
    server_ = RedisServer::Start(options);
    ctx_ = redisConnect("127.0.0.1", server_->port());
    ASSERT_TRUE(ctx_ != nullptr && ctx_->err == 0);
  }
  void TearDown() override {
    if (ctx_) redisFree(ctx_);
    server_.reset();
    clock_.reset();
    std::filesystem::remove_all(dir_);
  }

  Reply Real(const Command& cmd) {
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (const auto& a : cmd) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    auto* r = static_cast<redisReply*>(
        redisCommandArgv(ctx_, static_cast<int>(argv.size()), argv.data(), lens.data()));
    if (r == nullptr) return Reply::Error("(connection lost)");
    Reply out = FromHiredis(r);
    freeReplyObject(r);
    return out;
  }

  void Advance(int64_t ms) {
    now_ms_ += ms;
    clock_->Freeze(std::chrono::milliseconds(now_ms_));
  }

  // Sends the same command to both and compares.
  void Both(const Command& cmd, int step) {
    Reply real = Real(cmd);
    Reply virt = vredis_.Execute(cmd, now_ms_);
    ASSERT_EQ(virt, real) << "step " << step << ": " << FormatCommand(cmd)
                          << "\n  real:    " << real.ToString()
                          << "\n  virtual: " << virt.ToString();
  }

  int64_t now_ms_ = 1704067200000;
  std::string dir_;
  std::unique_ptr<ClockControl> clock_;
  std::unique_ptr<RedisServer> server_;
  redisContext* ctx_ = nullptr;
  VirtualRedis vredis_;
};

TEST_F(Differential, FrozenClockMakesTimeDependentRepliesExact) {
  Both({"SET", "k", "v", "PX", "100"}, 0);
  Both({"PTTL", "k"}, 1);
  Advance(60);
  Both({"PTTL", "k"}, 2);
  Advance(40);
  Both({"GET", "k"}, 3);  // now == when: still there
  Advance(1);
  Both({"GET", "k"}, 4);  // now > when: gone
  Both({"PTTL", "k"}, 5);
}

// Random GET / SET NX XX PX EX / DEL / PTTL streams over a few keys, with
// the clock moving between commands so that keys expire, and with some
// malformed commands so that error replies are compared too.
TEST_F(Differential, TenThousandRandomStringCommandsGiveIdenticalReplies) {
  Random rng(20261122);
  const std::vector<std::string> keys = {"lock:a", "lock:b", "lock:c", "k"};
  const std::vector<std::string> ttls = {"1",  "5",   "20",  "50", "100", "0",
                                         "-3", "abc", "1.5", "9223372036854775807"};
  auto pick = [&](const std::vector<std::string>& v) { return v[rng.Uniform(v.size())]; };
  for (int step = 0; step < 10000; ++step) {
    if (rng.Uniform(3) == 0) Advance(static_cast<int64_t>(rng.Uniform(40)));
    Command cmd;
    const std::string key = pick(keys);
    switch (rng.Uniform(8)) {
      case 0:
      case 1: cmd = {"GET", key}; break;
      case 2:
      case 3:
      case 4: {
        cmd = {"SET", key, "v" + std::to_string(rng.Uniform(5))};
        const int options = static_cast<int>(rng.Uniform(4));
        for (int i = 0; i < options; ++i) {
          switch (rng.Uniform(6)) {
            case 0: cmd.push_back("NX"); break;
            case 1: cmd.push_back("xx"); break;
            case 2: cmd.insert(cmd.end(), {"PX", pick(ttls)}); break;
            case 3: cmd.insert(cmd.end(), {"EX", rng.Uniform(2) ? "1" : "0"}); break;
            case 4: cmd.push_back("PX"); break;  // missing value
            case 5: cmd.push_back("BOGUS"); break;
          }
        }
        break;
      }
      case 5: cmd = {"DEL", key}; if (rng.Uniform(2)) cmd.push_back(pick(keys)); break;
      case 6: cmd = {"PTTL", key}; break;
      case 7:
        switch (rng.Uniform(4)) {
          case 0: cmd = {"GET"}; break;
          case 1: cmd = {"PTTL", key, key}; break;
          case 2: cmd = {"SET", key}; break;
          case 3: cmd = {"NOSUCHCMD", key, "x"}; break;
        }
        break;
    }
    Both(cmd, step);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace locksim
