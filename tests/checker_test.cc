#include "sim/checker.h"

#include <gtest/gtest.h>

#include <map>

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
  for (int i = 0; i < processes; ++i) h.AddProcess(std::string(1, char('A' + i)));
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
      h.Add(seconds(e.t), e.process, OpType::kOk, OpF::kAcquire, "lock");
      h.Add(seconds(e.t), e.process, OpType::kInvoke, OpF::kCs, "lock");
    } else {
      h.Add(seconds(e.t), e.process, OpType::kOk, OpF::kCs, "lock");
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
  int a = h.AddProcess("A"), b = h.AddProcess("B");
  h.Add(seconds(0), a, OpType::kInvoke, OpF::kCs, "lock");
  h.Add(seconds(5), b, OpType::kInvoke, OpF::kCs, "lock");  // B in first...
  h.Add(seconds(5), a, OpType::kOk, OpF::kCs, "lock");      // ...then A out
  h.Add(seconds(6), b, OpType::kOk, OpF::kCs, "lock");
  CheckResult r = CheckMutualExclusion(h, seconds(10));
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].overlap_start, seconds(5));
  EXPECT_EQ(r.violations[0].overlap_end, seconds(5));
}

TEST(CheckerTest, ZeroLengthSectionsInSequenceAreSafe) {
  History h;
  int a = h.AddProcess("A"), b = h.AddProcess("B");
  h.Add(seconds(1), a, OpType::kInvoke, OpF::kCs, "lock");
  h.Add(seconds(1), a, OpType::kOk, OpF::kCs, "lock");
  h.Add(seconds(1), b, OpType::kInvoke, OpF::kCs, "lock");
  h.Add(seconds(1), b, OpType::kOk, OpF::kCs, "lock");
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
  int a = h.AddProcess("A"), b = h.AddProcess("B");
  h.Add(seconds(0), a, OpType::kInvoke, OpF::kCs, "lock:1");
  h.Add(seconds(1), b, OpType::kInvoke, OpF::kCs, "lock:2");
  h.Add(seconds(2), a, OpType::kOk, OpF::kCs, "lock:1");
  h.Add(seconds(3), b, OpType::kOk, OpF::kCs, "lock:2");
  EXPECT_TRUE(CheckMutualExclusion(h, seconds(5)).ok());
}


// The events of a violation as the checker first listed them: a scan of the
// history from the first holder's acquisition to the second's entry. The
// checker now answers long ranges from precomputed indices; both must agree.
std::vector<int64_t> ReferenceEvents(const History& history, const Violation& v) {
  const CriticalSection& a = v.first;
  const CriticalSection& b = v.second;
  const int64_t from = std::min(a.acquired_index >= 0 ? a.acquired_index : a.enter_index,
                                b.acquired_index >= 0 ? b.acquired_index : b.enter_index);
  std::vector<int64_t> out;
  std::map<int, bool> releasing;
  for (int64_t i = std::max<int64_t>(from, 0); i <= b.enter_index; ++i) {
    const Op& op = history.ops()[i];
    bool keep = false;
    switch (op.f) {
      case OpF::kPause:
      case OpF::kResume: keep = true; break;
      case OpF::kAcquire: keep = op.type == OpType::kOk; break;
      case OpF::kRelease:
        releasing[op.process] = op.type == OpType::kInvoke;
        keep = true;
        break;
      case OpF::kRedis: keep = releasing[op.process]; break;
      case OpF::kCs: keep = op.process == a.process || op.process == b.process; break;
      default: break;
    }
    if (keep) out.push_back(i);
  }
  return out;
}

TEST(CheckerTest, EventsOfLongAndShortRangesAreTheFullScansOnes) {
  // A enters and never leaves (paused, then gone); B and C take turns for
  // thousands of operations, with releases straddling range starts, and
  // each of their sections overlaps A's. D's release starts before A's
  // acquisition, so its commands after it are not inside a listed release.
  History h;
  const int a = h.AddProcess("A"), b = h.AddProcess("B"), c = h.AddProcess("C"),
            d = h.AddProcess("D");
  int t = 0;
  auto add = [&](int p, OpType type, OpF f, std::string value = {}) {
    h.Add(seconds(t++), p, type, f, std::move(value), f == OpF::kRedis ? 0 : -1);
  };
  add(d, OpType::kInvoke, OpF::kRelease);
  add(a, OpType::kOk, OpF::kAcquire);
  add(d, OpType::kInvoke, OpF::kRedis, "DEL lock");
  add(a, OpType::kInvoke, OpF::kCs, "lock");
  add(h.nemesis(), OpType::kInfo, OpF::kPause, "A");
  add(d, OpType::kOk, OpF::kRedis, "(integer) 1");
  add(d, OpType::kOk, OpF::kRelease);
  for (int i = 0; i < 800; ++i) {
    const int p = i % 2 ? c : b;
    add(p, OpType::kInvoke, OpF::kAcquire);
    add(p, OpType::kInvoke, OpF::kRedis, "SET lock x NX PX 100");
    add(p, OpType::kOk, OpF::kRedis, "OK");
    add(p, OpType::kOk, OpF::kAcquire);
    add(p, OpType::kInvoke, OpF::kCs, "lock");
    add(p, OpType::kOk, OpF::kCs, "lock");
    add(p, OpType::kInvoke, OpF::kRelease);
    add(p, OpType::kInvoke, OpF::kRedis, "EVAL cad");
    if (i % 7 == 0) add(h.nemesis(), OpType::kInfo, OpF::kResume, "x");
    add(p, OpType::kOk, OpF::kRedis, "(integer) 1");
    add(p, OpType::kFail, OpF::kRelease);
    add(p, OpType::kInvoke, OpF::kRedis, "GET lock");  // after its release
    add(p, OpType::kOk, OpF::kRedis, "(nil)");
  }
  const CheckResult r = CheckMutualExclusion(h, seconds(t + 1));
  ASSERT_EQ(r.violations.size(), 800u);
  bool long_range = false, short_range = false;
  for (const Violation& v : r.violations) {
    EXPECT_EQ(v.events, ReferenceEvents(h, v)) << "second entered at " << v.second.enter_index;
    (v.second.enter_index > 5000 ? long_range : short_range) = true;
  }
  EXPECT_TRUE(long_range);
  EXPECT_TRUE(short_range);
}

}  // namespace
}  // namespace locksim
