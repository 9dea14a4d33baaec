#include "sim/checker.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace locksim
