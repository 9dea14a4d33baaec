#include "sim/runtime.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/process_env.h"
#include "sim/virtual_world.h"

namespace locksim {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Coroutines are free functions taking pointers: a capturing lambda coroutine
// would outlive its closure, since tasks are lazy.
Task<void> Noop() { co_return; }

Task<void> SleepThenRecord(ProcessEnv* env, Runtime* w, Nanos d, Nanos* woke) {
  co_await env->SleepFor(d);
  *woke = w->Now();
}

Task<void> ReadClock(ProcessEnv* env, Nanos* seen) {
  *seen = env->Now();
  co_return;
}

Task<void> SetThenGet(ProcessEnv* env, Runtime* w, std::vector<Reply>* replies,
                      Nanos* done_at) {
  Command set = {"SET", "k", "v"}, get = {"GET", "k"};
  replies->push_back(co_await env->Call(0, set));
  replies->push_back(co_await env->Call(0, get));
  *done_at = w->Now();
}

TEST(RuntimeTest, EventsRunInTimeOrderAndTiesInFifoOrder) {
  VirtualWorld w({});
  int p = w.AddProcess("A");
  std::vector<std::string> log;
  w.At(milliseconds(20), p, [&] { log.push_back("20a"); });
  w.At(milliseconds(10), p, [&] { log.push_back("10"); });
  w.At(milliseconds(20), p, [&] { log.push_back("20b"); });
  w.At(milliseconds(20), p, [&] { log.push_back("20c"); });
  w.Spawn(p, milliseconds(30), Noop());
  w.Run(seconds(1));
  EXPECT_EQ(log, (std::vector<std::string>{"10", "20a", "20b", "20c"}));
}

TEST(RuntimeTest, VirtualTimeJumpsWithoutWaiting) {
  VirtualWorld w({});
  int p = w.AddProcess("A");
  ProcessEnv env(&w, p);
  Nanos woke{0};
  w.Spawn(p, Nanos(0), SleepThenRecord(&env, &w, std::chrono::hours(24 * 365), &woke));
  w.Run(std::chrono::hours(24 * 366));
  EXPECT_EQ(woke, std::chrono::hours(24 * 365));
}

TEST(RuntimeTest, PausedProcessRunsNothingUntilThePauseEnds) {
  VirtualWorld w({});
  int a = w.AddProcess("A");
  int b = w.AddProcess("B");
  std::vector<std::pair<std::string, Nanos>> log;
  w.At(milliseconds(5), w.nemesis(), [&] { w.Pause(a, milliseconds(100)); });
  w.At(milliseconds(10), a, [&] { log.push_back({"a1", w.Now()}); });
  w.At(milliseconds(20), b, [&] { log.push_back({"b", w.Now()}); });
  w.At(milliseconds(30), a, [&] { log.push_back({"a2", w.Now()}); });
  w.Spawn(b, milliseconds(200), Noop());
  w.Run(seconds(1));
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[0], (std::pair<std::string, Nanos>{"b", milliseconds(20)}));
  // Both of A's events wait for the pause and keep their order.
  EXPECT_EQ(log[1], (std::pair<std::string, Nanos>{"a1", milliseconds(100)}));
  EXPECT_EQ(log[2], (std::pair<std::string, Nanos>{"a2", milliseconds(100)}));
}

TEST(RuntimeTest, ClientClockFollowsOffsetAndDrift) {
  VirtualWorld w({});
  int p = w.AddProcess("A");
  w.SetClock(p, ProcessClock{seconds(3), 1000});  // +3s, runs 0.1% fast
  ProcessEnv env(&w, p);
  Nanos seen{0};
  w.Spawn(p, seconds(10), ReadClock(&env, &seen));
  w.Run(seconds(20));
  EXPECT_EQ(seen, kVirtualEpoch + seconds(10) + seconds(3) + milliseconds(10));
}

TEST(RuntimeTest, CommandsReachTheVirtualNodeAndRepliesComeBack) {
  VirtualWorld w({.seed = 7, .nodes = 1, .latency_min = milliseconds(1),
                  .latency_max = milliseconds(1)});
  int p = w.AddProcess("A");
  ProcessEnv env(&w, p);
  std::vector<Reply> replies;
  Nanos done_at{0};
  w.Spawn(p, Nanos(0), SetThenGet(&env, &w, &replies, &done_at));
  w.Run(seconds(1));
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_TRUE(replies[0].IsOk());
  EXPECT_EQ(replies[1], Reply::String("v"));
  EXPECT_EQ(done_at, milliseconds(4));  // two round trips of 2 x 1ms
  // Both commands and both replies are in the history.
  int redis_ops = 0;
  for (const Op& op : w.history().ops()) redis_ops += op.f == OpF::kRedis;
  EXPECT_EQ(redis_ops, 4);
}

TEST(RuntimeDeathTest, SchedulingInThePastAbortsWithTheReplayCommand) {
  EXPECT_DEATH(
      {
        VirtualWorld w({.seed = 99});
        w.SetReplayHint("locksim run x.json --seed 99");
        int p = w.AddProcess("A");
        w.At(milliseconds(10), p, [&] { w.At(milliseconds(5), p, [] {}); });
        w.Spawn(p, milliseconds(20), Noop());
        w.Run(seconds(1));
      },
      "invariant broken.*\n.*seed: 99\n.*replay: locksim run x.json --seed 99");
}

}  // namespace
}  // namespace locksim
