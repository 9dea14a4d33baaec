// redlock on N virtual masters: contention without faults is safe in both
// modes, and the validity check turns a slow majority into a failure that
// unlocks every node.
#include "lockimpls/redlock/redlock.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <string>
#include <vector>

#include "sim/world/process_env.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "sim/world/virtual_world.h"
#include "sim/core/when_all.h"

namespace locksim {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Three clients on five masters, as variants_test's contention scenario.
std::string Contention(bool parallel) {
  return std::string(R"({
  "duration": "5m",
  "algorithm": "redlock",
  "nodes": 5,
  "lock": {"ttl": "5s", "retry_delay": "10ms", "acquire_timeout": "2m", "tries": 100000,
           "parallel": )") +
         (parallel ? "true" : "false") + R"(},
  "clients": [
    {"name": "A", "hold": "50ms", "think": "20ms", "iterations": 5},
    {"name": "B", "start": "5ms", "hold": "50ms", "think": "20ms", "iterations": 5},
    {"name": "C", "start": "10ms", "hold": "50ms", "think": "20ms", "iterations": 5}
  ]
})";
}

TEST(RedlockTest, FiveNodesWithoutFaultsAreSafeInParallelAndSequentialModes) {
  for (bool parallel : {true, false}) {
    RunResult r = RunScenario(ParseScenario(Contention(parallel), "redlock.json"), RunOptions{});
    EXPECT_EQ(r.verdict(), Verdict::kSafe) << parallel;
    EXPECT_EQ(r.acquisitions, 15) << parallel;
    EXPECT_EQ(r.failed_acquisitions, 0) << parallel;
    // Every try sends one SET per node, every release one EVAL per node.
    EXPECT_GE(r.redis_commands, 15 * 2 * 5) << parallel;
  }
}

TEST(RedlockTest, ResolvedDefaultsAreRedlockRbs) {
  const AlgorithmInfo* a = FindAlgorithm("redlock");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(DescribeConfig(a->defaults),
            "ttl=10s retry_delay=200ms acquire_timeout=10s tries=4 drift_factor_ppm=10000 "
            "parallel=true node_timeout=50ms");
  EXPECT_EQ(RedlockLock::Drift(a->defaults), milliseconds(102));  // 10s * 0.01 + 2ms
}

// An Env that records every reply a lock receives, per node.
class RecordingEnv : public EnvWrapper {
 public:
  using EnvWrapper::EnvWrapper;
  using EnvWrapper::Call;
  Task<Reply> Call(int node, Command cmd, Nanos timeout) override {
    std::string name = cmd[0];
    Reply r = co_await target()->Call(node, std::move(cmd), timeout);
    log.push_back(name + "@" + std::to_string(node) + " -> " + r.ToString());
    co_return r;
  }

  std::vector<std::string> log;
};

Task<void> AcquireThenLook(Lock* lock, RecordingEnv* env, bool* acquired, int* keys_left) {
  *acquired = co_await lock->Acquire(*env);
  const Command exists = {"EXISTS", "lock:resource"};
  // On all nodes at once: one more round trip, so the keys have not expired.
  std::vector<Task<Reply>> calls;
  for (int node = 0; node < env->NodeCount(); ++node) calls.push_back(env->Call(node, Command(exists), Nanos{0}));
  std::vector<Reply> replies = co_await WhenAll(std::move(calls));
  *keys_left = 0;
  for (const Reply& r : replies) *keys_left += r.IsInteger(1) ? 1 : 0;
}

struct Outcome {
  bool acquired = false;
  int keys_left = -1;
  std::vector<std::string> log;
};

// One try on five nodes with a 1s lease (drift 12ms) and a fixed latency.
Outcome OneTry(Nanos one_way) {
  WorldOptions o;
  o.nodes = 5;
  o.latency_min = o.latency_max = one_way;
  VirtualWorld w(o);
  const int p = w.AddProcess("A");
  ProcessEnv process(&w, p);
  RecordingEnv env(&process);
  LockConfig config = FindAlgorithm("redlock")->defaults;
  config.ttl = seconds(1);
  config.tries = 1;
  // Slow links, not dead ones: the requests wait for their replies.
  config.node_timeout = seconds(2);
  RedlockLock lock(env, config);
  Outcome out;
  w.Spawn(p, Nanos(0), AcquireThenLook(&lock, &env, &out.acquired, &out.keys_left));
  w.Run(seconds(10));
  out.log = env.log;
  return out;
}

TEST(RedlockTest, ValidityCheckFailsASlowMajorityAndUnlocksEveryNode) {
  // 2 x 480ms: validity = 1000 - 960 - 12 = 28ms > 0, the lock is held.
  Outcome fast = OneTry(milliseconds(480));
  EXPECT_TRUE(fast.acquired);
  EXPECT_EQ(fast.keys_left, 5);
  // 2 x 495ms: every SET succeeded, but validity = 1000 - 990 - 12 = -2ms.
  Outcome slow = OneTry(milliseconds(495));
  EXPECT_FALSE(slow.acquired);
  EXPECT_EQ(slow.keys_left, 0);
  // All five SETs said OK; the compare-and-delete then removed all five
  // keys before they could expire (at 495ms + 1s; the EVALs run at 1485ms),
  // so the unlock, not the TTL, freed them.
  std::vector<std::string> expected;
  for (int node = 0; node < 5; ++node) expected.push_back("SET@" + std::to_string(node) + " -> OK");
  for (int node = 0; node < 5; ++node) expected.push_back("EVAL@" + std::to_string(node) + " -> (integer) 1");
  ASSERT_GE(slow.log.size(), 10u);
  EXPECT_EQ(std::vector<std::string>(slow.log.begin(), slow.log.begin() + 10), expected);
}

// The distlock text's request timeout: a node that does not answer within
// a hundredth of the lease (10 ms for 1 s here) counts as one that refused;
// the others decide, and the try does not wait for the slow node.
TEST(RedlockTest, ANodeThatDoesNotAnswerCountsAsOneThatRefused) {
  LockConfig config = FindAlgorithm("redlock")->defaults;
  config.ttl = seconds(1);
  EXPECT_EQ(RedlockLock::NodeTimeout(config), milliseconds(10));
  config.ttl = seconds(30);
  EXPECT_EQ(RedlockLock::NodeTimeout(config), milliseconds(50));
  config.ttl = milliseconds(100);
  EXPECT_EQ(RedlockLock::NodeTimeout(config), milliseconds(5));
  config.node_timeout = milliseconds(7);
  EXPECT_EQ(RedlockLock::NodeTimeout(config), milliseconds(7));

  // Five nodes, the links to two of them cut: three answers are a majority,
  // and the try ends about 10 ms in, not when the links heal.
  WorldOptions o;
  o.nodes = 5;
  VirtualWorld w(o);
  const int p = w.AddProcess("A");
  for (int node : {3, 4}) w.SetPartitioned(p, w.node_process(w.MasterOf(node)), true);
  ProcessEnv process(&w, p);
  RecordingEnv env(&process);
  LockConfig c = FindAlgorithm("redlock")->defaults;
  c.ttl = seconds(1);
  c.tries = 1;
  RedlockLock lock(env, c);
  bool acquired = false;
  Nanos took{0};
  auto run = [](RedlockLock* lock, Env* env, bool* acquired, Nanos* took) -> Task<void> {
    const Nanos start = env->Now();
    *acquired = co_await lock->Acquire(*env);
    *took = env->Now() - start;
  };
  w.Spawn(p, Nanos(0), run(&lock, &env, &acquired, &took));
  w.Run(seconds(10));
  EXPECT_TRUE(acquired);
  EXPECT_GE(took, milliseconds(10));
  EXPECT_LT(took, milliseconds(12));
  EXPECT_EQ(std::count_if(env.log.begin(), env.log.end(),
                          [](const std::string& l) { return l.find("request timeout (10ms)") != std::string::npos; }),
            2);
}

TEST(RedlockTest, AMinorityIsNotALock) {
  // Three of five nodes already hold someone else's key: two OKs are no
  // majority, so the try fails and its unlock removes only its own two keys.
  WorldOptions o;
  o.nodes = 5;
  VirtualWorld w(o);
  for (int node : {0, 1, 2}) {
    w.node(w.MasterOf(node)).Execute(Command{"SET", "lock:resource", "other"}, 0);
  }
  const int p = w.AddProcess("A");
  ProcessEnv process(&w, p);
  RecordingEnv env(&process);
  LockConfig config = FindAlgorithm("redlock")->defaults;
  config.tries = 1;
  RedlockLock lock(env, config);
  bool acquired = true;
  int keys_left = -1;
  w.Spawn(p, Nanos(0), AcquireThenLook(&lock, &env, &acquired, &keys_left));
  w.Run(seconds(10));
  EXPECT_FALSE(acquired);
  EXPECT_EQ(keys_left, 3);  // the other owner's three keys, untouched
}

// Issue 18: clients cut off from a minority of the nodes, with no
// network.timeout, still acquire on the majority: Redlock's own per-node
// request timeout gives up on the silent node, as the algorithm says. (Before
// it, every acquisition waited for ever on redis0: "SAFE, 0 acquisitions".)
TEST(RedlockTest, ACutToAMinorityOfNodesStillAcquiresOnTheMajority) {
  const Scenario s = ParseScenario(R"({
    "name": "redlock-minority-cut", "algorithm": "redlock", "duration": "20s", "nodes": 3,
    "lock": {"ttl": "2s", "retry_delay": "100ms", "acquire_timeout": "5s"},
    "clients": [{"name": "A", "hold": "200ms", "iterations": 3},
                {"name": "B", "start": "50ms", "hold": "200ms", "iterations": 3}],
    "faults": [{"type": "partition", "between": [["A", "B"], ["redis0"]], "at": "0s",
                "duration": "1m"}]})",
                                   "cut.json");
  ASSERT_EQ(s.network.timeout, Nanos{0});  // no socket timeout
  const RunResult r = RunScenario(s, RunOptions{});
  EXPECT_EQ(r.verdict(), Verdict::kSafe);
  EXPECT_GE(r.acquisitions, 3);
}

}  // namespace
}  // namespace locksim
