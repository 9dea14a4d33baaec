// The liveness checker on hand-written histories: a deadlock is a stretch
// with somebody trying and nobody working longer than the bound; degraded
// is more aborted EXECs per acquisition than the bound; a rate limiter's
// deadlock is every request refused.
#include "sim/check/liveness.h"

#include <gtest/gtest.h>

namespace locksim {
namespace {

using std::chrono::seconds;

TEST(Liveness, AHolderThatDiedLeavesTheOthersStuckUntilTheEnd) {
  History h;
  const int a = h.AddActor("A"), b = h.AddActor("B");
  h.AddStep(seconds(0), a, OpType::kInvoke, OpF::kAcquire, "lock");
  h.AddStep(seconds(1), a, OpType::kOk, OpF::kAcquire, "lock");
  h.AddFault(seconds(2), OpF::kCrash, "A", a);
  h.AddStep(seconds(3), b, OpType::kInvoke, OpF::kAcquire, "lock");
  LivenessSpec spec;
  spec.deadlock_after = seconds(60);
  const LivenessResult r = CheckLiveness(h, seconds(100), spec, /*limiter=*/false);
  EXPECT_TRUE(r.deadlock);
  EXPECT_EQ(r.stuck_from, seconds(3));
  EXPECT_EQ(r.stuck_to, seconds(100));
  EXPECT_EQ(r.acquisitions, 1);
  EXPECT_EQ(r.text, "nobody could acquire from 3s to 1m40s (1m37s, bound 1m00s)");
  // The same stretch under a longer bound is no deadlock.
  spec.deadlock_after = seconds(97);
  EXPECT_FALSE(CheckLiveness(h, seconds(100), spec, false).deadlock);
}

TEST(Liveness, AClientThatGivesUpAndTriesAgainAtTheSameInstantNeverStopsWaiting) {
  History h;
  const int a = h.AddActor("A"), b = h.AddActor("B");
  h.AddStep(seconds(0), a, OpType::kInvoke, OpF::kAcquire, "lock");
  h.AddStep(seconds(0), a, OpType::kOk, OpF::kAcquire, "lock");
  h.AddStep(seconds(1), b, OpType::kInvoke, OpF::kAcquire, "lock");
  h.AddStep(seconds(5), a, OpType::kOk, OpF::kRelease, "lock");
  h.AddStep(seconds(6), b, OpType::kFail, OpF::kAcquire, "lock");
  h.AddStep(seconds(6), b, OpType::kInvoke, OpF::kAcquire, "lock");
  h.AddStep(seconds(8), b, OpType::kOk, OpF::kAcquire, "lock");
  const LivenessResult r = CheckLiveness(h, seconds(10), LivenessSpec{}, false);
  EXPECT_FALSE(r.deadlock);
  // Stuck from A's release (5 s) to B's acquisition (8 s), not cut at 6 s.
  EXPECT_EQ(r.stuck_from, seconds(5));
  EXPECT_EQ(r.stuck_to, seconds(8));
}

TEST(Liveness, CommandsBetweenTheStepsMoveNoStretch) {
  // The check reads the lock ops alone unless some thread sent EXEC: the
  // commands and replies, at instants of their own or shared with steps,
  // change neither the stretch nor the count, with or without an EXEC.
  auto history = [](bool commands, bool exec) {
    History h;
    const int a = h.AddActor("A"), b = h.AddActor("B");
    auto command = [&](int64_t ms, int actor) {
      if (!commands) return;
      h.AddCommand(std::chrono::milliseconds(ms), actor, 0, {exec ? "EXEC" : "SET", "lock"});
      h.AddReply(std::chrono::milliseconds(ms), actor, OpType::kOk, 0, Reply::Nil());
    };
    command(0, a);
    h.AddStep(seconds(0), a, OpType::kInvoke, OpF::kAcquire, "lock");
    h.AddStep(seconds(0), a, OpType::kOk, OpF::kAcquire, "lock");
    command(500, b);
    h.AddStep(seconds(1), b, OpType::kInvoke, OpF::kAcquire, "lock");
    command(1000, b);
    command(5000, a);
    h.AddStep(seconds(5), a, OpType::kOk, OpF::kRelease, "lock");
    command(5000, b);
    command(6000, b);
    h.AddStep(seconds(6), b, OpType::kFail, OpF::kAcquire, "lock");
    command(6000, b);
    h.AddStep(seconds(6), b, OpType::kInvoke, OpF::kAcquire, "lock");
    command(7000, b);
    h.AddStep(seconds(8), b, OpType::kOk, OpF::kAcquire, "lock");
    command(9000, a);
    return h;
  };
  for (const bool exec : {false, true}) {
    const LivenessResult bare = CheckLiveness(history(false, exec), seconds(10), {}, false);
    const LivenessResult r = CheckLiveness(history(true, exec), seconds(10), {}, false);
    EXPECT_EQ(r.stuck_from, seconds(5)) << exec;
    EXPECT_EQ(r.stuck_to, seconds(8)) << exec;
    EXPECT_EQ(r.stuck_from, bare.stuck_from) << exec;
    EXPECT_EQ(r.stuck_to, bare.stuck_to) << exec;
    EXPECT_EQ(r.acquisitions, 2) << exec;
    // B's nil EXECs while it waited (at 1, 5, 6 and 7 s) are aborts; A's are not.
    EXPECT_EQ(r.aborted_transactions, exec ? 4 : 0) << exec;
  }
}

TEST(Liveness, AbortedExecsWhileAcquiringPastTheBoundAreDegraded) {
  History h;
  const int a = h.AddActor("A");
  h.AddStep(seconds(0), a, OpType::kInvoke, OpF::kAcquire, "lock");
  for (int i = 0; i < 3; ++i) {
    h.AddCommand(seconds(1 + i), a, 0, {"exec"});  // any case
    h.AddReply(seconds(1 + i), a, OpType::kOk, 0, Reply::Nil());
  }
  // An EXEC that went through, and a nil GET: neither is an abort.
  h.AddCommand(seconds(5), a, 0, {"GET", "lock"});
  h.AddReply(seconds(5), a, OpType::kOk, 0, Reply::Nil());
  h.AddCommand(seconds(6), a, 0, {"EXEC"});
  h.AddReply(seconds(6), a, OpType::kOk, 0, Reply::Array({Reply::Ok()}));
  h.AddStep(seconds(6), a, OpType::kOk, OpF::kAcquire, "lock");
  LivenessSpec spec;
  spec.max_retries_per_acquisition = 2.5;
  const LivenessResult r = CheckLiveness(h, seconds(10), spec, false);
  EXPECT_EQ(r.aborted_transactions, 3);
  EXPECT_EQ(r.acquisitions, 1);
  EXPECT_TRUE(r.degraded);
  EXPECT_EQ(r.text, "3 aborted transaction(s) for 1 acquisition(s): 3.00 per acquisition (bound 2.50)");
  spec.max_retries_per_acquisition = 3;
  EXPECT_FALSE(CheckLiveness(h, seconds(10), spec, false).degraded);
}

TEST(Liveness, ALimiterRefusingEveryRequestPastTheBoundIsDeadlocked) {
  History h;
  const int a = h.AddActor("A");
  h.AddStep(seconds(0), a, OpType::kInvoke, OpF::kAdmit, "lock");
  h.AddNumber(seconds(0), a, OpType::kOk, OpF::kAdmit, 1);
  for (int i = 1; i <= 70; ++i) {
    h.AddStep(seconds(i), a, OpType::kInvoke, OpF::kAdmit, "lock");
    h.AddNumber(seconds(i), a, OpType::kFail, OpF::kAdmit, 11);
  }
  const LivenessResult r = CheckLiveness(h, seconds(100), LivenessSpec{}, /*limiter=*/true);
  EXPECT_TRUE(r.deadlock);
  EXPECT_EQ(r.stuck_from, seconds(1));
  EXPECT_EQ(r.stuck_to, seconds(70));
  EXPECT_EQ(r.text.rfind("every request refused from 1s to 1m10s", 0), 0u) << r.text;
}

// A client paused with a refusal on its way asked nothing while paused:
// its refusals count from when it asked, so a long pause is not a long
// refusal.
TEST(Liveness, ALimiterClientPausedWithARefusalOnItsWayIsNotStuck) {
  History h;
  const int a = h.AddActor("A");
  h.AddStep(seconds(1), a, OpType::kInvoke, OpF::kAdmit, "lock");
  h.AddNumber(seconds(1), a, OpType::kFail, OpF::kAdmit, 11);
  h.AddStep(seconds(2), a, OpType::kInvoke, OpF::kAdmit, "lock");
  h.AddNumber(seconds(80), a, OpType::kFail, OpF::kAdmit, 12);  // read after a pause
  h.AddStep(seconds(81), a, OpType::kInvoke, OpF::kAdmit, "lock");
  h.AddNumber(seconds(81), a, OpType::kOk, OpF::kAdmit, 1);
  const LivenessResult r = CheckLiveness(h, seconds(100), LivenessSpec{}, /*limiter=*/true);
  EXPECT_FALSE(r.deadlock);
  EXPECT_EQ(r.stuck_from, seconds(1));
  EXPECT_EQ(r.stuck_to, seconds(2));
}

}  // namespace
}  // namespace locksim
