// EnvWrapper (sim/core/env.h): it forwards every call to its target, so a
// recording or faulty Env for a test is a few lines that override one
// method.
#include "sim/core/env.h"

#include <gtest/gtest.h>

#include "sim/world/process_env.h"
#include "sim/world/virtual_world.h"

namespace locksim {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// A faulty Env: node 0 is unreachable, whatever the world says; the
// command never leaves the client.
class UnreachableEnv : public EnvWrapper {
 public:
  using EnvWrapper::EnvWrapper;
  using EnvWrapper::Call;
  Task<Reply> Call(int node, Command cmd, Nanos timeout) override {
    if (node != 0) co_return co_await target()->Call(node, std::move(cmd), timeout);
    co_return Reply::Error("ERR connection refused");
  }
};

// Call's result is awaited in the expression that makes it, or not at all:
// one kept in a variable would point at a command that is gone.
template <class T>
concept AwaitableAsKept = requires(T& kept) { kept.operator co_await(); };
static_assert(!AwaitableAsKept<Env::Calling>);
static_assert(requires(Env::Calling&& made) { std::move(made).operator co_await(); });

Task<void> SleepThenSet(Env* env, Nanos* woke, Reply* reply) {
  co_await env->SleepFor(milliseconds(5));
  *woke = env->Now();
  Command set = {"SET", "k", "v"};
  *reply = co_await env->Call(0, std::move(set));
}

TEST(EnvWrapperTest, ForwardsEveryCallToItsTarget) {
  VirtualWorld w({.seed = 3, .nodes = 2});
  const int p = w.AddProcess("A");
  ProcessEnv target(&w, p);
  EnvWrapper env(&target);
  EXPECT_EQ(env.target(), &target);
  EXPECT_EQ(env.NodeCount(), 2);
  EXPECT_EQ(env.Now(), target.Now());
  EXPECT_EQ(env.ThreadId(), 1);
  {
    // The same seed and process, unwrapped: the same draw.
    VirtualWorld same({.seed = 3, .nodes = 2});
    ProcessEnv direct(&same, same.AddProcess("A"));
    EXPECT_EQ(env.Random(), direct.Random());
  }
  Nanos woke{0};
  Reply reply;
  w.Spawn(p, Nanos(0), SleepThenSet(&env, &woke, &reply));
  w.Run(seconds(1));
  EXPECT_EQ(woke, kVirtualEpoch + milliseconds(5));
  EXPECT_TRUE(reply.IsOk()) << reply.ToString();
  // The target recorded the command and its reply, as for any client.
  ASSERT_EQ(w.history().size(), 2u);
  EXPECT_EQ(w.history().ops()[0].f, OpF::kRedis);
  EXPECT_EQ(w.history().ops()[1].type, OpType::kOk);
}

TEST(EnvWrapperTest, AFaultyEnvOverridesOneMethodAndKeepsTheRest) {
  VirtualWorld w({});
  const int p = w.AddProcess("A");
  ProcessEnv target(&w, p);
  UnreachableEnv env(&target);
  Nanos woke{0};
  Reply reply;
  w.Spawn(p, Nanos(0), SleepThenSet(&env, &woke, &reply));
  w.Run(seconds(1));
  EXPECT_EQ(woke, kVirtualEpoch + milliseconds(5));  // SleepFor went to the world
  EXPECT_EQ(reply, Reply::Error("ERR connection refused"));
  EXPECT_EQ(w.history().size(), 0u) << "the command never reached the world";
}

Task<void> SendShared(Env* env, SharedCommand cmd, Reply* reply) {
  *reply = co_await env->Call(0, cmd);
}

// A wrapper that overrides Call sees shared commands too (a retry loop's):
// they reach it as a copy.
TEST(EnvWrapperTest, AFaultyEnvSeesSharedCommandsToo) {
  VirtualWorld w({});
  const int p = w.AddProcess("A");
  ProcessEnv target(&w, p);
  UnreachableEnv env(&target);
  Reply reply;
  w.Spawn(p, Nanos(0),
          SendShared(&env, Share({"SET", "k", "v"}), &reply));
  w.Run(seconds(1));
  EXPECT_EQ(reply, Reply::Error("ERR connection refused"));
  EXPECT_EQ(w.history().size(), 0u) << "the command never reached the world";
}

}  // namespace
}  // namespace locksim
