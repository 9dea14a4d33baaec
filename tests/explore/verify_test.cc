// Bounded verification: the search enumerates exactly the schedules of its
// bound (counted by hand for a tiny world), finds the documented failures
// within small bounds, gives the same result for any --jobs, and its state
// cache never merges two states whose hashes collide.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "sim/core/errors.h"
#include "sim/explore/generate.h"
#include "sim/explore/verify.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"

namespace locksim {
namespace {

VerifySpec Spec(const std::string& algorithm, const std::string& faults) {
  VerifySpec spec;
  spec.algorithm = algorithm;
  spec.faults = ParseFaultClasses(faults, "--faults");
  return spec;
}

bool Has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// One client taking set-nx-px once. Its fault-free run has four instants
// at which the client acts: 0 (acquire, SET sent), 400us (the reply,
// acquired, enter), 800.4ms (exit, release, the compare-and-delete sent)
// and 800.8ms (its reply, released). A pause of A can land at each:
//   K = 1: the run without a fault and 4 single pauses: 5 schedules.
//   K = 2: a second pause lands no earlier than the first, and not at the
//   same instant (the only fault there is the same pause). A pause at
//   instant 1, 2 or 3 fires before A's events of that instant, which all
//   move 1.5s later: 3, 2 and 1 instants are left at or after it. At
//   instant 0 A was started before the faults were armed, so its first
//   steps stay at 0 and the 3 later instants move: 3 left. 5 + 3+3+2+1 = 14.
TEST(Verify, EnumeratesExactlyTheSchedulesOfATinyWorld) {
  VerifySpec spec = Spec("set-nx-px", "pause");
  spec.clients = 1;
  spec.state_cache = false;
  spec.max_faults = 0;
  EXPECT_EQ(RunVerify(spec, 1).schedules, 1);
  spec.max_faults = 1;
  VerifyResult one = RunVerify(spec, 1);
  EXPECT_EQ(one.schedules, 5);
  EXPECT_EQ(one.skipped, 0);
  EXPECT_FALSE(one.finding);
  spec.max_faults = 2;
  VerifyResult two = RunVerify(spec, 1);
  EXPECT_EQ(two.schedules, 14);
  EXPECT_FALSE(two.finding);
  // E bounds the instants. With E = 2 they are 0 and 400us: the run
  // without a fault, a pause at 0 and one at 400us. The first's run has
  // instants 0 (A's first steps stay) and 1.5s (the reply read): a second
  // pause at 1.5s (not at 0 again). The second's has 0 and 1.5004s: a
  // second pause at 1.5004s. 1 + 2 + 2 = 5 schedules.
  spec.events = 2;
  EXPECT_EQ(RunVerify(spec, 1).schedules, 5);
}

TEST(Verify, FindsF1SetNxPxUnderAPause) {
  const VerifyResult r = RunVerify(Spec("set-nx-px", "pause"), 2);
  ASSERT_TRUE(r.finding);
  EXPECT_EQ(r.finding->verdict, "violated");
  EXPECT_TRUE(Has(r.finding->tokens, "mutual-exclusion")) << r.finding->kind;
  EXPECT_TRUE(r.finding->kind.ends_with("--pause")) << r.finding->kind;
  EXPECT_GE(r.finding->ordinal, 1);
  // The counterexample replays through `locksim run`'s path to what it expects.
  RunOptions replay;
  replay.label = "set-nx-px";
  EXPECT_EQ(RunScenario(ParseScenario(r.finding->text, "counterexample.json"), replay)
                .ExpectationMet(),
            true);
}

TEST(Verify, FindsF2SetNxPxDelFreesAnotherClientsLock) {
  VerifySpec spec = Spec("set-nx-px-del", "pause");
  spec.clients = 3;
  const VerifyResult r = RunVerify(spec, 2);
  ASSERT_TRUE(r.finding);
  EXPECT_TRUE(Has(r.finding->tokens, "foreign-write-DEL")) << r.finding->kind;
  EXPECT_TRUE(Has(r.finding->tokens, "mutual-exclusion")) << r.finding->kind;
}

TEST(Verify, FindsF8RedlockNodesRestartedEmpty) {
  const VerifyResult r = RunVerify(Spec("redlock", "node-crash"), 2);
  ASSERT_TRUE(r.finding);
  EXPECT_TRUE(Has(r.finding->tokens, "mutual-exclusion")) << r.finding->kind;
  EXPECT_NE(r.finding->kind.find("node-crash"), std::string::npos) << r.finding->kind;
  EXPECT_EQ(r.finding->schedule.size(), 2u);  // one restarted node is not enough
}

TEST(Verify, FindsF9RedlockNodeClocksJumping) {
  const VerifyResult r = RunVerify(Spec("redlock", "node-clock"), 2);
  ASSERT_TRUE(r.finding);
  EXPECT_TRUE(Has(r.finding->tokens, "mutual-exclusion")) << r.finding->kind;
  EXPECT_NE(r.finding->kind.find("node-clock"), std::string::npos) << r.finding->kind;
}

// F4: a client's clock stepped makes getset-timestamp's GETSET overwrite a
// live lock. A clock step of two leases holds the lock up that long, which
// the deadlock verdict allows for: the finding is the overwrite, not a
// deadlock.
TEST(Verify, FindsF4GetsetTimestampUnderAClientClockStep) {
  const VerifyResult r = RunVerify(Spec("getset-timestamp", "client-clock"), 2);
  ASSERT_TRUE(r.finding);
  EXPECT_EQ(r.finding->verdict, "violated");
  EXPECT_TRUE(Has(r.finding->tokens, "foreign-write-GETSET")) << r.finding->kind;
}

TEST(Verify, RedlockSurvivesOneNodeCrash) {
  VerifySpec spec = Spec("redlock", "node-crash");
  spec.max_faults = 1;
  const VerifyResult r = RunVerify(spec, 2);
  EXPECT_FALSE(r.finding) << r.finding->kind;
  EXPECT_GT(r.schedules, 1);
}

TEST(Verify, SetnxSimpleUnderPausesIsVerifiedWithTheSameCountForAnyJobs) {
  VerifySpec spec = Spec("setnx-simple", "pause");
  spec.clients = 3;
  const VerifyResult one = RunVerify(spec, 1);
  const VerifyResult two = RunVerify(spec, 2);
  EXPECT_FALSE(one.finding);
  EXPECT_GT(one.schedules, 100);
  EXPECT_EQ(one.schedules, two.schedules);
  EXPECT_EQ(one.skipped, two.skipped);
}

TEST(Verify, AFindingIsTheSameForAnyJobs) {
  const VerifyResult one = RunVerify(Spec("redlock", "node-clock"), 1);
  const VerifyResult two = RunVerify(Spec("redlock", "node-clock"), 2);
  ASSERT_TRUE(one.finding);
  ASSERT_TRUE(two.finding);
  EXPECT_EQ(one.finding->ordinal, two.finding->ordinal);
  EXPECT_EQ(one.finding->schedule, two.finding->schedule);
  EXPECT_EQ(one.finding->text, two.finding->text);
  EXPECT_EQ(one.schedules, two.schedules);
}

// The cache skips a state it has seen; every state colliding with every
// other (a hash that is always 0) must change nothing: states are told
// apart by their text, not their hash.
TEST(Verify, CollidingHashesNeverMergeDifferentStates) {
  for (const char* faults : {"pause", "node-crash"}) {
    SCOPED_TRACE(faults);
    VerifySpec spec = Spec(faults == std::string("pause") ? "setnx-simple" : "redlock", faults);
    spec.max_faults = 2;
    const VerifyResult real_hash = RunVerify(spec, 1);
    spec.hash = [](const std::string&) { return uint64_t{0}; };
    const VerifyResult colliding = RunVerify(spec, 1);
    EXPECT_EQ(colliding.schedules, real_hash.schedules);
    EXPECT_EQ(colliding.skipped, real_hash.skipped);
    EXPECT_EQ(colliding.finding.has_value(), real_hash.finding.has_value());
    if (colliding.finding) {
      EXPECT_EQ(colliding.finding->ordinal, real_hash.finding->ordinal);
    }
  }
}

// A state seen before is not expanded again: a second crash of redis0
// while it is still down (crashed at 0, restarting at 10ms) changes
// nothing, so that schedule's run is the run of the first crash alone.
TEST(Verify, AStateSeenBeforeIsSkipped) {
  VerifySpec spec = Spec("redlock", "node-crash");
  const VerifyResult cached = RunVerify(spec, 1);
  EXPECT_GT(cached.skipped, 0);
  spec.state_cache = false;
  const VerifyResult uncached = RunVerify(spec, 1);
  EXPECT_EQ(uncached.skipped, 0);
  ASSERT_TRUE(cached.finding);
  ASSERT_TRUE(uncached.finding);
  // That schedule had no fault left (no subtree to skip): without the
  // cache it is the same run, counted as distinct.
  EXPECT_EQ(uncached.schedules, cached.schedules + cached.skipped);
  EXPECT_EQ(uncached.finding->ordinal, cached.finding->ordinal);
}

// --faults all: every class verify places. Without a lease, setnx-simple
// survives pauses but not a node that restarts empty.
TEST(Verify, AllNamesEveryClassItPlaces) {
  EXPECT_EQ(PlacedFaultClasses(), (std::vector<std::string>{"pause", "client-clock", "node-clock",
                                                            "client-crash", "node-crash", "expire"}));
  VerifySpec spec = Spec("setnx-simple", "pause");
  spec.faults = PlacedFaultClasses();
  spec.max_faults = 1;
  const VerifyResult r = RunVerify(spec, 2);
  ASSERT_TRUE(r.finding);
  EXPECT_TRUE(Has(r.finding->tokens, "mutual-exclusion")) << r.finding->kind;
}

TEST(Verify, RefusesWhatItCannotRun) {
  EXPECT_THROW(RunVerify(Spec("no-such-lock", "pause"), 1), InputError);
  EXPECT_THROW(RunVerify(Spec("set-nx-px", "partition"), 1), InputError);
  EXPECT_THROW(RunVerify(Spec("rate-limit-naive", "pause"), 1), InputError);
  VerifySpec hold = Spec("set-nx-px", "pause");
  hold.hold = hold.ttl;
  EXPECT_THROW(RunVerify(hold, 1), InputError);
}

}  // namespace
}  // namespace locksim
