// The workloads' invariants on hand-written histories: the sentence a
// report shows and whether the invariant holds, for each workload and for
// the rate limiter.
#include "sim/check/workload.h"

#include <gtest/gtest.h>

namespace locksim {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

WorkloadSpec Spec(WorkloadSpec::Type type) {
  WorkloadSpec s;
  s.type = type;
  return s;
}

TEST(Workload, ACounterOverwrittenByAnOverlapLosesAnUpdate) {
  History h;
  const int a = h.AddActor("A"), b = h.AddActor("B");
  h.AddNumber(seconds(1), a, OpType::kOk, OpF::kRead, 0);
  h.AddNumber(seconds(2), b, OpType::kOk, OpF::kRead, 0);
  h.AddNumber(seconds(3), b, OpType::kOk, OpF::kWrite, 1);
  h.AddNumber(seconds(4), a, OpType::kOk, OpF::kWrite, 1);
  const WorkloadEffect e = CheckWorkload(h, Spec(WorkloadSpec::Type::kCounter));
  EXPECT_FALSE(e.holds);
  EXPECT_EQ(e.sentences, std::vector<std::string>{"counter is 1 after 2 increments: 1 lost update"});
}

TEST(Workload, AStaleWriteRejectedByTheFencingTokenLosesNothing) {
  History h;
  const int a = h.AddActor("A"), b = h.AddActor("B");
  h.AddNumber(seconds(3), b, OpType::kOk, OpF::kWrite, 1, 2);
  h.AddNumber(seconds(4), a, OpType::kFail, OpF::kWrite, 1, 1);
  const WorkloadEffect e = CheckWorkload(h, Spec(WorkloadSpec::Type::kCounter));
  EXPECT_TRUE(e.holds);
  EXPECT_EQ(e.sentences, (std::vector<std::string>{"counter is 1 after 1 increment: no update lost",
                                                   "1 stale write rejected by the fencing token"}));
}

TEST(Workload, InventoryOversoldIsBroken) {
  WorkloadSpec spec = Spec(WorkloadSpec::Type::kInventory);
  spec.stock = 1;
  History h;
  const int a = h.AddActor("A"), b = h.AddActor("B");
  h.AddNumber(seconds(1), a, OpType::kOk, OpF::kWrite, 0);
  h.AddNumber(seconds(2), b, OpType::kOk, OpF::kWrite, 0);
  const WorkloadEffect e = CheckWorkload(h, spec);
  EXPECT_FALSE(e.holds);
  EXPECT_EQ(e.sentences, std::vector<std::string>{"sold 2 of a stock of 1: oversold by 1"});
}

TEST(Workload, ATokenRefreshedTwiceForOneInvalidationIsBroken) {
  History h;
  const int a = h.AddActor("A"), b = h.AddActor("B");
  h.AddNumber(seconds(1), a, OpType::kOk, OpF::kRefresh, 0);
  h.AddNumber(seconds(2), b, OpType::kOk, OpF::kRefresh, 0);
  h.AddNumber(seconds(61), a, OpType::kOk, OpF::kRefresh, 1);
  const WorkloadEffect e = CheckWorkload(h, Spec(WorkloadSpec::Type::kTokenRefresh));
  EXPECT_FALSE(e.holds);
  EXPECT_EQ(e.sentences,
            std::vector<std::string>{"token refreshed 2 times for 1 invalidation (the 1st)"});
}

TEST(Workload, AScheduledJobRunTwiceInOneTickIsBroken) {
  History h;
  const int a = h.AddActor("A"), b = h.AddActor("B");
  h.AddNumber(seconds(10), a, OpType::kOk, OpF::kJob, 7);
  h.AddNumber(seconds(10), b, OpType::kOk, OpF::kJob, 7);
  const WorkloadEffect twice = CheckWorkload(h, Spec(WorkloadSpec::Type::kScheduledJob));
  EXPECT_FALSE(twice.holds);
  EXPECT_EQ(twice.sentences, std::vector<std::string>{"tick 7 ran 2 times"});
  History once;
  once.AddActor("A");
  once.AddNumber(seconds(10), 1, OpType::kOk, OpF::kJob, 7);
  once.AddNumber(seconds(20), 1, OpType::kOk, OpF::kJob, 8);
  const WorkloadEffect ok = CheckWorkload(once, Spec(WorkloadSpec::Type::kScheduledJob));
  EXPECT_TRUE(ok.holds);
  EXPECT_EQ(ok.sentences, std::vector<std::string>{"every tick ran at most once (2 ticks run)"});
}

TEST(LimiterInvariant, MoreThanTheLimitInOneWindowBreaksItsSafety) {
  History h;
  const int a = h.AddActor("A");
  // Three admissions within one 1 s window opened at 0 (count 1), limit 2.
  h.AddNumber(milliseconds(0), a, OpType::kOk, OpF::kAdmit, 1);
  h.AddNumber(milliseconds(100), a, OpType::kOk, OpF::kAdmit, 2);
  h.AddNumber(milliseconds(200), a, OpType::kOk, OpF::kAdmit, 1);  // a new window's count
  const WorkloadEffect e = CheckLimiter(h, 2, seconds(1), Nanos{0});
  EXPECT_FALSE(e.safety_holds);
  EXPECT_EQ(e.sentences, std::vector<std::string>{
                             "admitted 3 requests within one 1s window from 0ns (limit 2)"});
}

TEST(LimiterInvariant, AnIncrWithoutItsExpireLeavesTheCounterForEver) {
  History h;
  const int a = h.AddActor("A");
  h.AddCommand(seconds(0), a, 0, {"incr", "rate:x"});
  h.AddReply(seconds(0), a, OpType::kOk, 0, Reply::Integer(1));
  // A crashed here: no EXPIRE followed.
  const WorkloadEffect e = CheckLimiter(h, 10, seconds(1), Nanos{0});
  EXPECT_TRUE(e.safety_holds);  // a liveness failure, not a safety one
  EXPECT_FALSE(e.holds);
  ASSERT_EQ(e.sentences.size(), 2u);
  EXPECT_EQ(e.sentences[1], "the counter was left without a TTL by A: every later request is refused for ever");
  // With its EXPIRE, nothing is owed.
  h.AddCommand(seconds(0), a, 0, {"EXPIRE", "rate:x", "1"});
  h.AddReply(seconds(0), a, OpType::kOk, 0, Reply::Integer(1));
  EXPECT_TRUE(CheckLimiter(h, 10, seconds(1), Nanos{0}).holds);
}

}  // namespace
}  // namespace locksim
