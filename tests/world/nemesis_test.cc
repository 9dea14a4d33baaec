// The nemesis on a small virtual world: faults at a time and on a client's
// events, what each records in the history, and triggers that never fire.
#include "sim/world/nemesis.h"

#include <gtest/gtest.h>

#include "sim/core/errors.h"
#include "sim/world/process_env.h"
#include "sim/world/virtual_world.h"

namespace locksim {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// One node, one client A that sends GET k three times, 1 s apart, and
// records when each reply came back.
class NemesisTest : public ::testing::Test {
 protected:
  NemesisTest() : world_(WorldOptions{}), a_(world_.AddProcess("A")), env_(&world_, a_) {}

  static Task<void> Client(ProcessEnv* env, Runtime* w, std::vector<Nanos>* replies) {
    for (int i = 0; i < 3; ++i) {
      co_await env->SleepFor(seconds(1));
      const Command get = {"GET", "k"};
      co_await env->Call(0, get);
      replies->push_back(w->Now());
    }
  }

  Nemesis::Hooks Hooks() {
    Nemesis::Hooks hooks;
    hooks.process_of = [this](const std::string& name) {
      if (name == "A") return a_;
      for (int i = 0; i < world_.PhysicalNodeCount(); ++i) {
        if (world_.NodeName(i) == name) return world_.node_process(i);
      }
      return -1;
    };
    hooks.restart_client = [this](const std::string&) { ++restarts_; };
    hooks.lock_key = "k";
    return hooks;
  }

  // Runs A under `faults` until 10 s (on past A's end: a restart may come).
  std::unique_ptr<Nemesis> Run(std::vector<FaultSpec> faults) {
    auto nemesis = std::make_unique<Nemesis>(world_, std::move(faults), Hooks());
    world_.Spawn(a_, Nanos{0}, Client(&env_, &world_, &replies_));
    nemesis->Start();
    world_.Run(seconds(10), /*until_deadline=*/true);
    return nemesis;
  }

  // The nemesis's ops, as "f: description (subject)".
  std::vector<std::string> Faults() const {
    std::vector<std::string> out;
    const History& h = world_.history();
    for (const Op& op : h.ops()) {
      if (op.actor != h.nemesis()) continue;
      out.push_back(std::string(OpFName(op.f)) + ": " + h.text(op) + " @" +
                    FormatDuration(op.time) + (op.subject >= 0 ? " (" + h.name(op.subject) + ")" : ""));
    }
    return out;
  }

  VirtualWorld world_;
  int a_;
  ProcessEnv env_;
  std::vector<Nanos> replies_;
  int restarts_ = 0;
};

FaultSpec Pause(std::optional<Nanos> at, Nanos duration) {
  FaultSpec f;
  f.type = FaultSpec::Type::kPause;
  f.path = "$.faults[0]";
  f.process = "A";
  f.at = at;
  f.duration = duration;
  return f;
}

TEST_F(NemesisTest, ATimedPauseDefersWhatFallsDueUntilItEnds) {
  Run({Pause(milliseconds(500), seconds(2))});
  EXPECT_EQ(Faults(), (std::vector<std::string>{"pause: A for 2s @500ms (A)", "resume: A @2.5s (A)"}));
  // A's first wake-up (1 s) waited until 2.5 s; the rest follow 1 s apart.
  ASSERT_EQ(replies_.size(), 3u);
  EXPECT_GE(replies_[0], milliseconds(2500));
  EXPECT_LT(replies_[0], milliseconds(2502));
  EXPECT_GT(replies_[1], replies_[0] + seconds(1));
}

TEST_F(NemesisTest, ATriggerFiresOnTheCountthEventAfterItsDelay) {
  FaultSpec f = Pause(std::nullopt, seconds(1));
  TriggerSpec on;
  on.process = "A";
  on.event = TriggerSpec::Event::kReply;
  on.command = "get";  // any case
  on.count = 2;
  on.after = milliseconds(100);
  f.on = on;
  auto nemesis = Run({f});
  EXPECT_TRUE(nemesis->Unfired().empty());
  const std::vector<std::string> faults = Faults();
  ASSERT_EQ(faults.size(), 2u);
  // The second reply came at about 2 s; the pause 100 ms after it.
  const History& h = world_.history();
  Nanos second_reply{0};
  int replies = 0;
  for (const Op& op : h.ops()) {
    if (op.f == OpF::kRedis && op.type == OpType::kOk && ++replies == 2) second_reply = op.time;
  }
  for (const Op& op : h.ops()) {
    if (op.f == OpF::kPause) {
      EXPECT_EQ(op.time, second_reply + milliseconds(100));
    }
  }
}

TEST_F(NemesisTest, ATriggerThatNeverFiresIsReportedWithWhatWasSeen) {
  FaultSpec f = Pause(std::nullopt, seconds(1));
  TriggerSpec on;
  on.process = "A";
  on.event = TriggerSpec::Event::kReply;
  on.command = "SET";  // A never sends one
  f.on = on;
  auto nemesis = Run({f});
  EXPECT_TRUE(Faults().empty());
  ASSERT_EQ(nemesis->Unfired().size(), 1u);
  EXPECT_EQ(nemesis->Unfired()[0].rfind("$.faults[0]: the pause fault never fired (A had 0 of the 1", 0), 0u)
      << nemesis->Unfired()[0];
}

TEST_F(NemesisTest, AClockJumpMovesTheClientsClockAndIsRecorded) {
  FaultSpec f;
  f.type = FaultSpec::Type::kClock;
  f.path = "$.faults[0]";
  f.process = "A";
  f.at = seconds(1);
  f.jump = seconds(30);
  const Nanos before = world_.LocalNow(a_);
  Run({f});
  EXPECT_EQ(world_.LocalNow(a_) - before, world_.Now() + seconds(30));
  ASSERT_EQ(Faults().size(), 1u);
  EXPECT_EQ(Faults()[0].rfind("clock: A jumps +30s", 0), 0u) << Faults()[0];
}

TEST_F(NemesisTest, ACrashWithARestartEndsTheProcessAndStartsItAgain) {
  FaultSpec f;
  f.type = FaultSpec::Type::kCrash;
  f.path = "$.faults[0]";
  f.process = "A";
  f.at = milliseconds(1500);
  f.restart_after = seconds(2);
  Run({f});
  EXPECT_EQ(Faults(), (std::vector<std::string>{"crash: A @1.5s (A)", "restart: A @3.5s (A)"}));
  EXPECT_EQ(restarts_, 1);
  // Its first reply came before the crash; its task died with it.
  EXPECT_EQ(replies_.size(), 1u);
}

TEST_F(NemesisTest, ANodeCrashTakesTheNodeDownUntilItsRestart) {
  FaultSpec f;
  f.type = FaultSpec::Type::kCrash;
  f.path = "$.faults[0]";
  f.process = "redis0";
  f.at = milliseconds(1500);
  Run({f});
  EXPECT_FALSE(world_.IsUp(0));
  // A's later GETs are refused by the node that is down.
  const History& h = world_.history();
  int refused = 0;
  for (const Op& op : h.ops()) {
    if (op.f == OpF::kRedis && op.type == OpType::kOk && h.reply(op).IsError()) ++refused;
  }
  EXPECT_EQ(refused, 2);
}

TEST(NemesisSupport, APowerLossIsRefusedOnRealServersNamingItsPath) {
  FaultSpec f;
  f.type = FaultSpec::Type::kCrash;
  f.path = "$.faults[3]";
  f.process = "redis0";
  f.power_loss = true;
  EXPECT_NO_THROW(Nemesis::CheckSupported({f}, /*virtual_world=*/true, {"redis0"}, "s.json"));
  try {
    Nemesis::CheckSupported({f}, /*virtual_world=*/false, {"redis0"}, "s.json");
    FAIL() << "a power loss on real servers was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("s.json: $.faults[3]: a power loss cannot be carried out", 0), 0u)
        << e.what();
  }
}

}  // namespace
}  // namespace locksim
