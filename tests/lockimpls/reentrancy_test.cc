// The reentrant variants of seed 004: re-entry by the holding thread (F14),
// lease renewal by a background thread and its limit under a pause (F1),
// and the process-local mutex between threads of one process.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lockimpls/lock.h"
#include "sim/world/process_env.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "sim/world/virtual_world.h"

namespace locksim {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

struct Log {
  bool outer = false, inner = false, inner_released = false, outer_released = false;
  Nanos inner_took{-1};
  bool b_first = true, b_second = false;
  Nanos b_first_done{0}, b_second_done{0};
};

// Coroutines are free functions taking pointers (tasks are lazy).
Task<void> Holder(Env* env, Runtime* w, Lock* lock, Log* log) {
  log->outer = co_await lock->Acquire(*env);
  const Nanos t0 = w->Now();
  log->inner = co_await lock->Acquire(*env);
  log->inner_took = w->Now() - t0;
  log->inner_released = co_await lock->Release(*env);
  co_await env->SleepFor(milliseconds(2500) - w->Now());  // still inside the outer section
  log->outer_released = co_await lock->Release(*env);
}

Task<void> Contender(Env* env, Runtime* w, Lock* lock, Log* log) {
  co_await env->SleepFor(milliseconds(500));
  log->b_first = co_await lock->Acquire(*env);  // times out at 1.5 s: A holds it
  log->b_first_done = w->Now();
  co_await env->SleepFor(seconds(2) - w->Now());
  log->b_second = co_await lock->Acquire(*env);  // A lets go at 2.5 s
  log->b_second_done = w->Now();
}

Log RunReentry(const std::string& id) {
  const AlgorithmInfo* algo = FindAlgorithm(id);
  EXPECT_NE(algo, nullptr) << id;
  LockOverrides o;
  o.acquire_timeout = seconds(1);
  o.retry_delay = milliseconds(100);
  const LockConfig config = Resolve(o, algo->defaults);
  VirtualWorld w({});
  const int a = w.AddProcess("A");
  const int b = w.AddProcess("B");
  ProcessEnv ea(&w, a), eb(&w, b);
  std::unique_ptr<Lock> la = algo->make(ea, config);
  std::unique_ptr<Lock> lb = algo->make(eb, config);
  Log log;
  w.Spawn(a, Nanos(0), Holder(&ea, &w, la.get(), &log));
  w.Spawn(b, Nanos(0), Contender(&eb, &w, lb.get(), &log));
  w.Run(seconds(60));
  return log;
}

class ReentrantTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ReentrantTest, InnerReleaseKeepsTheLockOuterReleaseFreesIt) {
  // The run is deterministic (the world's seed 1), so its times are exact:
  // the inner acquire is one round trip (two latencies of 100-500 us, no
  // waiting); B's first acquire gives up at its 1 s timeout after starting
  // at 500 ms (plus the reply in flight); its second gets the lock at the
  // first retry after A lets go at 2.5 s (plus a round trip). Each variant
  // sends its own commands, so the draws fall differently.
  struct Times {
    int64_t inner_took, b_first_done, b_second_done;
  };
  const std::map<std::string, Times> expected = {
      {"reentrant-watchdog", {506079, 1500329355, 2503537891}},
      {"registry", {506079, 1500380181, 2503343974}},
      {"refresh-two-thirds", {506079, 1500380181, 2503432055}},
  };
  const Times& t = expected.at(GetParam());
  const Log log = RunReentry(GetParam());
  EXPECT_TRUE(log.outer);
  EXPECT_TRUE(log.inner);
  EXPECT_EQ(log.inner_took, Nanos(t.inner_took));
  EXPECT_TRUE(log.inner_released);
  EXPECT_FALSE(log.b_first);  // the inner release did not free the lock
  EXPECT_EQ(log.b_first_done, Nanos(t.b_first_done));
  EXPECT_TRUE(log.outer_released);
  EXPECT_TRUE(log.b_second);
  EXPECT_EQ(log.b_second_done, Nanos(t.b_second_done));
}

INSTANTIATE_TEST_SUITE_P(Seed004, ReentrantTest,
                         ::testing::Values("reentrant-watchdog", "registry",
                                           "refresh-two-thirds"),
                         [](const auto& info) {
                           std::string name;
                           for (char c : info.param) name += c == '-' ? '_' : c;
                           return name;
                         });

TEST(Reentrancy, ANonReentrantLockReenteredByItsHolderTimesOut) {
  // F14: set-nx-px's SET NX does not know its own holder; the second
  // acquisition waits for the whole acquire timeout and fails.
  const Log log = RunReentry("set-nx-px");
  EXPECT_TRUE(log.outer);
  EXPECT_FALSE(log.inner);
  EXPECT_GE(log.inner_took, seconds(1));
}

// A holds for 10 s with a 3 s lease; B wants the lock from 1 s on.
constexpr char kLongSection[] = R"({
  "duration": "2m",
  "algorithm": "set-nx-px",
  "lock": {"ttl": "3s", "retry_delay": "100ms", "acquire_timeout": "1m"},
  "clients": [
    {"name": "A", "hold": "10s"},
    {"name": "B", "start": "1s", "hold": "5s"}
  ]
})";

RunResult RunText(const std::string& text, const std::string& algorithm) {
  RunOptions o;
  o.algorithm = algorithm;
  return RunScenario(ParseScenario(text, "reentrancy.json"), o);
}

std::string WithPause(std::string text) {
  text.replace(text.rfind(']'), 1,
               R"(], "faults": [{"type": "pause", "process": "A", "at": "2s", "duration": "10s"}])");
  return text;
}

class RenewingTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RenewingTest, RenewalKeepsALongCriticalSectionSafe) {
  RunResult r = RunText(kLongSection, GetParam());
  EXPECT_EQ(r.verdict(), Verdict::kSafe);
  EXPECT_EQ(r.acquisitions, 2);
  EXPECT_EQ(r.failed_acquisitions, 0);
}

TEST_P(RenewingTest, APauseLongerThanTheLeaseStopsTheRenewalToo) {
  RunResult r = RunText(WithPause(kLongSection), GetParam());
  EXPECT_EQ(r.verdict(), Verdict::kViolated);
  EXPECT_EQ(r.OverlapPairs(), (std::vector<std::string>{"A/B"}));
}

INSTANTIATE_TEST_SUITE_P(Seed004, RenewingTest,
                         ::testing::Values("reentrant-watchdog", "refresh-two-thirds"),
                         [](const auto& info) {
                           std::string name;
                           for (char c : info.param) name += c == '-' ? '_' : c;
                           return name;
                         });

TEST(Reentrancy, ARenewalIntervalLongerThanTheLeaseComesTooLate) {
  // lock.renewal_interval overrides the variant's rule: renewing every 5 s
  // a lease of 3 s lets it run out with no fault at all.
  std::string text = kLongSection;
  text.replace(text.find("\"ttl\": \"3s\""), 11, "\"ttl\": \"3s\", \"renewal_interval\": \"5s\"");
  EXPECT_EQ(RunText(text, "reentrant-watchdog").verdict(), Verdict::kViolated);
  EXPECT_EQ(RunText(text, "refresh-two-thirds").verdict(), Verdict::kViolated);
}

TEST(Registry, NoRenewalLosesALongCriticalSection) {
  // The same 10 s section with a 3 s expiry: without renewal B walks in (F1).
  EXPECT_EQ(RunText(kLongSection, "registry").verdict(), Verdict::kViolated);
  EXPECT_EQ(RunText(kLongSection, "set-nx-px").verdict(), Verdict::kViolated);
}

TEST(Registry, ThreadsOfOneProcessAreSerialisedByTheLocalLock) {
  // One clientId for both threads: the obtain script would let either in
  // while the other holds it; the local ReentrantLock keeps them apart.
  constexpr char kThreads[] = R"({
    "duration": "1m",
    "algorithm": "registry",
    "lock": {"acquire_timeout": "10s"},
    "clients": [
      {"name": "A", "threads": 2, "hold": "200ms", "think": "10ms", "iterations": 3},
      {"name": "B", "start": "50ms", "hold": "200ms", "think": "10ms", "iterations": 3}
    ]
  })";
  RunResult r = RunText(kThreads, "registry");
  EXPECT_EQ(r.verdict(), Verdict::kSafe);
  EXPECT_EQ(r.acquisitions, 9);
  EXPECT_EQ(r.failed_acquisitions, 0);
}

}  // namespace
}  // namespace locksim
