// Bounded verification: the search enumerates exactly the schedules of its
// bound (counted by hand for a tiny world), finds the documented failures
// within small bounds, gives the same result for any --jobs, and its state
// cache never merges two states whose hashes collide.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "sim/core/errors.h"
#include "sim/core/text.h"
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

// Two clients taking setnx-simple once, starting together. Their
// fault-free run meets these choice points up to its second instant
// (400us, where both read their replies):
//   1, 2   0ns    A's and B's SETNX leave: messages;
//   3      200us  both reach redis0 at once: a tie, one other order (B first);
//   4, 5   200us  redis0's two replies leave: messages.
// With no fault, D = 1 and E = 2, each of the five is a deviation of its
// own: the run without one and five with one, 6 schedules.
TEST(Verify, EnumeratesTheTiesAndMessagesOfATinyWorld) {
  VerifySpec spec = Spec("setnx-simple", "none");
  spec.start_gap = Nanos{0};
  spec.state_cache = false;
  spec.events = 2;
  EXPECT_EQ(RunVerify(spec, 1).schedules, 1);
  spec.max_delays = 1;
  const VerifyResult r = RunVerify(spec, 1);
  EXPECT_EQ(r.schedules, 6);
  EXPECT_FALSE(r.finding);
  EXPECT_EQ(RunVerify(spec, 2).schedules, 6);
}

// Redlock's client reads three replies at once: a tie of three streams
// (two other orders), then of the remaining two. A schedule takes at most
// one of a point's options: two deviations at one point would not be a
// scenario (its "choices" are one entry per point), and the search used to
// try them with D = 2.
TEST(Verify, TwoDeviationsNeverShareAPoint) {
  VerifySpec spec = Spec("redlock", "none");
  spec.start_gap = Nanos{0};
  spec.max_delays = 2;
  spec.events = 2;
  const VerifyResult one = RunVerify(spec, 1);
  EXPECT_FALSE(one.finding);
  EXPECT_GT(one.schedules, 100);
  EXPECT_EQ(RunVerify(spec, 2).schedules, one.schedules);
}

// The tie of point 3 broken for B: B's SETNX runs first, so B takes the
// lock at 400us and A, refused, retries.
TEST(Verify, ATieBrokenOtherwiseLetsTheOtherClientWin) {
  VerifySpec spec = Spec("setnx-simple", "none");
  spec.start_gap = Nanos{0};
  auto first_holder = [&](const nlohmann::ordered_json& choices) {
    const Scenario s = ParseScenario(
        VerifyScenario(spec, nlohmann::ordered_json::array(), choices).dump(), "tie.json");
    RunOptions o;
    o.algorithm = spec.algorithm;
    const RunResult r = RunScenario(s, o);
    EXPECT_TRUE(r.unfired.empty()) << (r.unfired.empty() ? "" : r.unfired.front());
    for (const Op& op : r.history.ops()) {
      if (op.f == OpF::kAcquire && op.type == OpType::kOk) return r.history.name(op.actor);
    }
    return std::string("nobody");
  };
  EXPECT_EQ(first_holder(nlohmann::ordered_json::array()), "A");
  EXPECT_EQ(first_holder(nlohmann::ordered_json::parse(
                R"([{"point": 3, "at": "200us", "among": ["A->redis0", "B->redis0"],
                     "first": "B->redis0"}])")),
            "B");
}

// A choice whose point turns out to be something else is not applied, and
// the run says so, as of a fault that never fired.
TEST(Verify, AChoiceThatDoesNotMatchItsPointIsReportedUnapplied) {
  VerifySpec spec = Spec("setnx-simple", "none");
  spec.start_gap = Nanos{0};
  const Scenario s = ParseScenario(
      VerifyScenario(spec, nlohmann::ordered_json::array(),
                     nlohmann::ordered_json::parse(
                         R"([{"point": 3, "at": "200us", "message": "A->redis0", "delay": "1s"},
                             {"point": 900, "at": "1s", "message": "A->redis0", "delay": "1s"}])"))
          .dump(),
      "bad.json");
  RunOptions o;
  o.algorithm = spec.algorithm;
  const RunResult r = RunScenario(s, o);
  ASSERT_EQ(r.unfired.size(), 2u);
  EXPECT_EQ(r.unfired[0],
            "choice point 3 (the message A->redis0 at 200us) was not applied: the run's point 3 "
            "is the tie of A->redis0, B->redis0 at 200us");
  EXPECT_NE(r.unfired[1].find("choice point 900"), std::string::npos) << r.unfired[1];
  EXPECT_NE(r.unfired[1].find("the run met only"), std::string::npos) << r.unfired[1];
}

TEST(Verify, ChoicesReplayOnTheVirtualBackendOnly) {
  VerifySpec spec = Spec("setnx-simple", "none");
  const Scenario s = ParseScenario(
      VerifyScenario(spec, nlohmann::ordered_json::array(),
                     nlohmann::ordered_json::parse(
                         R"([{"point": 1, "at": "0s", "message": "A->redis0", "delay": "1s"}])"))
          .dump(),
      "c.json");
  RunOptions o;
  o.algorithm = spec.algorithm;
  o.backend = Backend::kReal;
  try {
    RunScenario(s, o);
    FAIL() << "a real run of a scenario with choices was not refused";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "c.json: $.choices: replay on the virtual backend only (real servers and their "
              "network make their own choices)");
  }
}

// One reply of set-nx-px delivered a lease late: A enters after its key
// expired and B took it (the network-delay story). Found at the fifth
// schedule (points 1-4 of the tiny world above; point 4 is redis0's reply
// to A), and its counterexample replays with the deviation in "choices".
TEST(Verify, FindsALateReplyOfSetNxPx) {
  VerifySpec spec = Spec("set-nx-px", "none");
  spec.start_gap = Nanos{0};
  spec.max_delays = 1;
  const VerifyResult r = RunVerify(spec, 2);
  ASSERT_TRUE(r.finding);
  EXPECT_EQ(r.finding->ordinal, 5);
  EXPECT_TRUE(Has(r.finding->tokens, "mutual-exclusion")) << r.finding->kind;
  EXPECT_TRUE(r.finding->kind.ends_with("--delayed-message")) << r.finding->kind;
  ASSERT_EQ(r.finding->deviations.size(), 1u);
  EXPECT_EQ(r.finding->deviations[0]["message"], "redis0->A");
  const Scenario saved = ParseScenario(r.finding->text, "counterexample.json");
  ASSERT_EQ(saved.choices.size(), 1u);
  RunOptions replay;
  replay.label = "set-nx-px";
  EXPECT_EQ(RunScenario(saved, replay).ExpectationMet(), true);
  EXPECT_EQ(RunVerify(spec, 1).finding->text, r.finding->text);
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
  VerifySpec gap = Spec("set-nx-px", "pause");
  gap.start_gap = -std::chrono::milliseconds(1);
  EXPECT_THROW(RunVerify(gap, 1), InputError);
}

}  // namespace
}  // namespace locksim
