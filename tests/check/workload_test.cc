// The workloads' invariants on hand-written histories: the sentence a
// report shows and whether the invariant holds, for each workload and for
// the rate limiter.
#include "sim/check/workload.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "sim/core/random.h"
#include "sim/core/time.h"

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
  EXPECT_EQ(e.sentences,
            std::vector<std::string>{"counter is 1 after 2 increments: 1 lost update"});
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
  EXPECT_EQ(e.sentences[1],
            "the counter was left without a TTL by A: every later request is refused for ever");
  // With its EXPIRE, nothing is owed.
  h.AddCommand(seconds(0), a, 0, {"EXPIRE", "rate:x", "1"});
  h.AddReply(seconds(0), a, OpType::kOk, 0, Reply::Integer(1));
  EXPECT_TRUE(CheckLimiter(h, 10, seconds(1), Nanos{0}).holds);
}

// The limiter's windows against the definition, counted the slow way: each
// window opened by a count of 1, and every later admission (in the order
// of the answers) answered before it could end and asked for after the
// opener was answered. Random interleavings of four clients, half their
// admissions opening windows, some windows long enough to hold many others.
TEST(LimiterInvariant, EveryWindowIsCountedAsItsDefinitionSays) {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    Random random(seed);
    struct Event {
      Nanos time;
      int actor;
      bool invoke;
      int64_t count;
    };
    std::vector<Event> events;
    History h;
    std::vector<int> actors;
    for (const char* name : {"A", "B", "C", "D"}) actors.push_back(h.AddActor(name));
    for (int actor : actors) {
      Nanos free{0};
      const int requests = 5 + static_cast<int>(random.Uniform(40));
      for (int k = 0; k < requests; ++k) {
        const Nanos asked = free + milliseconds(random.Uniform(50));
        const Nanos answered = asked + milliseconds(random.Uniform(30));
        const int64_t count =
            random.Uniform(2) == 0 ? 1 : 2 + static_cast<int64_t>(random.Uniform(4));
        events.push_back({asked, actor, true, count});
        events.push_back({answered, actor, false, count});
        free = answered;
      }
    }
    std::stable_sort(events.begin(), events.end(),
                     [](const Event& a, const Event& b) { return a.time < b.time; });
    struct Admission {
      Nanos asked, answered;
      int64_t count;
    };
    std::vector<Admission> admitted;
    std::vector<Nanos> asked_by(actors.size() + 1);
    for (const Event& ev : events) {
      if (ev.invoke) {
        h.AddStep(ev.time, ev.actor, OpType::kInvoke, OpF::kAdmit, "rate:x");
        asked_by[static_cast<size_t>(ev.actor)] = ev.time;
      } else {
        h.AddNumber(ev.time, ev.actor, OpType::kOk, OpF::kAdmit, ev.count);
        admitted.push_back({asked_by[static_cast<size_t>(ev.actor)], ev.time, ev.count});
      }
    }
    const Nanos window = milliseconds(50 + random.Uniform(400));
    const Nanos tolerance = milliseconds(random.Uniform(3));
    int64_t worst = 0;
    Nanos worst_at{0};
    for (size_t i = 0; i < admitted.size(); ++i) {
      if (admitted[i].count != 1) continue;
      int64_t n = 1;
      for (size_t j = i + 1; j < admitted.size(); ++j) {
        if (admitted[j].answered >= admitted[i].asked + window - tolerance) break;
        if (admitted[j].asked >= admitted[i].answered) ++n;
      }
      if (n > worst) std::tie(worst, worst_at) = std::make_tuple(n, admitted[i].answered);
    }
    const int64_t limit = 1 + static_cast<int64_t>(random.Uniform(3));
    const WorkloadEffect e = CheckLimiter(h, limit, window, tolerance);
    SCOPED_TRACE("seed " + std::to_string(seed));
    EXPECT_EQ(e.safety_holds, worst <= limit);
    if (worst > limit) {
      EXPECT_EQ(e.sentences.front(), "admitted " + std::to_string(worst) + " requests within one " +
                                         FormatDuration(window) + " window from " +
                                         FormatDuration(worst_at) + " (limit " +
                                         std::to_string(limit) + ")");
    }
  }
}

// The edges: no admission, one, a tolerance as long as the window (no
// later admission certainly inside it), and answers recorded out of time
// order, where the window's admissions end at the first answer past it.
TEST(LimiterInvariant, TheEdgesCountAsTheDefinitionSays) {
  History none;
  none.AddActor("A");
  EXPECT_TRUE(CheckLimiter(none, 1, seconds(1), Nanos{0}).safety_holds);

  History one;
  const int a = one.AddActor("A");
  one.AddStep(milliseconds(0), a, OpType::kInvoke, OpF::kAdmit, "rate:x");
  one.AddNumber(milliseconds(5), a, OpType::kOk, OpF::kAdmit, 1);
  EXPECT_TRUE(CheckLimiter(one, 1, seconds(1), Nanos{0}).safety_holds);

  History tight;
  const int t = tight.AddActor("A");
  for (int i = 0; i < 5; ++i) {
    tight.AddStep(milliseconds(i), t, OpType::kInvoke, OpF::kAdmit, "rate:x");
    tight.AddNumber(milliseconds(i), t, OpType::kOk, OpF::kAdmit, 1);
  }
  EXPECT_TRUE(CheckLimiter(tight, 1, seconds(1), seconds(1)).safety_holds);
  EXPECT_FALSE(CheckLimiter(tight, 1, seconds(1), Nanos{0}).safety_holds);

  History shuffled;
  std::vector<int> actors;
  for (const char* name : {"A", "B", "C", "D", "E", "F"}) actors.push_back(shuffled.AddActor(name));
  auto admit = [&shuffled](int actor, int asked_ms, int answered_ms, int64_t count) {
    shuffled.AddStep(milliseconds(asked_ms), actor, OpType::kInvoke, OpF::kAdmit, "rate:x");
    shuffled.AddNumber(milliseconds(answered_ms), actor, OpType::kOk, OpF::kAdmit, count);
  };
  admit(actors[0], 0, 0, 1);
  admit(actors[1], 1900, 2000, 2);  // past the window: the scan stops here
  for (int k = 2; k < 6; ++k) admit(actors[k], 100 * k, 100 * k + 50, 2);  // inside it by time
  const WorkloadEffect e = CheckLimiter(shuffled, 1, seconds(1), Nanos{0});
  EXPECT_TRUE(e.safety_holds);
  EXPECT_EQ(e.sentences.front(), "at most 1 admitted per 1s window (6 admitted, 0 refused)");
}

// A counter set back to 1 by every request inside one long window: each
// admission opens a window that holds all the later ones (20 000 windows
// of up to 20 000 admissions, counted without a scan of each).
TEST(LimiterInvariant, AWindowOpenedByEveryAdmissionHoldsAllTheLaterOnes) {
  History h;
  const int a = h.AddActor("A");
  constexpr int kAdmissions = 20000;
  for (int i = 0; i < kAdmissions; ++i) {
    h.AddStep(std::chrono::microseconds(i), a, OpType::kInvoke, OpF::kAdmit, "rate:x");
    h.AddNumber(std::chrono::microseconds(i), a, OpType::kOk, OpF::kAdmit, 1);
  }
  const WorkloadEffect e = CheckLimiter(h, 10, std::chrono::hours(1), Nanos{0});
  EXPECT_FALSE(e.safety_holds);
  EXPECT_EQ(e.sentences.front(),
            "admitted 20000 requests within one 60m00s window from 0ns (limit 10)");
}

}  // namespace
}  // namespace locksim
