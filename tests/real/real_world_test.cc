// The real world's clock: a run's time starts when its set-up has ended,
// not when its servers were started. And its waiting: what a state is put
// down to when its event is read late, and a long wait spent asleep.
#include <time.h>

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "sim/core/time.h"
#include "sim/run/make_world.h"
#include "sim/world/process_env.h"
#include "sim/world/world.h"

namespace locksim {
namespace {

using namespace std::chrono_literals;

// Keeps the server busy for ARGV[1] microseconds: nothing else it is sent
// is answered meanwhile.
constexpr char kSpin[] =
    "local function us() local t = redis.call('TIME') return t[1] * 1000000 + t[2] end "
    "local start = us() while us() - start < tonumber(ARGV[1]) do end return 1";

// A connection of the test's own to node 0, where client `process` reaches
// it; null when it cannot be made.
using Connection = std::unique_ptr<redisContext, decltype(&redisFree)>;
Connection ConnectTo(World& world, int process) {
  const AdapterHost::Address node = world.adapter_host()->NodeAddress(process, 0);
  return Connection(redisConnect(node.host.c_str(), node.port), &redisFree);
}

// The harness waits for its keyspace subscriptions before a run starts
// (RealWorld::AwaitObservers). With redis0 busy for a second, that wait
// takes about as long; an event the run schedules at 1 ms must still come
// at about 1 ms, as it would on an idle machine. When the clock started with the
// servers, it came after the wait (a second), and every fault scheduled
// within it came due at once with the clients' first commands: on a busy
// machine, f09's clock jump (then at 500 ms of real time) could reach
// redis0 before A's SET at 5 ms, and the run came out safe.
TEST(RealWorldClock, TheRunsClockStartsWhenItsSetUpHasEnded) {
  std::unique_ptr<World> world = MakeWorld(Backend::kReal, WorldOptions{});
  const int a = world->AddProcess("A");
  const Connection busy = ConnectTo(*world, a);
  ASSERT_TRUE(busy != nullptr && busy->err == 0);
  ASSERT_EQ(redisAppendCommand(busy.get(), "EVAL %s 0 %d", kSpin, 1'000'000), REDIS_OK);
  for (int done = 0; done == 0;) ASSERT_EQ(redisBufferWrite(busy.get(), &done), REDIS_OK);
  std::this_thread::sleep_for(100ms);  // for the script to reach redis0 and start

  world->WatchKeys({"lock"});
  Nanos came{-1};
  world->At(1ms, a, [&] { came = world->Now(); });
  world->Run(1500ms, /*until_deadline=*/true);
  EXPECT_GE(came, Nanos{1ms}) << "the event scheduled at 1 ms did not come";
  EXPECT_LT(came, Nanos{400ms}) << "it came at " << MillisText(came) << " ms";
}

// A's SETNX, then the harness's thread held up for `stall` before it reads
// on. A megabyte published on the key's state channel first (not a state:
// the harness skips it) takes the harness many turns of its loop to read,
// so the keyspace event of A's SETNX, queued behind it, is read after the
// stall, long after A's answer: as when a loaded machine's scheduler holds
// the harness between the two.
Task<void> SetnxThenStall(ProcessEnv* env, Nanos stall) {
  Command setnx = {"SETNX", "lock", "1700000000"};
  const Reply r = co_await env->Call(0, std::move(setnx));
  EXPECT_TRUE(r.IsInteger(1));
  std::this_thread::sleep_for(stall);
}

// The key's new value is put down to A, whose SETNX wrote it, even when its
// event is read long after A's answer: not to nobody (a foreign write, and
// a false violation). A `make test` run on a loaded machine once put a
// getset-timestamp acquirer's value down to nobody.
TEST(RealWorldStates, AValueReadLongAfterItsWritersAnswerIsStillPutDownToIt) {
  std::unique_ptr<World> world = MakeWorld(Backend::kReal, WorldOptions{});
  const int a = world->AddProcess("A");
  const Connection other = ConnectTo(*world, a);
  ASSERT_TRUE(other != nullptr && other->err == 0);
  ProcessEnv env(world.get(), a);
  world->WatchKeys({"lock"});
  const std::string junk(1 << 20, 'x');
  world->At(Nanos{0}, a, [&] {
    std::unique_ptr<redisReply, decltype(&freeReplyObject)> r(
        static_cast<redisReply*>(redisCommand(other.get(), "PUBLISH __locksim_state__:lock %b",
                                              junk.data(), junk.size())),
        &freeReplyObject);
    ASSERT_TRUE(r != nullptr && r->type == REDIS_REPLY_INTEGER && r->integer == 1);
  });
  world->Spawn(a, 1ms, SetnxThenStall(&env, 50ms));
  world->Run(300ms, /*until_deadline=*/true);
  int present = 0;
  for (const Op& op : world->history().ops()) {
    if (op.f != OpF::kState || !world->history().state(op).present) continue;
    ++present;
    EXPECT_EQ(op.subject, world->MainActor(a))
        << "put down to " << (op.subject >= 0 ? world->history().name(op.subject) : "nobody");
  }
  EXPECT_EQ(present, 1);
}

Task<void> GetAndNoteWhen(ProcessEnv* env, World* world, Nanos* answered) {
  Command get = {"GET", "lock"};
  co_await env->Call(0, std::move(get));
  *answered = world->Now();
}

double ThreadCpuSeconds() {
  timespec ts{};
  EXPECT_EQ(clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts), 0);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Sends redis0, on `busy`, a script that keeps it busy for `micros`, and
// returns once the command is written.
void HoldBusy(redisContext* busy, int micros) {
  ASSERT_EQ(redisAppendCommand(busy, "EVAL %s 0 %d", kSpin, micros), REDIS_OK);
  for (int done = 0; done == 0;) ASSERT_EQ(redisBufferWrite(busy, &done), REDIS_OK);
}

// A run of 2 s in which redis0 is busy for its first second and env's
// GET, sent at 100 ms, waits behind it: the CPU seconds the harness's
// thread spent on the run.
double CpuOfARunThatWaitsASecond(World* world, ProcessEnv* env, redisContext* busy) {
  Nanos answered{-1};
  world->At(Nanos{0}, env->process(), [&] { HoldBusy(busy, 1'000'000); });
  world->Spawn(env->process(), 100ms, GetAndNoteWhen(env, world, &answered));
  const double cpu_before = ThreadCpuSeconds();
  world->Run(2s, /*until_deadline=*/true);
  const double cpu = ThreadCpuSeconds() - cpu_before;
  EXPECT_GE(answered, Nanos{500ms}) << "GET was answered at " << MillisText(answered)
                                    << " ms, before the script let it run";
  return cpu;
}

// The harness polls for a due reply without sleeping only shortly after it
// sent a command (WorldOptions::reply_spin), then sleeps in ppoll(): a reply
// that takes a second (redis0 busy with a script) costs the harness's
// thread a sliver of that second's CPU, not all of it.
TEST(RealWorldWait, AReplyThatTakesASecondIsWaitedForAsleep) {
  std::unique_ptr<World> world = MakeWorld(Backend::kReal, WorldOptions{});
  const int a = world->AddProcess("A");
  const Connection busy = ConnectTo(*world, a);
  ASSERT_TRUE(busy != nullptr && busy->err == 0);
  ProcessEnv env(world.get(), a);
  const double cpu = CpuOfARunThatWaitsASecond(world.get(), &env, busy.get());
  EXPECT_LT(cpu, 0.25) << "the harness's thread spent " << cpu
                       << " s of CPU in a run of 2 s that mostly waited";
}

}  // namespace
}  // namespace locksim
