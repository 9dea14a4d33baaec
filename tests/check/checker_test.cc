#include "sim/check/checker.h"

#include <gtest/gtest.h>

#include <map>
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


// The events of a violation as the checker lists them by a scan of the
// history: from the first holder's acquire invoke (mutual exclusion) or its
// acquisition (foreign write) to the second's entry (the write). The
// checker answers long ranges from precomputed indices; both must agree.
std::vector<int64_t> ReferenceEvents(const History& history, const Violation& v) {
  const CriticalSection& a = v.first;
  const CriticalSection& b = v.second;
  int64_t from = std::min(a.acquired_index >= 0 ? a.acquired_index : a.enter_index,
                          b.acquired_index >= 0 ? b.acquired_index : b.enter_index);
  if (v.kind == ViolationKind::kMutualExclusion) {
    for (int64_t i = from; i >= 0; --i) {
      const Op& op = history.ops()[i];
      if (op.f == OpF::kAcquire && op.type == OpType::kInvoke && op.actor == a.process) {
        from = i;
        break;
      }
      if (op.f == OpF::kRelease && op.actor == a.process) break;
    }
  } else {
    from = a.acquired_index;
  }
  std::vector<int64_t> out;
  std::map<int, bool> releasing, acquiring;
  for (int64_t i = std::max<int64_t>(from, 0); i <= b.enter_index; ++i) {
    const Op& op = history.ops()[i];
    bool keep = false;
    switch (op.f) {
      case OpF::kAcquire:
        acquiring[op.actor] = op.type == OpType::kInvoke;
        keep = op.type != OpType::kInvoke;
        break;
      case OpF::kRelease:
        releasing[op.actor] = op.type == OpType::kInvoke;
        keep = true;
        break;
      case OpF::kRedis:
        keep = releasing[op.actor] ||
               (acquiring[op.actor] && (op.actor == a.process || op.actor == b.process));
        break;
      case OpF::kCs: keep = op.actor == a.process || op.actor == b.process; break;
      case OpF::kPause:
      case OpF::kResume:
      case OpF::kCrash:
      case OpF::kRestart:
      case OpF::kClock:
      case OpF::kExpire:
      case OpF::kFailover:
      case OpF::kPartition:
      case OpF::kHeal:
      case OpF::kDelay:
      case OpF::kDrop:
      case OpF::kState:
      case OpF::kWrite: keep = true; break;
      default: break;
    }
    if (keep) out.push_back(i);
  }
  return out;
}

TEST(CheckerTest, EventsOfLongAndShortRangesAreTheFullScansOnes) {
  // A enters and never leaves (paused, then gone); B and C take turns for
  // thousands of operations, with releases straddling range starts, and
  // each of their sections overlaps A's; their writes of the key are
  // foreign writes over A's. D's release starts before A's acquisition, so
  // its commands after it are not inside a listed release; E acquires
  // (and stays inside the acquire) before A, and its commands are listed
  // only in its own violations. F's section has no acquisition, and its
  // thread's last release is thousands of ops back.
  History h;
  const int a = h.AddActor("A"), b = h.AddActor("B"), c = h.AddActor("C"),
            d = h.AddActor("D"), e = h.AddActor("E"), f = h.AddActor("F");
  int t = 0;
  // An op without a value, a Redis command, a reply, a state, a fault.
  auto add = [&](int p, OpType type, OpF op) { h.Add(seconds(t++), p, type, op); };
  auto cmd = [&](int p, Command c) { h.AddCommand(seconds(t++), p, 0, c); };
  auto reply = [&](int p, Reply r) { h.AddReply(seconds(t++), p, OpType::kOk, 0, r); };
  auto state = [&](int writer, std::string value) {
    KeyState s{"lock", !value.empty(), false, value, {}, std::nullopt};
    if (!value.empty()) s.pttl_ms = 100;
    h.AddState(seconds(t++), h.nemesis(), OpType::kOk, s, writer);
  };
  auto fault = [&](OpF op, std::string what) { h.AddFault(seconds(t++), op, what); };
  auto cs = [&](int p, OpType type) { h.AddStep(seconds(t++), p, type, OpF::kCs, "lock"); };
  add(f, OpType::kInvoke, OpF::kRelease);
  add(f, OpType::kOk, OpF::kRelease);
  add(d, OpType::kInvoke, OpF::kRelease);
  add(e, OpType::kInvoke, OpF::kAcquire);
  add(a, OpType::kInvoke, OpF::kAcquire);
  cmd(a, {"SET", "lock", "a", "NX", "PX", "100"});
  state(a, "a");
  reply(a, Reply::Ok());
  add(a, OpType::kOk, OpF::kAcquire);
  cmd(d, {"DEL", "lock"});
  cs(a, OpType::kInvoke);
  fault(OpF::kPause, "A");
  reply(d, Reply::Integer(1));
  add(d, OpType::kOk, OpF::kRelease);
  for (int i = 0; i < 800; ++i) {
    const int p = i % 2 ? c : b;
    add(p, OpType::kInvoke, OpF::kAcquire);
    cmd(p, {"SET", "lock", "x", "NX", "PX", "100"});
    if (i % 3 == 0) state(p, "x");
    if (i % 50 == 0) cmd(e, {"SET", "lock", "e", "NX", "PX", "100"});
    reply(p, Reply::Ok());
    add(p, OpType::kOk, OpF::kAcquire);
    cs(p, OpType::kInvoke);
    if (i % 11 == 0) fault(OpF::kClock, "+1s");
    cs(p, OpType::kOk);
    add(p, OpType::kInvoke, OpF::kRelease);
    cmd(p, {"EVAL", "cad"});
    if (i % 7 == 0) fault(OpF::kResume, "x");
    if (i % 5 == 0) state(p, "");
    reply(p, Reply::Integer(1));
    add(p, OpType::kFail, OpF::kRelease);
    cmd(p, {"GET", "lock"});  // after its release
    reply(p, Reply::Nil());
    if (i == 600) cs(f, OpType::kInvoke);
  }
  const CheckResult r = CheckMutualExclusion(h, seconds(t + 1));
  bool long_range = false, short_range = false, foreign = false;
  for (const Violation& v : r.violations) {
    EXPECT_EQ(v.events, ReferenceEvents(h, v))
        << v.kind << ": second entered at " << v.second.enter_index;
    (v.second.enter_index > 5000 ? long_range : short_range) = true;
    foreign = foreign || v.kind == ViolationKind::kForeignWrite;
  }
  EXPECT_GE(r.violations.size(), 800u);
  EXPECT_TRUE(long_range);
  EXPECT_TRUE(short_range);
  EXPECT_TRUE(foreign);
}

}  // namespace
}  // namespace locksim
