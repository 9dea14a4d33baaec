// The virtual Redis against a real redis-server 7, command for command.
//
// The server runs with the clock shim and its wall clock frozen at exactly
// the time the virtual node is given, so replies that depend on time (PTTL,
// expiry) must match to the millisecond, not approximately.
#include <gtest/gtest.h>

#include "sim/random.h"
#include "sim/vredis/server.h"
#include "tests/redis_oracle.h"

namespace locksim {
namespace {

class Differential : public ::testing::Test {
 protected:
  void SetUp() override { conn_ = oracle_.Connect(); }

  void Advance(int64_t ms) { oracle_.Advance(ms); }

  // Sends the same command to both and compares.
  void Both(const Command& cmd, int step) {
    Reply real = oracle_.Send(conn_, cmd);
    Reply virt = vredis_.Execute(cmd, oracle_.now_ms());
    ASSERT_EQ(virt, real) << "step " << step << ": " << FormatCommand(cmd)
                          << "\n  real:    " << real.ToString()
                          << "\n  virtual: " << virt.ToString();
  }

  RedisOracle oracle_{1704067200000};
  int conn_ = 0;
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
