// Replication, persistence and failover of the virtual Redis: what a replica
// or a restarted node knows, and when.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "sim/world/process_env.h"
#include "sim/world/virtual_world.h"

namespace locksim {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int64_t kT0 = 1704067200000;

// Runs `cmd` from a client at true time `at`; stores the reply.
Task<void> CallAt(ProcessEnv* env, Command cmd, Reply* out) {
  *out = co_await env->Call(0, std::move(cmd));
}

class ReplicationTest : public ::testing::Test {
 protected:
  void Make(WorldOptions o) {
    o.latency_min = o.latency_max = milliseconds(1);
    world_ = std::make_unique<VirtualWorld>(o);
    client_ = world_->AddProcess("A");
    env_ = std::make_unique<ProcessEnv>(world_.get(), client_);
  }
  // Sends cmd at true time `at` and runs the world until `until`.
  Reply CallAndRun(Nanos at, Command cmd, Nanos until) {
    Reply r;
    world_->Spawn(client_, at, CallAt(env_.get(), std::move(cmd), &r));
    world_->Run(until, /*until_deadline=*/true);
    return r;
  }
  // What a node holds for `key` right now, as a string or "(none)".
  std::string Peek(int physical, const std::string& key) {
    const int64_t ms = duration_cast<Millis>(world_->LocalNow(world_->node_process(physical))).count();
    const std::string* v = world_->node(physical).PeekString(key, ms);
    return v ? *v : "(none)";
  }

  std::unique_ptr<VirtualWorld> world_;
  int client_ = 0;
  std::unique_ptr<ProcessEnv> env_;
};

TEST_F(ReplicationTest, WritesReachTheReplicaOnlyAfterTheLag) {
  Make({.replicas = 1, .replication_lag = milliseconds(50)});
  const int master = world_->MasterOf(0), replica = world_->MembersOf(0)[1];
  // The SET reaches the master at 1ms; its effect reaches the replica at 51ms.
  EXPECT_TRUE(CallAndRun(Nanos(0), {"SET", "lock", "a", "PX", "10000"}, milliseconds(30)).IsOk());
  EXPECT_EQ(Peek(master, "lock"), "a");
  EXPECT_EQ(Peek(replica, "lock"), "(none)");
  world_->Run(milliseconds(60), true);
  EXPECT_EQ(Peek(replica, "lock"), "a");
  // With the same absolute expiry: SET ... PX is propagated as PXAT.
  EXPECT_EQ(world_->node(replica).PeekExpire("lock"), world_->node(master).PeekExpire("lock"));
  EXPECT_EQ(world_->node(master).PeekExpire("lock"), kT0 + 1 + 10000);
}

TEST_F(ReplicationTest, ExpirationReachesTheReplicaAsDel) {
  Make({.replicas = 1, .replication_lag = milliseconds(5)});
  const int replica = world_->MembersOf(0)[1];
  CallAndRun(Nanos(0), {"SET", "lock", "a", "PX", "200"}, milliseconds(100));
  EXPECT_EQ(world_->node(replica).KeyCount(), 1u);
  // The replica never expires keys itself; the master's active expiry
  // deletes the key and sends DEL.
  world_->Run(seconds(2), true);
  EXPECT_EQ(world_->node(world_->MasterOf(0)).KeyCount(), 0u);
  EXPECT_EQ(world_->node(replica).KeyCount(), 0u);
}

TEST_F(ReplicationTest, ReplicaHidesLogicallyExpiredKeysBeforeTheDelArrives) {
  VirtualRedis replica;
  replica.SetReplica(true);
  replica.ApplyReplicated({"SET", "k", "v", "PXAT", std::to_string(kT0 + 100)}, kT0);
  EXPECT_EQ(replica.Execute({"GET", "k"}, kT0 + 100), Reply::String("v"));
  EXPECT_TRUE(replica.Execute({"GET", "k"}, kT0 + 101).IsNil());  // hidden...
  EXPECT_EQ(replica.KeyCount(), 1u);                               // ...not deleted
  EXPECT_EQ(replica.Execute({"SET", "k", "w"}, kT0 + 101),
            Reply::Error("READONLY You can't write against a read only replica."));
  replica.ApplyReplicated({"DEL", "k"}, kT0 + 150);
  EXPECT_EQ(replica.KeyCount(), 0u);
}

TEST_F(ReplicationTest, ScriptsReplicateTheirEffects) {
  VirtualRedis master, replica;
  replica.SetReplica(true);
  master.Execute({"SET", "lock", "me", "PX", "1000"}, kT0);
  master.Execute({"EVAL",
                  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', "
                  "KEYS[1]) else return 0 end",
                  "1", "lock", "me"},
                 kT0 + 1);
  std::vector<Command> stream = master.TakeReplicationStream();
  ASSERT_EQ(stream.size(), 2u);
  EXPECT_EQ(stream[0], (Command{"SET", "lock", "me", "PXAT", std::to_string(kT0 + 1000)}));
  // The effect as the script called it, not the EVAL.
  EXPECT_EQ(stream[1], (Command{"del", "lock"}));
  for (const Command& c : stream) replica.ApplyReplicated(c, kT0 + 2);
  EXPECT_EQ(replica.KeyCount(), 0u);
}

// Each persistence policy loses exactly what it should when the node dies.
struct LossCase {
  Persistence policy;
  bool power_loss;
  std::vector<std::string> survivors;  // of keys a (t=0.1s), b (t=1.5s), c (t=2.5s)
};

class PersistenceTest : public ::testing::TestWithParam<LossCase> {};

std::string LossCaseLabel(const LossCase& c) {
  static const char* const kNames[] = {"None", "AofAlways", "AofEverySec", "Rdb"};
  return std::string(kNames[static_cast<int>(c.policy)]) +
         (c.power_loss ? "PowerLoss" : "ProcessCrash");
}

std::string LossCaseName(const ::testing::TestParamInfo<LossCase>& info) {
  return LossCaseLabel(info.param);
}

// gtest prints a parameter without a printer as its bytes, which ctest
// takes into the test's name.
void PrintTo(const LossCase& c, std::ostream* out) { *out << LossCaseLabel(c); }

TEST_P(PersistenceTest, CrashLosesWhatThePolicyLoses) {
  const LossCase& c = GetParam();
  VirtualRedis node;
  node.SetPersistence(c.policy, /*rdb_interval_ms=*/2000);
  Random rng(1);
  auto at = [](int ms) { return kT0 + ms; };
  // Cron every 100ms, writes at 0.1s, 1.5s and 2.5s, crash at 2.7s.
  for (int ms = 0; ms <= 2700; ms += 100) {
    if (ms == 100) node.Execute({"SET", "a", "1"}, at(ms));
    if (ms == 1500) node.Execute({"SET", "b", "1"}, at(ms));
    if (ms == 2500) node.Execute({"SET", "c", "1"}, at(ms));
    node.Cron(at(ms), rng);
  }
  node.Crash(c.power_loss);
  EXPECT_EQ(node.KeyCount(), 0u);
  node.Restart(at(3000));
  std::vector<std::string> present;
  for (const char* k : {"a", "b", "c"}) {
    if (node.PeekString(k, at(3000)) != nullptr) present.push_back(k);
  }
  EXPECT_EQ(present, c.survivors);
}

INSTANTIATE_TEST_SUITE_P(
    Policies, PersistenceTest,
    ::testing::Values(
        LossCase{Persistence::kNone, false, {}},
        // AOF always: every acknowledged write survives, even a power loss.
        LossCase{Persistence::kAofAlways, true, {"a", "b", "c"}},
        // AOF everysec, process crash: written to the page cache, kept.
        LossCase{Persistence::kAofEverySec, false, {"a", "b", "c"}},
        // AOF everysec, power loss: fsynced at 1.5s? no: at 0s, 1s, 2s -> a, b.
        LossCase{Persistence::kAofEverySec, true, {"a", "b"}},
        // RDB every 2s: the snapshot at 2s has a and b; c is lost.
        LossCase{Persistence::kRdb, false, {"a", "b"}}),
    LossCaseName);

TEST_F(ReplicationTest, ACrashLosesTheScriptCache) {
  VirtualRedis node;
  Reply sha = node.Execute({"SCRIPT", "LOAD", "return 1"}, kT0);
  ASSERT_EQ(sha.type, Reply::Type::kString);
  EXPECT_EQ(node.Execute({"EVALSHA", sha.str, "0"}, kT0), Reply::Integer(1));
  node.Crash();
  node.Restart(kT0 + 1000);
  EXPECT_EQ(node.Execute({"EVALSHA", sha.str, "0"}, kT0 + 1000),
            Reply::Error("NOSCRIPT No matching script. Please use EVAL."));
}

TEST_F(ReplicationTest, RestartKeepsAbsoluteExpiryTimes) {
  VirtualRedis node;
  node.SetPersistence(Persistence::kAofAlways);
  node.Execute({"SET", "lock", "a", "PX", "5000"}, kT0);
  node.Crash();
  node.Restart(kT0 + 3000);
  EXPECT_EQ(node.Execute({"PTTL", "lock"}, kT0 + 3000), Reply::Integer(2000));
  node.Crash();
  node.Restart(kT0 + 6000);  // reloaded, but already expired
  EXPECT_TRUE(node.Execute({"GET", "lock"}, kT0 + 6000).IsNil());
}

TEST_F(ReplicationTest, FailoverLosesALockKeyThatWasNotReplicatedYet) {
  // F7's mechanism: the master acknowledges the lock, dies before the key
  // reached its replica, the replica is promoted, and the key is gone.
  Make({.replicas = 1, .replication_lag = milliseconds(100)});
  const int old_master = world_->MasterOf(0), replica = world_->MembersOf(0)[1];
  EXPECT_TRUE(CallAndRun(Nanos(0), {"SET", "lock", "A", "NX", "PX", "30000"}, milliseconds(10)).IsOk());
  world_->CrashNode(old_master, false);
  EXPECT_EQ(world_->Failover(0), replica);
  world_->Run(milliseconds(500), true);  // the in-flight replication never lands
  // B asks the group (now the promoted replica) and gets the lock too.
  EXPECT_TRUE(CallAndRun(milliseconds(600), {"SET", "lock", "B", "NX", "PX", "30000"}, milliseconds(700)).IsOk());
  EXPECT_EQ(Peek(replica, "lock"), "B");
  // The old master comes back as a replica and its write is gone for good.
  world_->RestartNode(old_master);
  EXPECT_EQ(Peek(old_master, "lock"), "B");
}

TEST_F(ReplicationTest, FailoverOfARunningMasterLosesWhatWasInFlight) {
  // No crash this time: Sentinel promotes the replica (say, after a
  // partition) while the lock key is still on its way. Promotion cuts the
  // link, so the key never lands on the new master, and the demoted old
  // master resyncs from it.
  Make({.replicas = 1, .replication_lag = milliseconds(100)});
  const int old_master = world_->MasterOf(0), replica = world_->MembersOf(0)[1];
  EXPECT_TRUE(CallAndRun(Nanos(0), {"SET", "lock", "A", "NX", "PX", "30000"}, milliseconds(10)).IsOk());
  EXPECT_EQ(world_->Failover(0), replica);
  world_->Run(milliseconds(500), true);
  EXPECT_EQ(Peek(replica, "lock"), "(none)");
  EXPECT_EQ(Peek(old_master, "lock"), "(none)");
  EXPECT_TRUE(world_->node(old_master).is_replica());
}

TEST_F(ReplicationTest, AMasterRestartedWithoutPersistenceWipesItsReplicas) {
  Make({.replicas = 1, .replication_lag = milliseconds(1)});
  const int master = world_->MasterOf(0), replica = world_->MembersOf(0)[1];
  CallAndRun(Nanos(0), {"SET", "lock", "A", "PX", "30000"}, milliseconds(50));
  EXPECT_EQ(Peek(replica, "lock"), "A");
  world_->CrashNode(master, false);
  world_->RestartNode(master);
  EXPECT_EQ(Peek(master, "lock"), "(none)");
  EXPECT_EQ(Peek(replica, "lock"), "(none)");  // full resync from an empty master
}

TEST_F(ReplicationTest, ACrashedNodeRefusesConnections) {
  Make({});
  world_->CrashNode(0, false);
  Reply r = CallAndRun(Nanos(0), {"GET", "k"}, milliseconds(10));
  EXPECT_TRUE(r.IsError());
  EXPECT_NE(r.str.find("node down"), std::string::npos);
}

TEST_F(ReplicationTest, ClockJumpForwardExpiresKeysAtOnce) {
  Make({});
  CallAndRun(Nanos(0), {"SET", "lock", "a", "PX", "60000"}, milliseconds(10));
  EXPECT_EQ(world_->node(0).KeyCount(), 1u);
  // The node's clock jumps 2 minutes ahead (NTP step): the next cron tick
  // deletes the key without anyone touching it.
  world_->SetClock(world_->node_process(0), ProcessClock{std::chrono::minutes(2), 0});
  world_->Run(milliseconds(200), true);
  EXPECT_EQ(world_->node(0).KeyCount(), 0u);
}

}  // namespace
}  // namespace locksim
