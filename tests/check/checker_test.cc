#include "sim/check/checker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

namespace locksim {
namespace {

using std::chrono::seconds;

// Builds a history of critical sections: each {process, start, end}.
struct Section {
  int process;
  int start;
  int end;  // -1: still open at the end
};

History Build(int processes, std::vector<Section> sections) {
  History h;
  for (int i = 0; i < processes; ++i) h.AddActor(std::string(1, char('A' + i)));
  struct Ev {
    int t;
    int process;
    bool enter;
  };
  std::vector<Ev> evs;
  for (const Section& s : sections) {
    evs.push_back({s.start, s.process, true});
    if (s.end >= 0) evs.push_back({s.end, s.process, false});
  }
  std::stable_sort(evs.begin(), evs.end(), [](const Ev& a, const Ev& b) { return a.t < b.t; });
  for (const Ev& e : evs) {
    if (e.enter) {
      h.AddStep(seconds(e.t), e.process, OpType::kOk, OpF::kAcquire, "lock");
      h.AddStep(seconds(e.t), e.process, OpType::kInvoke, OpF::kCs, "lock");
    } else {
      h.AddStep(seconds(e.t), e.process, OpType::kOk, OpF::kCs, "lock");
    }
  }
  return h;
}

TEST(CheckerTest, DisjointSectionsAreSafe) {
  History h = Build(2, {{1, 0, 5}, {2, 6, 9}, {1, 10, 12}});
  EXPECT_TRUE(CheckMutualExclusion(h, seconds(20)).ok());
}

TEST(CheckerTest, SectionsThatOnlyTouchAreSafe) {
  History h = Build(2, {{1, 0, 5}, {2, 5, 9}});
  EXPECT_TRUE(CheckMutualExclusion(h, seconds(20)).ok());
}

TEST(CheckerTest, OverlapIsAViolationWithItsInterval) {
  History h = Build(3, {{1, 0, 10}, {2, 4, 6}, {3, 8, 15}});
  CheckResult r = CheckMutualExclusion(h, seconds(20));
  ASSERT_EQ(r.violations.size(), 2u);
  EXPECT_EQ(r.violations[0].first.process, 1);
  EXPECT_EQ(r.violations[0].second.process, 2);
  EXPECT_EQ(r.violations[0].overlap_start, seconds(4));
  EXPECT_EQ(r.violations[0].overlap_end, seconds(6));
  EXPECT_EQ(r.violations[1].first.process, 1);
  EXPECT_EQ(r.violations[1].second.process, 3);
  EXPECT_EQ(r.violations[1].overlap_start, seconds(8));
  EXPECT_EQ(r.violations[1].overlap_end, seconds(10));
}

TEST(CheckerTest, EnteringAtTheSameInstantBeforeTheOtherExitsIsAnOverlap) {
  History h;
  int a = h.AddActor("A"), b = h.AddActor("B");
  h.AddStep(seconds(0), a, OpType::kInvoke, OpF::kCs, "lock");
  h.AddStep(seconds(5), b, OpType::kInvoke, OpF::kCs, "lock");  // B in first...
  h.AddStep(seconds(5), a, OpType::kOk, OpF::kCs, "lock");      // ...then A out
  h.AddStep(seconds(6), b, OpType::kOk, OpF::kCs, "lock");
  CheckResult r = CheckMutualExclusion(h, seconds(10));
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].overlap_start, seconds(5));
  EXPECT_EQ(r.violations[0].overlap_end, seconds(5));
}

TEST(CheckerTest, ZeroLengthSectionsInSequenceAreSafe) {
  History h;
  int a = h.AddActor("A"), b = h.AddActor("B");
  h.AddStep(seconds(1), a, OpType::kInvoke, OpF::kCs, "lock");
  h.AddStep(seconds(1), a, OpType::kOk, OpF::kCs, "lock");
  h.AddStep(seconds(1), b, OpType::kInvoke, OpF::kCs, "lock");
  h.AddStep(seconds(1), b, OpType::kOk, OpF::kCs, "lock");
  EXPECT_TRUE(CheckMutualExclusion(h, seconds(10)).ok());
}

TEST(CheckerTest, AnOpenSectionLastsUntilTheEndOfTheRun) {
  History h = Build(2, {{1, 0, -1}, {2, 30, 40}});
  CheckResult r = CheckMutualExclusion(h, seconds(50));
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].first.exit_index, -1);
  EXPECT_EQ(r.violations[0].overlap_end, seconds(40));
}

TEST(CheckerTest, DifferentResourcesNeverConflict) {
  History h;
  int a = h.AddActor("A"), b = h.AddActor("B");
  h.AddStep(seconds(0), a, OpType::kInvoke, OpF::kCs, "lock:1");
  h.AddStep(seconds(1), b, OpType::kInvoke, OpF::kCs, "lock:2");
  h.AddStep(seconds(2), a, OpType::kOk, OpF::kCs, "lock:1");
  h.AddStep(seconds(3), b, OpType::kOk, OpF::kCs, "lock:2");
  EXPECT_TRUE(CheckMutualExclusion(h, seconds(5)).ok());
}

// Sections of two keys entered in turn: each key's overlap is found, named
// by its own key, and none across keys.
TEST(CheckerTest, InterleavedResourcesEachFindTheirOwnOverlap) {
  History h;
  int a = h.AddActor("A"), b = h.AddActor("B");
  h.AddStep(seconds(0), a, OpType::kInvoke, OpF::kCs, "lock:2");
  h.AddStep(seconds(1), b, OpType::kInvoke, OpF::kCs, "lock:1");
  h.AddStep(seconds(2), a, OpType::kInvoke, OpF::kCs, "lock:1");  // overlaps B's
  h.AddStep(seconds(3), b, OpType::kOk, OpF::kCs, "lock:1");
  h.AddStep(seconds(4), b, OpType::kInvoke, OpF::kCs, "lock:2");  // overlaps A's
  h.AddStep(seconds(5), a, OpType::kOk, OpF::kCs, "lock:2");
  h.AddStep(seconds(6), a, OpType::kOk, OpF::kCs, "lock:1");
  h.AddStep(seconds(7), b, OpType::kOk, OpF::kCs, "lock:2");
  const CheckResult r = CheckMutualExclusion(h, seconds(8));
  ASSERT_EQ(r.sections.size(), 4u);
  ASSERT_EQ(r.violations.size(), 2u);
  EXPECT_EQ(r.violations[0].resource, "lock:1");
  EXPECT_EQ(r.violations[0].first.process, b);
  EXPECT_EQ(r.violations[0].overlap_start, seconds(2));
  EXPECT_EQ(r.violations[0].overlap_end, seconds(3));
  EXPECT_EQ(r.violations[1].resource, "lock:2");
  EXPECT_EQ(r.violations[1].first.process, a);
  EXPECT_EQ(r.violations[1].overlap_start, seconds(4));
  EXPECT_EQ(r.violations[1].overlap_end, seconds(5));
}


// Violation::events, the one explanation rule (sim/check/checker.h), on
// small histories written by hand: each test names the ops it records and
// lists exactly those the rule keeps.
class EventsTest : public ::testing::Test {
 protected:
  EventsTest()
      : a(h.AddActor("A")), b(h.AddActor("B")), c(h.AddActor("C")), node(h.AddActor("redis0")) {}

  int32_t Step(int actor, OpType type, OpF f) {
    return h.IndexOf(h.AddStep(seconds(t++), actor, type, f, "lock"));
  }
  int32_t Send(int actor, Command cmd) {
    return h.IndexOf(h.AddCommand(seconds(t++), actor, 0, cmd));
  }
  int32_t Reply(int actor, locksim::Reply r) {
    return h.IndexOf(h.AddReply(seconds(t++), actor, OpType::kOk, 0, std::move(r)));
  }
  // The lock key on redis0: held by `owner` (its token), or gone (-1).
  int32_t State(int owner, int cause) {
    KeyState s = KeyState::Absent("lock");
    if (owner >= 0) {
      s.present = true;
      s.str = h.name(owner);
      s.pttl_ms = 1000;
    }
    return h.IndexOf(h.AddState(seconds(t++), node, OpType::kOk, s, cause));
  }
  int32_t Fault(OpF f, const std::string& what) {
    return h.IndexOf(h.AddFault(seconds(t++), f, what));
  }

  History h;
  int t = 0;
  const int a, b, c, node;
};

TEST_F(EventsTest, AnOverlapIsToldFromTheFirstHoldersAcquireToTheSecondsEntry) {
  Step(a, OpType::kInvoke, OpF::kAcquire);  // the story starts here, unlisted
  const int32_t a_set = Send(a, {"SET", "lock", "A", "NX", "PX", "1000"});
  const int32_t a_key = State(a, a);
  const int32_t a_ok = Reply(a, Reply::Ok());
  const int32_t a_acquired = Step(a, OpType::kOk, OpF::kAcquire);
  const int32_t a_enter = Step(a, OpType::kInvoke, OpF::kCs);
  const int32_t pause = Fault(OpF::kPause, "A for 5s");
  Send(c, {"GET", "lock"});  // C, neither acquiring nor releasing: unlisted
  Step(b, OpType::kInvoke, OpF::kAcquire);
  const int32_t b_try = Send(b, {"SET", "lock", "B", "NX", "PX", "1000"});
  const int32_t b_nil = Reply(b, Reply::Nil());
  const int32_t expired = State(-1, -1);
  const int32_t b_set = Send(b, {"SET", "lock", "B", "NX", "PX", "1000"});
  const int32_t b_key = State(b, b);
  const int32_t b_ok = Reply(b, Reply::Ok());
  const int32_t b_acquired = Step(b, OpType::kOk, OpF::kAcquire);
  const int32_t b_enter = Step(b, OpType::kInvoke, OpF::kCs);
  Step(a, OpType::kOk, OpF::kCs);  // after B's entry: unlisted
  const CheckResult r = CheckMutualExclusion(h, seconds(t));
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].events,
            (std::vector<int32_t>{a_set, a_key, a_ok, a_acquired, a_enter, pause, b_try, b_nil,
                                  expired, b_set, b_key, b_ok, b_acquired, b_enter}));
}

TEST_F(EventsTest, AnyThreadsReleaseCommandsAreListedButOnlyTheTwoHoldersAcquires) {
  const int32_t a_acquired = Step(a, OpType::kOk, OpF::kAcquire);
  const int32_t a_enter = Step(a, OpType::kInvoke, OpF::kCs);
  const int32_t c_release = Step(c, OpType::kInvoke, OpF::kRelease);
  const int32_t c_del = Send(c, {"DEL", "lock"});
  const int32_t gone = State(-1, c);
  const int32_t c_deleted = Reply(c, Reply::Integer(1));
  const int32_t c_released = Step(c, OpType::kOk, OpF::kRelease);
  Send(c, {"GET", "lock"});  // after its release: unlisted
  Step(c, OpType::kInvoke, OpF::kAcquire);
  Send(c, {"SET", "lock", "C", "NX", "PX", "1000"});  // C's acquire: unlisted
  const int32_t b_acquired = Step(b, OpType::kOk, OpF::kAcquire);
  const int32_t b_enter = Step(b, OpType::kInvoke, OpF::kCs);
  const CheckResult r = CheckMutualExclusion(h, seconds(t));
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].events,
            (std::vector<int32_t>{a_acquired, a_enter, c_release, c_del, gone, c_deleted,
                                  c_released, b_acquired, b_enter}));
}

TEST_F(EventsTest, ARangeDoesNotListCommandsOfAReleaseBegunBeforeIt) {
  const int32_t c_release = Step(c, OpType::kInvoke, OpF::kRelease);  // before the story
  Step(a, OpType::kInvoke, OpF::kAcquire);
  Send(c, {"DEL", "lock"});  // inside C's release, which began before the range
  const int32_t a_acquired = Step(a, OpType::kOk, OpF::kAcquire);
  const int32_t c_released = Step(c, OpType::kOk, OpF::kRelease);
  const int32_t a_enter = Step(a, OpType::kInvoke, OpF::kCs);
  const int32_t b_enter = Step(b, OpType::kInvoke, OpF::kCs);  // no acquisition at all
  const CheckResult r = CheckMutualExclusion(h, seconds(t));
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].events,
            (std::vector<int32_t>{a_acquired, c_released, a_enter, b_enter}));
  EXPECT_LT(c_release, r.violations[0].events.front());
}

TEST_F(EventsTest, WithoutAnAcquisitionTheStoryStartsAtTheLastAcquireInvoke) {
  Step(a, OpType::kInvoke, OpF::kAcquire);
  const int32_t a_failed = Step(a, OpType::kFail, OpF::kAcquire);
  const int32_t a_enter = Step(a, OpType::kInvoke, OpF::kCs);  // entered all the same
  const int32_t b_enter = Step(b, OpType::kInvoke, OpF::kCs);
  const CheckResult r = CheckMutualExclusion(h, seconds(t));
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].events, (std::vector<int32_t>{a_failed, a_enter, b_enter}));
}

TEST_F(EventsTest, AReleaseOfTheFirstHolderEndsTheLookBackForItsAcquire) {
  Step(a, OpType::kInvoke, OpF::kAcquire);
  Step(a, OpType::kFail, OpF::kAcquire);
  Step(a, OpType::kInvoke, OpF::kRelease);
  Step(a, OpType::kOk, OpF::kRelease);
  const int32_t a_enter = Step(a, OpType::kInvoke, OpF::kCs);
  const int32_t b_enter = Step(b, OpType::kInvoke, OpF::kCs);
  const CheckResult r = CheckMutualExclusion(h, seconds(t));
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].events, (std::vector<int32_t>{a_enter, b_enter}));
}

TEST_F(EventsTest, AForeignWriteIsToldFromTheHoldersAcquisitionToTheWrite) {
  Step(a, OpType::kInvoke, OpF::kAcquire);
  Send(a, {"SET", "lock", "A", "NX", "PX", "1000"});
  State(a, a);
  Reply(a, Reply::Ok());
  const int32_t a_acquired = Step(a, OpType::kOk, OpF::kAcquire);
  const int32_t a_enter = Step(a, OpType::kInvoke, OpF::kCs);
  const int32_t b_release = Step(b, OpType::kInvoke, OpF::kRelease);
  const int32_t b_del = Send(b, {"DEL", "lock"});
  const int32_t deleted = State(-1, b);
  Reply(b, Reply::Integer(1));  // after the write: unlisted
  const CheckResult r = CheckMutualExclusion(h, seconds(t));
  ASSERT_EQ(r.violations.size(), 1u);
  const Violation& v = r.violations[0];
  EXPECT_EQ(v.kind, ViolationKind::kForeignWrite);
  EXPECT_EQ(v.writer, b);
  EXPECT_EQ(v.holder, a);
  EXPECT_EQ(v.state_index, deleted);
  EXPECT_EQ(v.events, (std::vector<int32_t>{a_acquired, a_enter, b_release, b_del, deleted}));
}

// A foreign write names the section its victim is in at the write: of two
// it entered (its lock's and a nested one's), the one still open, and after
// it left both and entered again, the new one; a write while the victim
// holds the lock outside any section names none.
TEST_F(EventsTest, AForeignWriteNamesTheVictimsSectionOpenAtTheWrite) {
  Step(a, OpType::kOk, OpF::kAcquire);
  State(a, a);
  const int32_t outer = Step(a, OpType::kInvoke, OpF::kCs);
  h.AddStep(seconds(t++), a, OpType::kInvoke, OpF::kCs, "inner");
  h.AddStep(seconds(t++), a, OpType::kOk, OpF::kCs, "inner");
  const int32_t first_write = State(b, b);
  State(a, a);
  Step(a, OpType::kOk, OpF::kCs);
  const int32_t between = State(c, c);  // A holds, in no section
  State(a, a);
  const int32_t again = Step(a, OpType::kInvoke, OpF::kCs);
  const int32_t last_write = State(-1, b);
  const CheckResult r = CheckMutualExclusion(h, seconds(t));
  ASSERT_EQ(r.violations.size(), 3u);
  for (const Violation& v : r.violations) EXPECT_EQ(v.kind, ViolationKind::kForeignWrite);
  EXPECT_EQ(r.violations[0].state_index, first_write);
  EXPECT_EQ(r.violations[0].first.enter_index, outer);
  EXPECT_EQ(r.violations[1].state_index, between);
  EXPECT_EQ(r.violations[1].first.enter_index, -1);
  EXPECT_EQ(r.violations[2].state_index, last_write);
  EXPECT_EQ(r.violations[2].first.enter_index, again);
}

// A section entered again without leaving stays open to the end (the new
// one is the one an exit ends): a later foreign write names the old one.
TEST_F(EventsTest, AForeignWriteNamesASectionEnteredAgainThatIsStillOpen) {
  Step(a, OpType::kOk, OpF::kAcquire);
  State(a, a);
  const int32_t first = Step(a, OpType::kInvoke, OpF::kCs);
  Step(a, OpType::kInvoke, OpF::kCs);
  Step(a, OpType::kOk, OpF::kCs);  // ends the second
  const int32_t write = State(b, b);
  const CheckResult r = CheckMutualExclusion(h, seconds(t));
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].state_index, write);
  EXPECT_EQ(r.violations[0].first.enter_index, first);
  EXPECT_EQ(r.violations[0].first.exit_index, -1);
}

// A long story (a first holder that retried 100 times, then 100 cycles of
// another client before the key expired) lists kListedEvents: its start,
// the 20 events before the first holder's acquisition and the 20 from it,
// and its end up to the second's entry; `elided` counts the two stretches
// left out.
TEST_F(EventsTest, ALongStoryListsItsStartTheFirstAcquisitionAndItsEnd) {
  std::vector<int32_t> story;  // every event the rule lists, in order
  Step(a, OpType::kInvoke, OpF::kAcquire);
  for (int i = 0; i < 100; ++i) {
    story.push_back(Send(a, {"SET", "lock", "A", "NX", "PX", "1000"}));
    story.push_back(Reply(a, Reply::Nil()));
  }
  const int32_t a_state = State(a, a);
  const int32_t a_acquired = Step(a, OpType::kOk, OpF::kAcquire);
  const int32_t a_enter = Step(a, OpType::kInvoke, OpF::kCs);
  story.insert(story.end(), {a_state, a_acquired, a_enter});
  for (int i = 0; i < 100; ++i) {
    story.push_back(Step(c, OpType::kOk, OpF::kAcquire));
    story.push_back(Step(c, OpType::kInvoke, OpF::kRelease));
    story.push_back(Step(c, OpType::kOk, OpF::kRelease));
  }
  const int32_t expired = State(-1, -1);
  Step(b, OpType::kInvoke, OpF::kAcquire);
  const int32_t b_set = Send(b, {"SET", "lock", "B", "NX", "PX", "1000"});
  const int32_t b_state = State(b, b);
  const int32_t b_reply = Reply(b, Reply::Ok());
  const int32_t b_acquired = Step(b, OpType::kOk, OpF::kAcquire);
  const int32_t b_enter = Step(b, OpType::kInvoke, OpF::kCs);
  story.insert(story.end(), {expired, b_set, b_state, b_reply, b_acquired, b_enter});
  ASSERT_EQ(story.size(), 509u);

  const CheckResult r = CheckMutualExclusion(h, seconds(t));
  ASSERT_EQ(r.violations.size(), 1u);
  const Violation& v = r.violations[0];
  ASSERT_EQ(v.events.size(), kListedEvents);
  // A's acquisition is the story's 202nd event (index 201): the 20 before
  // it (the reply of A's 91st retry, its last nine retries and its state)
  // and the 20 from it are kept.
  std::vector<int32_t> want(story.begin(), story.begin() + 40);
  want.insert(want.end(), story.begin() + 181, story.begin() + 221);
  want.insert(want.end(), story.end() - 120, story.end());
  EXPECT_EQ(v.events, want);
  ASSERT_EQ(v.elided.size(), 2u);
  EXPECT_EQ(v.elided[0].after, story[39]);
  EXPECT_EQ(v.elided[0].count, 141);
  EXPECT_EQ(v.elided[1].after, story[220]);
  EXPECT_EQ(v.elided[1].count, 168);
  for (int32_t kept : {a_state, a_acquired, a_enter, expired, b_state, b_acquired, b_enter}) {
    EXPECT_NE(std::find(v.events.begin(), v.events.end(), kept), v.events.end()) << kept;
  }
}

// When the first holder's acquisition is among the story's last events
// (it retried from the story's start), the window around it joins the
// tail: the story's start and its last 160 events.
TEST_F(EventsTest, AnAcquisitionNearTheEndIsListedWithTheLastEvents) {
  std::vector<int32_t> story;
  Step(a, OpType::kInvoke, OpF::kAcquire);
  for (int i = 0; i < 150; ++i) {
    story.push_back(Send(a, {"SET", "lock", "A", "NX", "PX", "1000"}));
    story.push_back(Reply(a, Reply::Nil()));
  }
  story.push_back(State(a, a));
  story.push_back(Step(a, OpType::kOk, OpF::kAcquire));
  story.push_back(Step(a, OpType::kInvoke, OpF::kCs));
  story.push_back(State(-1, -1));
  story.push_back(Step(b, OpType::kOk, OpF::kAcquire));
  story.push_back(Step(b, OpType::kInvoke, OpF::kCs));
  ASSERT_EQ(story.size(), 306u);
  const CheckResult r = CheckMutualExclusion(h, seconds(t));
  ASSERT_EQ(r.violations.size(), 1u);
  const Violation& v = r.violations[0];
  std::vector<int32_t> want(story.begin(), story.begin() + 40);
  want.insert(want.end(), story.end() - 160, story.end());
  EXPECT_EQ(v.events, want);
  ASSERT_EQ(v.elided.size(), 1u);
  EXPECT_EQ(v.elided[0].after, story[39]);
  EXPECT_EQ(v.elided[0].count, 106);
}

// Only the first kExplainedViolations violations of a run list events.
TEST_F(EventsTest, OnlyTheFirstViolationsOfARunListEvents) {
  // C overwrites B's value while B holds it, 120 times: 120 foreign
  // writes, each with a story of its own.
  for (int i = 0; i < 120; ++i) {
    Step(b, OpType::kOk, OpF::kAcquire);
    State(b, b);
    State(c, c);
    Step(b, OpType::kInvoke, OpF::kRelease);
  }
  const CheckResult r = CheckMutualExclusion(h, seconds(t));
  ASSERT_EQ(r.violations.size(), 120u);
  for (size_t i = 0; i < r.violations.size(); ++i) {
    EXPECT_EQ(r.violations[i].kind, ViolationKind::kForeignWrite);
    EXPECT_EQ(r.violations[i].events.empty(), i >= kExplainedViolations) << i;
  }
}

// A story of kListedEvents or fewer is listed whole, with nothing elided.
TEST_F(EventsTest, AStoryWithinTheBoundIsListedWhole) {
  Step(a, OpType::kInvoke, OpF::kAcquire);
  for (int i = 0; i < 97; ++i) {
    Send(a, {"SET", "lock", "A", "NX", "PX", "1000"});
    Reply(a, Reply::Nil());
  }
  State(a, a);
  Step(a, OpType::kOk, OpF::kAcquire);
  Step(a, OpType::kInvoke, OpF::kCs);
  State(-1, -1);
  Step(b, OpType::kOk, OpF::kAcquire);
  Step(b, OpType::kInvoke, OpF::kCs);  // 194 + 6 = 200 events
  const CheckResult r = CheckMutualExclusion(h, seconds(t));
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].events.size(), kListedEvents);
  EXPECT_TRUE(r.violations[0].elided.empty());
}

// Without explanations (explore's runs) the checker finds the same
// violations, each with no events listed.
TEST_F(EventsTest, WithoutExplanationsTheViolationsAreTheSameButListNoEvents) {
  Step(a, OpType::kInvoke, OpF::kAcquire);
  Send(a, {"SET", "lock", "A", "NX", "PX", "1000"});
  State(a, a);
  Reply(a, Reply::Ok());
  Step(a, OpType::kOk, OpF::kAcquire);
  Step(a, OpType::kInvoke, OpF::kCs);
  Step(b, OpType::kInvoke, OpF::kRelease);
  Send(b, {"DEL", "lock"});
  State(-1, b);  // B's DEL of A's lock: a foreign write
  Reply(b, Reply::Integer(1));
  Step(b, OpType::kOk, OpF::kRelease);
  Step(b, OpType::kOk, OpF::kAcquire);
  Step(b, OpType::kInvoke, OpF::kCs);  // and B inside A's section
  const CheckResult explained = CheckMutualExclusion(h, seconds(t));
  const CheckResult bare = CheckMutualExclusion(h, seconds(t), /*explain=*/false);
  ASSERT_EQ(explained.violations.size(), 2u);
  ASSERT_EQ(bare.violations.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const Violation& e = explained.violations[i];
    const Violation& v = bare.violations[i];
    EXPECT_FALSE(e.events.empty());
    EXPECT_TRUE(v.events.empty());
    EXPECT_EQ(v.kind, e.kind);
    EXPECT_EQ(v.resource, e.resource);
    EXPECT_EQ(v.first.enter_index, e.first.enter_index);
    EXPECT_EQ(v.second.enter_index, e.second.enter_index);
    EXPECT_EQ(v.overlap_start, e.overlap_start);
    EXPECT_EQ(v.overlap_end, e.overlap_end);
    EXPECT_EQ(v.state_index, e.state_index);
    EXPECT_EQ(v.writer, e.writer);
    EXPECT_EQ(v.holder, e.holder);
  }
  EXPECT_EQ(bare.violations[0].kind, ViolationKind::kForeignWrite);
  EXPECT_EQ(bare.violations[1].kind, ViolationKind::kMutualExclusion);
}

TEST(CheckerTest, AHolderThatNeverLeavesOverlapsEveryLaterSection) {
  // 500 later sections overlap the open holder: 8 listed, 492 folded into
  // one more violation, whose story starts at the open holder's
  // acquisition and lists every acquisition up to the first folded entry.
  History h;
  const int a = h.AddActor("A"), b = h.AddActor("B");
  h.AddStep(seconds(0), a, OpType::kOk, OpF::kAcquire, "lock");
  h.AddStep(seconds(0), a, OpType::kInvoke, OpF::kCs, "lock");
  for (int i = 1; i <= 500; ++i) {
    h.AddStep(seconds(i), b, OpType::kOk, OpF::kAcquire, "lock");
    h.AddStep(seconds(i), b, OpType::kInvoke, OpF::kCs, "lock");
    h.AddStep(seconds(i), b, OpType::kOk, OpF::kCs, "lock");
  }
  const CheckResult r = CheckMutualExclusion(h, seconds(1000));
  ASSERT_EQ(r.violations.size(), static_cast<size_t>(kListedOverlaps + 1));
  const Violation& last = r.violations.back();
  ASSERT_TRUE(last.folded);
  EXPECT_EQ(last.folded->sections, 500 - kListedOverlaps);
  EXPECT_EQ(last.overlap_start, seconds(kListedOverlaps + 1));
  EXPECT_EQ(last.overlap_end, seconds(500));
  // A's acquisition and entry, B's 9 acquisitions, its 8 finished sections
  // (entry and exit) and the 9th entry (op 2 + 3 * 8 + 1).
  ASSERT_EQ(last.events.size(), 2u + 9u + 2u * 8u + 1u);
  EXPECT_EQ(last.events.front(), 0);
  EXPECT_EQ(last.events.back(), 27);
}

}  // namespace
}  // namespace locksim

namespace locksim {
namespace {

// A holder that never leaves (it crashed holding the lock) is overlapped
// by every later section: the first kListedOverlaps overlaps are listed one
// by one, the rest are one folded violation that counts them by thread.
TEST(CheckerTest, AHolderThatNeverLeavesFoldsTheOverlapsPastTheListedOnes) {
  std::vector<Section> sections = {{1, 0, -1}};
  // B and C take turns, 20 sections of 1 s from t = 1 s.
  for (int i = 0; i < 20; ++i) sections.push_back({2 + i % 2, 1 + 2 * i, 2 + 2 * i});
  History h = Build(4, sections);
  CheckResult r = CheckMutualExclusion(h, seconds(100));
  ASSERT_EQ(r.violations.size(), static_cast<size_t>(kListedOverlaps + 1));
  for (int64_t i = 0; i < kListedOverlaps; ++i) {
    const Violation& v = r.violations[static_cast<size_t>(i)];
    EXPECT_FALSE(v.folded);
    EXPECT_EQ(v.first.process, 1);
    EXPECT_EQ(v.overlap_start, seconds(1 + 2 * i));
  }
  const Violation& folded = r.violations.back();
  ASSERT_TRUE(folded.folded);
  EXPECT_EQ(folded.first.process, 1);
  EXPECT_EQ(folded.second.process, 2);  // the 9th section: B's (i = 8)
  EXPECT_EQ(folded.overlap_start, seconds(17));
  EXPECT_EQ(folded.overlap_end, seconds(40));  // the last section's end
  EXPECT_EQ(folded.folded->sections, 12);
  ASSERT_EQ(folded.folded->by_thread.size(), 2u);
  EXPECT_EQ(folded.folded->by_thread[0], std::make_pair(2, int64_t{6}));
  EXPECT_EQ(folded.folded->by_thread[1], std::make_pair(3, int64_t{6}));
}

// Up to kListedOverlaps overlaps of one section are all listed: what every
// bundled scenario has (at most 3).
TEST(CheckerTest, OverlapsUpToTheListedNumberAreNotFolded) {
  std::vector<Section> sections = {{1, 0, -1}};
  for (int i = 0; i < kListedOverlaps; ++i) sections.push_back({2, 1 + 2 * i, 2 + 2 * i});
  CheckResult r = CheckMutualExclusion(Build(3, sections), seconds(100));
  ASSERT_EQ(r.violations.size(), static_cast<size_t>(kListedOverlaps));
  for (const Violation& v : r.violations) EXPECT_FALSE(v.folded);
}

// A crash ends every open section of the crashed process: each of its
// threads', each of their keys'; other processes' sections stay open, and
// the crashed threads' later sections are new ones.
TEST(CheckerTest, ACrashEndsEveryOpenSectionOfItsProcess) {
  History h;
  const int a = h.AddActor("A"), a2 = h.AddActor("A/2", a), b = h.AddActor("B");
  h.AddStep(seconds(0), a, OpType::kInvoke, OpF::kCs, "lock:1");
  h.AddStep(seconds(1), a, OpType::kInvoke, OpF::kCs, "lock:2");
  h.AddStep(seconds(2), a2, OpType::kInvoke, OpF::kCs, "lock:3");
  h.AddStep(seconds(3), b, OpType::kInvoke, OpF::kCs, "lock:4");
  const int64_t crash = h.IndexOf(h.AddFault(seconds(4), OpF::kCrash, "A", a));
  h.AddStep(seconds(5), b, OpType::kInvoke, OpF::kCs, "lock:1");  // after A's: no overlap
  h.AddStep(seconds(6), a, OpType::kInvoke, OpF::kCs, "lock:2");  // A again, restarted
  const int64_t a_exit = h.IndexOf(h.AddStep(seconds(7), a, OpType::kOk, OpF::kCs, "lock:2"));
  h.AddStep(seconds(8), a, OpType::kOk, OpF::kCs, "lock:1");  // no section open: ignored
  const CheckResult r = CheckMutualExclusion(h, seconds(10));
  EXPECT_TRUE(r.ok());
  ASSERT_EQ(r.sections.size(), 6u);
  for (size_t i : {0u, 1u, 2u}) {
    EXPECT_TRUE(r.sections[i].crashed) << i;
    EXPECT_EQ(r.sections[i].exit_index, crash) << i;
    EXPECT_EQ(r.sections[i].end, seconds(4)) << i;
  }
  EXPECT_FALSE(r.sections[3].crashed);  // B's: open to the end
  EXPECT_EQ(r.sections[3].exit_index, -1);
  EXPECT_EQ(r.sections[3].end, seconds(10));
  EXPECT_EQ(r.sections[4].exit_index, -1);
  EXPECT_FALSE(r.sections[5].crashed);
  EXPECT_EQ(r.sections[5].exit_index, a_exit);
  EXPECT_EQ(r.sections[5].end, seconds(7));
}

// A section entered again without leaving: the exit ends the newer one,
// the older stays open to the end of the run (and overlaps B's).
TEST(CheckerTest, ASectionEnteredAgainIsTheOneAnExitEnds) {
  History h;
  const int a = h.AddActor("A"), b = h.AddActor("B");
  const int64_t first = h.IndexOf(h.AddStep(seconds(0), a, OpType::kInvoke, OpF::kCs, "lock"));
  h.AddStep(seconds(1), a, OpType::kInvoke, OpF::kCs, "lock");
  const int64_t exit = h.IndexOf(h.AddStep(seconds(2), a, OpType::kOk, OpF::kCs, "lock"));
  h.AddStep(seconds(3), a, OpType::kOk, OpF::kCs, "lock");  // nothing open: ignored
  const int64_t b_enter = h.IndexOf(h.AddStep(seconds(4), b, OpType::kInvoke, OpF::kCs, "lock"));
  h.AddStep(seconds(5), b, OpType::kOk, OpF::kCs, "lock");
  const CheckResult r = CheckMutualExclusion(h, seconds(10));
  ASSERT_EQ(r.sections.size(), 3u);
  EXPECT_EQ(r.sections[0].exit_index, -1);
  EXPECT_EQ(r.sections[0].end, seconds(10));
  EXPECT_EQ(r.sections[1].exit_index, exit);
  EXPECT_EQ(r.sections[1].end, seconds(2));
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].first.enter_index, first);
  EXPECT_EQ(r.violations[0].second.enter_index, b_enter);
}

// A crash ends the holding of every thread of the crashed process (not
// another's): a write over a crashed holder's value is no foreign write,
// one over a live holder's is, per node and key.
TEST(CheckerTest, AForeignWriteAfterACrashIsOnlyOverALiveHolder) {
  History h;
  const int a = h.AddActor("A"), a2 = h.AddActor("A/2", a), b = h.AddActor("B"),
            c = h.AddActor("C"), node = h.AddActor("redis0");
  auto state = [&](int t, const char* key, int owner, int cause) {
    KeyState s = KeyState::Absent(key);
    if (owner >= 0) {
      s.present = true;
      s.str = h.name(owner);
    }
    return h.IndexOf(h.AddState(seconds(t), node, OpType::kOk, s, cause));
  };
  h.AddStep(seconds(0), a2, OpType::kOk, OpF::kAcquire, "lock");
  state(1, "lock", a2, a2);
  const int64_t b_acquired =
      h.IndexOf(h.AddStep(seconds(2), b, OpType::kOk, OpF::kAcquire, "other"));
  state(3, "other", b, b);
  h.AddFault(seconds(4), OpF::kCrash, "A", a);
  state(5, "lock", -1, c);                       // A/2 crashed: not foreign
  const int64_t del = state(6, "other", -1, c);  // B still holds: foreign
  const CheckResult r = CheckMutualExclusion(h, seconds(10));
  ASSERT_EQ(r.violations.size(), 1u);
  const Violation& v = r.violations[0];
  EXPECT_EQ(v.kind, ViolationKind::kForeignWrite);
  EXPECT_EQ(v.resource, "other");
  EXPECT_EQ(v.holder, b);
  EXPECT_EQ(v.writer, c);
  EXPECT_EQ(v.state_index, del);
  EXPECT_EQ(v.first.acquired_index, b_acquired);
}

}  // namespace
}  // namespace locksim
