#include "sim/world/runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "sim/world/process_env.h"
#include "sim/core/random.h"
#include "sim/core/signal.h"
#include "sim/world/virtual_world.h"
#include "sim/core/when_all.h"

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

// The queue is a sorted vector while it holds a few events and a heap once
// it holds more than 128 (Runtime::queue_): events scheduled out of order,
// with ties, come out in time order and ties first come first, below the
// switch (with the spawned task's, 128 pending), across it, and while the
// events run and schedule more.
TEST(RuntimeTest, ManyEventsRunInTimeOrderWhateverTheQueuesShape) {
  for (const int count : {5, 127, 128, 400}) {
    VirtualWorld w({});
    const int p = w.AddProcess("A");
    Random random(static_cast<uint64_t>(count));
    std::vector<std::pair<int64_t, int>> want;  // (ms, the order scheduled)
    std::vector<std::pair<int64_t, int>> ran;
    for (int i = 0; i < count; ++i) {
      const int64_t ms = 1 + static_cast<int64_t>(random.Uniform(20));  // ties
      want.emplace_back(ms, i);
      w.At(milliseconds(ms), p, [&ran, ms, i, &w, p] {
        ran.emplace_back(ms, i);
        // Half of them schedule one more, later, while the rest wait.
        if (i % 2 == 0) {
          w.At(milliseconds(ms + 30), p, [&ran, ms, i] { ran.emplace_back(ms + 30, 1000 + i); });
        }
      });
    }
    for (int i = 0; i < count; i += 2) want.emplace_back(want[i].first + 30, 1000 + i);
    std::stable_sort(want.begin(), want.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    w.Spawn(p, milliseconds(100), Noop());
    w.Run(seconds(1));
    EXPECT_EQ(ran, want) << count << " events";
  }
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

TEST(RuntimeTest, EventsDeferredByAPauseRunBeforeThoseDueWhenItEnds) {
  VirtualWorld w({});
  const int a = w.AddProcess("A");
  std::vector<std::string> log;
  w.At(milliseconds(20), a, [&] { log.push_back("due at the end"); });  // scheduled first
  w.At(milliseconds(5), a, [&] { log.push_back("due during"); });
  w.At(milliseconds(1), w.nemesis(), [&] { w.Pause(a, milliseconds(20)); });
  w.Spawn(a, milliseconds(30), Noop());
  w.Run(seconds(1));
  EXPECT_EQ(log, (std::vector<std::string>{"due during", "due at the end"}));
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

TEST(RuntimeTest, ChangingDriftMidRunDoesNotMakeTheClockJump) {
  VirtualWorld w({});
  int p = w.AddProcess("A");
  w.SetClock(p, ProcessClock{Nanos(0), 100});  // 100 ppm fast from t=0
  Nanos before{0}, after{0};
  w.At(std::chrono::hours(1), w.nemesis(), [&] {
    before = w.LocalNow(p);
    w.SetClock(p, ProcessClock{Nanos(0), 0});  // drift stops
    after = w.LocalNow(p);
  });
  Nanos later{0};
  w.At(std::chrono::hours(2), w.nemesis(), [&] { later = w.LocalNow(p); });
  w.Spawn(p, std::chrono::hours(3), Noop());
  w.Run(std::chrono::hours(4));
  EXPECT_EQ(before, after);
  EXPECT_EQ(before, kVirtualEpoch + std::chrono::hours(1) + milliseconds(360));
  EXPECT_EQ(later, kVirtualEpoch + std::chrono::hours(2) + milliseconds(360));
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
  // The GET was copied into the served SET (CopyToSend) and still went as
  // two arguments ("v" above); the world hands back what it serves.
  EXPECT_FALSE(w.TakeServedCommand().empty());
}

// A command the lock code keeps (and sends again) is copied into the
// buffers of one the virtual world has served and handed back.
TEST(RuntimeTest, ACommandCopiedToSendReusesTheBuffersOfAServedOne) {
  VirtualWorld w({.seed = 7, .nodes = 1});
  ProcessEnv env(&w, w.AddProcess("A"));
  const std::string long_token(40, 't');
  w.GiveBackCommand({"SET", long_token, "v", "NX", "PX", "5000"});
  const Command copy = env.CopyToSend({"GET", std::string(30, 'k')});
  EXPECT_EQ(copy, (Command{"GET", std::string(30, 'k')}));
  EXPECT_GE(copy[1].capacity(), long_token.size()) << "the copy went into the served buffers";
  EXPECT_TRUE(w.TakeServedCommand().empty());
  // With nothing handed back, a copy is a plain copy.
  EXPECT_EQ(env.CopyToSend({"PING"}), (Command{"PING"}));
}

// Sends `cmd` three times, with a plain command between the second and the
// third, and keeps the replies.
Task<void> SendSharedThrice(ProcessEnv* env, SharedCommand cmd, std::vector<Reply>* replies) {
  replies->push_back(co_await env->Call(0, cmd));
  replies->push_back(co_await env->Call(0, cmd));
  Command del = {"DEL", "k"};
  replies->push_back(co_await env->Call(0, std::move(del)));
  replies->push_back(co_await env->Call(0, cmd));
}

// A command the lock builds once and sends again and again (a retry's SET
// NX) is served where it is, and recorded as any other: each send is an
// invoke with the command's arguments, in order, whatever came between.
TEST(RuntimeTest, ASharedCommandIsServedAsItIsAndRecordedAtEverySend) {
  VirtualWorld w({.seed = 7, .nodes = 1});
  const int p = w.AddProcess("A");
  ProcessEnv env(&w, p);
  const SharedCommand set = Share({"SET", "k", "v", "NX"});
  std::vector<Reply> replies;
  w.Spawn(p, Nanos(0), SendSharedThrice(&env, set, &replies));
  w.Run(seconds(1));
  ASSERT_EQ(replies.size(), 4u);
  EXPECT_TRUE(replies[0].IsOk());
  EXPECT_EQ(replies[1], Reply::Nil()) << "the key was set by the first";
  EXPECT_EQ(replies[2], Reply::Integer(1));
  EXPECT_TRUE(replies[3].IsOk()) << "DEL freed the key for the third";
  std::vector<std::string> sent;
  for (const Op& op : w.history().ops()) {
    if (op.f == OpF::kRedis && op.type == OpType::kInvoke) {
      sent.push_back(w.history().ValueText(op));
    }
  }
  const std::string set_text = w.history().ValueText(w.history().ops()[0]);
  EXPECT_EQ(sent, (std::vector<std::string>{set_text, set_text, sent[2], set_text}));
  EXPECT_NE(sent[2], set_text);
  EXPECT_EQ(*set, (Command{"SET", "k", "v", "NX"})) << "the sender's command is unchanged";
  // Of the four served, only the DEL came back for the next copy: a shared
  // command stays the sender's.
  EXPECT_EQ(w.TakeServedCommand().size(), 2u);
  EXPECT_TRUE(w.TakeServedCommand().empty());
}

Task<void> SleepLog(ProcessEnv* env, Runtime* w, Nanos d, std::vector<Nanos>* woke) {
  co_await env->SleepFor(d);
  woke->push_back(w->Now());
}

TEST(RuntimeTest, APauseStopsEveryThreadOfTheProcess) {
  VirtualWorld w({});
  const int p = w.AddProcess("A");
  ProcessEnv t1(&w, p, w.AddThread(p, "A.1"), 1);
  ProcessEnv t2(&w, p, w.AddThread(p, "A.2"), w.NextThreadId(p));
  std::vector<Nanos> woke;
  w.Spawn(p, Nanos(0), SleepLog(&t1, &w, milliseconds(10), &woke));
  w.Spawn(p, Nanos(0), SleepLog(&t2, &w, milliseconds(20), &woke));
  w.At(milliseconds(5), w.nemesis(), [&] { w.Pause(p, milliseconds(50)); });
  w.Run(seconds(1));
  EXPECT_EQ(woke, (std::vector<Nanos>{milliseconds(50), milliseconds(50)}));
  EXPECT_EQ(t2.ThreadId(), 2);
}

Task<void> WaitAndLog(ProcessEnv* env, Runtime* w, Signal* s, Nanos timeout,
                      std::vector<std::pair<bool, Nanos>>* log) {
  const bool notified = co_await env->WaitFor(*s, timeout);
  log->push_back({notified, w->Now()});
}

TEST(RuntimeTest, WaitForReturnsOnNotifyOrTimeoutAndRespectsPauses) {
  VirtualWorld w({});
  const int a = w.AddProcess("A");
  const int b = w.AddProcess("B");
  ProcessEnv ea(&w, a), eb(&w, b);
  Signal signal;
  std::vector<std::pair<bool, Nanos>> log_a, log_b;
  w.Spawn(a, Nanos(0), WaitAndLog(&ea, &w, &signal, seconds(1), &log_a));
  w.Spawn(b, Nanos(0), WaitAndLog(&eb, &w, &signal, milliseconds(30), &log_b));
  // B times out at 30ms; A is paused from 40ms to 100ms and notified at 60ms:
  // it wakes when the pause ends.
  w.At(milliseconds(40), w.nemesis(), [&] { w.Pause(a, milliseconds(100)); });
  w.At(milliseconds(60), w.nemesis(), [&] { signal.NotifyAll(); });
  w.Run(seconds(2));
  EXPECT_EQ(log_b, (std::vector<std::pair<bool, Nanos>>{{false, milliseconds(30)}}));
  EXPECT_EQ(log_a, (std::vector<std::pair<bool, Nanos>>{{true, milliseconds(100)}}));
}

Task<void> Forever(Env* env) {
  for (;;) {
    Command ping = {"PING"};
    co_await env->Call(0, ping);
    co_await env->SleepFor(milliseconds(100));
  }
}

Task<void> StartsADaemon(ProcessEnv* env) {
  env->StartThread("watchdog", [](Env& e) { return Forever(&e); });
  co_await env->SleepFor(milliseconds(250));
}

TEST(RuntimeTest, BackgroundThreadsRecordUnderTheirNameAndDoNotKeepTheRunGoing) {
  VirtualWorld w({});
  const int p = w.AddProcess("A");
  ProcessEnv env(&w, p);
  w.Spawn(p, Nanos(0), StartsADaemon(&env));
  w.Run(std::chrono::hours(1));
  EXPECT_LT(w.Now(), seconds(1));  // the run ended with the main thread
  int pings = 0;
  for (const Op& op : w.history().ops()) {
    if (op.type == OpType::kInvoke && w.history().name(op.actor) == "A:watchdog") ++pings;
  }
  EXPECT_EQ(pings, 3);  // at 0, 100 and 200 ms
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


// One SET to each node, all at once (WhenAll) or one after another.
Task<void> SetOnEveryNode(ProcessEnv* env, Runtime* w, bool parallel, std::vector<Reply>* replies,
                          Nanos* elapsed) {
  const Nanos start = w->Now();
  const Command set = {"SET", "k", "v"};
  if (parallel) {
    std::vector<Task<Reply>> calls;
    // As Tasks (Call with its timeout, 0: none), which WhenAll takes.
    for (int node = 0; node < env->NodeCount(); ++node) {
      calls.push_back(env->Call(node, Command(set), Nanos{0}));
    }
    *replies = co_await WhenAll(std::move(calls));
  } else {
    for (int node = 0; node < env->NodeCount(); ++node) {
      replies->push_back(co_await env->Call(node, set));
    }
  }
  *elapsed = w->Now() - start;
}

TEST(RuntimeTest, WhenAllCallsToEveryNodeTakeOneRoundTrip) {
  for (bool parallel : {true, false}) {
    WorldOptions o;
    o.nodes = 5;
    o.latency_min = o.latency_max = milliseconds(1);
    VirtualWorld w(o);
    int p = w.AddProcess("A");
    ProcessEnv env(&w, p);
    std::vector<Reply> replies;
    Nanos elapsed{0};
    w.Spawn(p, Nanos(0), SetOnEveryNode(&env, &w, parallel, &replies, &elapsed));
    w.Run(seconds(1));
    ASSERT_EQ(replies.size(), 5u) << parallel;
    for (const Reply& r : replies) EXPECT_TRUE(r.IsOk()) << parallel;
    for (int node = 0; node < 5; ++node) {
      EXPECT_EQ(w.node(w.MasterOf(node)).Execute(Command{"GET", "k"}, 0), Reply::String("v"));
    }
    // 1 ms each way: one round trip in parallel, five one after another.
    EXPECT_EQ(elapsed, parallel ? milliseconds(2) : milliseconds(10)) << parallel;
  }
}

// Calls that one thread has in flight at once through Env::Call's awaiter
// (no Task of their own: each has a slot of the Env's) get their own
// replies, in any order, and the slots serve the calls after them.
Task<Reply> IncrOn(ProcessEnv* env, int node, std::string key) {
  Command incr = {"INCR", std::move(key)};
  co_return co_await env->Call(node, std::move(incr));
}

Task<void> IncrEverywhereTwice(ProcessEnv* env, std::vector<Reply>* replies) {
  for (int round = 0; round < 2; ++round) {
    std::vector<Task<Reply>> calls;
    for (int node = 0; node < env->NodeCount(); ++node) {
      calls.push_back(IncrOn(env, node, "n" + std::to_string(node)));
    }
    for (Reply& r : co_await WhenAll(std::move(calls))) replies->push_back(std::move(r));
  }
}

TEST(RuntimeTest, ACallsSlotIsItsOwnWhileOthersOfTheThreadAreInFlight) {
  WorldOptions o;
  o.nodes = 3;
  o.latency_min = milliseconds(1);
  o.latency_max = milliseconds(9);  // the replies come back in another order
  VirtualWorld w(o);
  const int p = w.AddProcess("A");
  ProcessEnv env(&w, p);
  std::vector<Reply> replies;
  w.Spawn(p, Nanos(0), IncrEverywhereTwice(&env, &replies));
  w.Run(seconds(1));
  ASSERT_EQ(replies.size(), 6u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(replies[i], Reply::Integer(1 + i / 3)) << i;
  // Each node's counter: INCR twice, on its own key.
  for (int node = 0; node < 3; ++node) {
    EXPECT_EQ(w.node(w.MasterOf(node)).Execute(Command{"GET", "n" + std::to_string(node)}, 0),
              Reply::String("2"));
  }
}


// ---- The watched key's states: when an expiry is seen ----

// The times at which the history shows a watched key gone (these worlds
// watch one key, on one node).
std::vector<Nanos> GoneAt(const VirtualWorld& w) {
  std::vector<Nanos> out;
  for (const Op& op : w.history().ops()) {
    if (op.f == OpF::kState && !w.history().state(op).present) out.push_back(op.time);
  }
  return out;
}

Task<void> SetAndDeleteOften(ProcessEnv* env, Runtime* w, int times, size_t* pending) {
  // (Commands built before the co_await: gcc 12 cannot take a braced list
  // of string literals inside one.)
  const Command del = {"DEL", "lock"};
  for (int i = 0; i < times; ++i) {
    Command set = {"SET", "lock", "t" + std::to_string(i), "PX", "5000"};
    co_await env->Call(0, std::move(set));
    co_await env->Call(0, del);
  }
  *pending = w->PendingEvents();
}

// One node, 1 ms each way, watching "lock", and client A: where a task runs
// and the history shows when the key went.
struct WatchedNode {
  explicit WatchedNode(ProcessClock node_clock = {})
      : w({.seed = 1, .nodes = 1, .latency_min = milliseconds(1),
           .latency_max = milliseconds(1)}),
        p(w.AddProcess("A")),
        env(&w, p) {
    w.WatchKeys({"lock"});
    w.SetClock(w.node_process(0), node_clock);
  }
  // Runs `task` as A's for 3 s of true time; when the key was seen gone.
  std::vector<Nanos> GoneAtAfter(Task<void> task) {
    w.Spawn(p, Nanos(0), std::move(task));
    w.Run(seconds(3), /*until_deadline=*/true);
    return GoneAt(w);
  }

  VirtualWorld w;
  int p;
  ProcessEnv env;
};

TEST(RuntimeTest, AKeySetAThousandTimesLeavesOneExpiryLookInTheQueue) {
  // Each SET ... PX 5000 is a state with an expiry five seconds on; the world
  // looks at the key then. One look per key does for all of them: a look per
  // state would leave a thousand events queued (the queue of a lock run grew
  // with its acquisition rate times the TTL).
  WatchedNode n;
  size_t pending = 0;
  n.w.Spawn(n.p, Nanos(0), SetAndDeleteOften(&n.env, &n.w, 1000, &pending));
  n.w.Run(seconds(60));
  // Every event still queued counts, not only looks: the one look, and at
  // most a tick of the node's cron (1 in all, as written; 1000 when each
  // SET left its own look behind).
  EXPECT_LE(pending, 2u);
  // Every SET and every DEL is a state; the last DEL is the last one.
  EXPECT_EQ(GoneAt(n.w).size(), 1000u);
}

Task<void> SetThenCall(ProcessEnv* env, Command first, Nanos wait, Command second) {
  co_await env->Call(0, std::move(first));
  co_await env->SleepFor(wait);
  co_await env->Call(0, std::move(second));
}

Task<void> SetThenSetNodeClockBack(ProcessEnv* env, VirtualWorld* w, Nanos wait, Nanos back) {
  Command set = {"SET", "lock", "a", "PX", "100"};
  co_await env->Call(0, std::move(set));
  co_await env->SleepFor(wait);
  const int node = w->node_process(0);
  w->SetClock(node, ProcessClock{-back, 0});
  w->NodeClockChanged(0);
}

TEST(RuntimeTest, AnExpiryIsSeenWhenTheNodeClockReachesIt) {
  // 1 ms each way: the SET runs on the node at true time 1 ms, with the
  // node clock at the epoch + 1 ms, so the key expires at node time 101 ms
  // and is seen gone once the node's clock reads 102 ms.
  const Command set = {"SET", "lock", "a", "PX", "100"};
  {
    // Unchanged: at 102 ms.
    WatchedNode n;
    EXPECT_EQ(n.GoneAtAfter(SetThenCall(&n.env, set, milliseconds(500), {"GET", "other"})),
              std::vector<Nanos>{milliseconds(102)});
  }
  {
    // Extended at 50 ms (true time 51 ms on the node) to 300 ms from then:
    // the look planned for 102 ms finds the key still there and looks again
    // at the new expiry, 351 ms + 1 ms.
    WatchedNode n;
    EXPECT_EQ(n.GoneAtAfter(SetThenCall(&n.env, set, milliseconds(48), {"PEXPIRE", "lock", "300"})),
              std::vector<Nanos>{milliseconds(352)});
  }
  {
    // The node's clock set back by a second at 50 ms: the key now expires
    // at true time 1102 ms, and no command comes to show it. The look
    // planned for 102 ms finds the key there and looks again then.
    WatchedNode n;
    EXPECT_EQ(n.GoneAtAfter(SetThenSetNodeClockBack(&n.env, &n.w, milliseconds(48), seconds(1))),
              std::vector<Nanos>{milliseconds(1102)});
  }
  {
    // Set forward by 30 ms at 50 ms: the node's clock reads 80 ms then, and
    // 102 ms at true time 72 ms. The look planned for 102 ms is moved there.
    WatchedNode n;
    EXPECT_EQ(n.GoneAtAfter(
                  SetThenSetNodeClockBack(&n.env, &n.w, milliseconds(48), -milliseconds(30))),
              std::vector<Nanos>{milliseconds(72)});
  }
  {
    // A node clock 10% fast from the start: the SET runs at true 1 ms (the
    // node reads 1.1 ms, so the key expires at node time 101 ms), and the
    // node reads 102 ms at true 102/1.1 ms = 92 727 272.7 ns.
    WatchedNode n(ProcessClock{Nanos(0), 100'000});
    EXPECT_EQ(n.GoneAtAfter(SetThenCall(&n.env, set, milliseconds(500), {"GET", "other"})),
              std::vector<Nanos>{Nanos(92'727'273)});
  }
}

}  // namespace
}  // namespace locksim
