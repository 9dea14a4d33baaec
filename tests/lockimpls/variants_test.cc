// Every lock variant, without faults: contending clients never overlap and
// all complete their iterations (the deliberately broken variants too: with
// no fault their bugs stay hidden) -- except setnx-expire with a sub-second
// timeout, whose integer division (EXPIRE 0) breaks it with no fault at all.
#include <gtest/gtest.h>

#include "lockimpls/lock.h"
#include "sim/core/history.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "tests/testing/contention.h"

namespace locksim {
namespace {

std::vector<std::string> Ids() {
  std::vector<std::string> ids;
  for (const AlgorithmInfo& a : Algorithms()) {
    if (!a.is_limiter() && !a.real_only()) ids.emplace_back(a.id);  // redis-py: real only
  }
  return ids;
}

class VariantTest : public ::testing::TestWithParam<std::string> {
 protected:
  RunResult Run(const std::string& text, Backend backend) {
    RunOptions o;
    o.algorithm = GetParam();
    o.backend = backend;
    return RunScenario(ParseScenario(text, "contention.json"), o);
  }
};

TEST_P(VariantTest, ContendingClientsNeverOverlapWithoutFaults) {
  RunResult r = Run(kContention, Backend::kVirtual);
  EXPECT_EQ(r.verdict(), Verdict::kSafe) << GetParam();
  EXPECT_EQ(r.acquisitions, 15) << GetParam();
  EXPECT_EQ(r.failed_acquisitions, 0) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(AllVariants, VariantTest, ::testing::ValuesIn(Ids()),
                         [](const auto& info) {
                           std::string name;
                           for (char c : info.param) name += c == '-' ? '_' : c;
                           return name;
                         });

TEST(VariantBugs, SetnxExpireWithASubSecondTimeoutFailsWithoutAnyFault) {
  // (int)(500 / 1000) == 0: EXPIRE key 0 deletes the lock as soon as it is
  // taken, so the next client walks straight in (F12).
  std::string text = kContention;
  text.replace(text.find("\"ttl\": \"5s\""), 11, "\"ttl\": \"500ms\"");
  RunOptions o;
  o.algorithm = "setnx-expire";
  RunResult r = RunScenario(ParseScenario(text, "f12.json"), o);
  EXPECT_EQ(r.verdict(), Verdict::kViolated);
  o.algorithm = "set-nx-px";  // the same timeout in PX milliseconds is fine
  EXPECT_EQ(RunScenario(ParseScenario(text, "f12.json"), o).verdict(), Verdict::kSafe);
}

// A request that times out closes its connection, and the next command
// goes out on a new one, which has neither the WATCH nor the MULTI. The
// seed's loop ends at Jedis's exception there; watch-multi used to carry
// on, and its SET then ran at once, outside any transaction: over a 700 us
// socket timeout, 16 of 30 seeds read a foreign write. Now a step answered
// otherwise than it must be ends the try, and the next starts over with a
// WATCH: every seed is safe, and every acquisition still succeeds.
TEST(VariantBugs, WatchMultiStartsOverWhenATransactionStepFails) {
  std::string text = kContention;
  text.replace(text.find("\"lock\""), 6, "\"network\": {\"timeout\": \"700us\"}, \"lock\"");
  RunOptions o;
  o.algorithm = "watch-multi";
  int timed_out = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    o.seed = seed;
    RunResult r = RunScenario(ParseScenario(text, "timeouts.json"), o);
    EXPECT_EQ(r.verdict(), Verdict::kSafe) << "seed " << seed;
    EXPECT_EQ(r.acquisitions, 15) << "seed " << seed;
    for (const Op& op : r.history.ops()) timed_out += op.f == OpF::kRedis && op.type == OpType::kInfo;
  }
  EXPECT_GT(timed_out, 0) << "no request timed out: the test tests nothing";
}

}  // namespace
}  // namespace locksim
