// The bundled scenarios on real redis-server processes (started by the
// harness on 127.0.0.1): the same verdicts and pairs as on the virtual
// backend. Scenario time is compressed by each file's real_time_scale.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/core/history.h"
#include "sim/core/reply.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "lockimpls/lock.h"
#include "tests/testing/contention.h"
#include "tests/testing/scenario_paths.h"
#include "tests/testing/scoped_tmpdir.h"

namespace locksim {
namespace {

RunResult RunReal(const std::string& scenario, const std::string& algorithm) {
  RunOptions o;
  o.algorithm = algorithm;
  o.backend = Backend::kReal;
  return RunScenario(LoadScenario(ScenarioPath(scenario)), o);
}

using Pairs = std::vector<std::string>;

TEST(RealScenarios, F1PausePastTtlOnRealRedis) {
  for (const char* algo : {"set-nx-px", "set-nx-px-del"}) {
    RunResult r = RunReal("f01-pause-past-ttl", algo);
    EXPECT_EQ(r.verdict(), Verdict::kViolated) << algo;
    EXPECT_EQ(r.OverlapPairs(), Pairs{"A/B"}) << algo;
  }
}

TEST(RealScenarios, F2PlainDelFreesTheNextHoldersLockOnRealRedis) {
  RunResult r = RunReal("f02-del-frees-other", "set-nx-px-del");
  EXPECT_EQ(r.verdict(), Verdict::kViolated);
  EXPECT_EQ(r.OverlapPairs(), (Pairs{"A/B", "B/C"}));
}

TEST(RealScenarios, F2CompareAndDeleteKeepsBAndCApartOnRealRedis) {
  RunResult r = RunReal("f02-del-frees-other", "set-nx-px");
  EXPECT_EQ(r.verdict(), Verdict::kViolated);
  EXPECT_EQ(r.OverlapPairs(), Pairs{"A/B"});
}

// States follow the master through a real failover (issue 16): Sentinel
// kills the harness's watching connections on the replica it promotes,
// which are opened again, so a foreign write on the new master is found.
// Seed 000's F2 story runs after the promotion: A, paused past its lease,
// releases with a plain DEL and deletes B's key on redis0r1. The expiry of
// A's key, read only after B's SET, is not taken for B overwriting it.
constexpr char kForeignWriteAfterFailover[] = R"({
  "name": "foreign-write-after-failover", "seed": 1, "duration": "12s", "nodes": 1,
  "redis": {"replicas": 1, "replication_lag": "10ms"},
  "lock": {"key": "lock:order", "ttl": "2s", "retry_delay": "100ms", "acquire_timeout": "8s"},
  "clients": [{"name": "A", "start": "4s", "hold": "3s", "iterations": 1},
              {"name": "B", "start": "4500ms", "hold": "3s", "iterations": 1}],
  "faults": [{"type": "failover", "process": "redis0", "at": "100ms"},
             {"type": "pause", "process": "A", "at": "4200ms", "duration": "3s"}]})";

TEST(RealScenarios, AForeignWriteAfterARealFailoverIsFound) {
  for (const char* algo : {"set-nx-px-del", "set-nx-px"}) {
    RunOptions o;
    o.algorithm = algo;
    o.backend = Backend::kReal;
    RunResult r = RunScenario(ParseScenario(kForeignWriteAfterFailover, "failover.json"), o);
    EXPECT_EQ(r.verdict(), Verdict::kViolated) << algo;
    EXPECT_EQ(r.OverlapPairs(), Pairs{"A/B"}) << algo;
    const std::vector<std::string> kinds = ViolationKindNames(r.Kinds());
    const bool foreign = std::find(kinds.begin(), kinds.end(), "foreign-write") != kinds.end();
    // The plain DEL deletes B's key; the compare-and-delete deletes nothing.
    EXPECT_EQ(foreign, std::string(algo) == "set-nx-px-del") << algo;
    int promoted_states = 0;
    for (const Op& op : r.history.ops()) {
      promoted_states += op.f == OpF::kState && r.history.name(op.actor) == "redis0r1";
    }
    EXPECT_GE(promoted_states, 3) << algo << ": A's SET, B's SET and the release on redis0r1";
  }
}

// A SET ... PX of the harness's own that is the one possible cause of a
// `set` event is recorded from the command (issue 16): the state is its
// value with its full TTL, put down to its sender, and the node is not read
// (a reading lands a round trip later, with less TTL left). `cycles`
// acquisitions and releases by one client, as fast as it can.
void ExpectOwnSetsRecordedFromTheCommand(int cycles) {
  const std::string scenario =
      R"({"name": "own-sets", "seed": 1, "duration": "20s", "real_time_scale": "1",
          "lock": {"key": "lock:resource", "ttl": "10s", "retry_delay": "10ms",
                   "acquire_timeout": "5s"},
          "clients": [{"name": "A", "start": "0s", "hold": "0s", "think": "0s",
                       "iterations": )" +
      std::to_string(cycles) + "}]}";
  RunOptions o;
  o.algorithm = "set-nx-px";
  o.backend = Backend::kReal;
  RunResult r = RunScenario(ParseScenario(scenario, "own-sets.json"), o);
  ASSERT_EQ(r.verdict(), Verdict::kSafe);
  ASSERT_EQ(r.acquisitions, cycles);
  int present = 0, absent = 0, from_the_command = 0;
  for (const Op& op : r.history.ops()) {
    if (op.f != OpF::kState || r.history.name(op.actor) != "redis0") continue;
    const KeyState& state = r.history.state(op);
    if (!state.present) {
      ++absent;
      continue;
    }
    ++present;
    EXPECT_EQ(r.history.name(op.subject), "A") << "at op " << r.history.IndexOf(op);
    EXPECT_EQ(state.str.size(), 32u) << "A's token, at op " << r.history.IndexOf(op);
    from_the_command += state.pttl_ms == 10000;
  }
  // At most one state of each kind a cycle. Not always both: a reading
  // (an event that came more than kRecentReply after its reply, on a loaded
  // machine) may already see the next cycle's SET, and skip the absence
  // between, as docs/real-backend.md says.
  EXPECT_LE(present, cycles);
  EXPECT_LE(absent, cycles);
  // Most from the command: a reading gives the full TTL only by chance.
  EXPECT_GE(from_the_command, cycles / 2);
}

TEST(RealScenarios, OwnSetsAreRecordedFromTheCommandWithoutAReading) {
  ExpectOwnSetsRecordedFromTheCommand(200);
}

// With no Unix socket (a TMPDIR too long for one) the observer watches
// over TCP, and records the same.
TEST(RealScenarios, TheObserverWatchesOverTcpWhenThereIsNoUnixSocket) {
  const TmpdirTooLongForASocket tmpdir;
  ExpectOwnSetsRecordedFromTheCommand(50);
}

// A command its client gave up on (the socket timeout) still runs on the
// node: its bytes were written before the connection was closed, and a
// paused node reads them when it resumes. A gives up twice while redis0 is
// paused, and its acquisition fails; at the resume its SET runs, and the
// key holds A's token until it expires; B then takes the lock. The state
// is A's: forgetting a command given up on put it down to nobody (a
// foreign write), and, with another client's SET about, to that client (a
// sanitized CI run of Redlock on three nodes read a false violation).
TEST(RealScenarios, ACommandGivenUpOnThatStillRunsIsPutDownToItsSender) {
  constexpr char kGivenUp[] = R"({
    "name": "given-up", "duration": "2s", "real_time_scale": "1/2",
    "network": {"timeout": "100ms"},
    "lock": {"ttl": "150ms", "retry_delay": "10ms", "acquire_timeout": "200ms"},
    "clients": [{"name": "A", "start": "150ms", "hold": "50ms", "iterations": 1},
                {"name": "B", "start": "700ms", "hold": "50ms", "iterations": 1}],
    "faults": [{"type": "pause", "process": "redis0", "at": "100ms", "duration": "500ms"}]})";
  RunOptions o;
  o.algorithm = "set-nx-px";
  o.backend = Backend::kReal;
  RunResult r = RunScenario(ParseScenario(kGivenUp, "given-up.json"), o);
  EXPECT_EQ(r.verdict(), Verdict::kSafe);
  EXPECT_EQ(r.acquisitions, 1);         // B's
  EXPECT_EQ(r.failed_acquisitions, 1);  // A's: both its SETs given up on
  // Each token's sender, from the SETs in the history.
  std::map<std::string, std::string, std::less<>> sender;
  for (const Op& op : r.history.ops()) {
    if (op.f != OpF::kRedis || op.type != OpType::kInvoke) continue;
    const CommandView cmd = r.history.command(op);
    if (CommandNameIs(cmd.name(), "SET")) sender[std::string(cmd[2])] = r.history.name(op.actor);
  }
  std::vector<std::string> holders;
  for (const Op& op : r.history.ops()) {
    if (op.f != OpF::kState || !r.history.state(op).present) continue;
    const auto s = sender.find(r.history.state(op).str);
    ASSERT_NE(s, sender.end()) << "a value nobody sent, at op " << r.history.IndexOf(op);
    EXPECT_EQ(op.subject >= 0 ? r.history.name(op.subject) : "nobody", s->second)
        << "at op " << r.history.IndexOf(op);
    holders.push_back(s->second);
  }
  EXPECT_EQ(holders, (std::vector<std::string>{"A", "B"}));
}

// Three contenders of the SETNX/GETSET lock write the same value (the
// stamp of the same second), so the value alone cannot tell who wrote it:
// the SETNX answered 1 did, not a contender's answered 0, even one sent
// first or still unanswered when the key is read (a CI run once put the
// winner's key down to a loser, and the winner's release then looked like
// a foreign DEL). Each present state is its latest acquirer's.
TEST(RealScenarios, SameValueContendersArePutDownToTheOneWhoseSetnxWon) {
  for (int run = 0; run < 3; ++run) {
    RunOptions o;
    o.algorithm = "getset-timestamp";
    o.backend = Backend::kReal;
    RunResult r = RunScenario(ParseScenario(kContention, "contention.json"), o);
    ASSERT_EQ(r.verdict(), Verdict::kSafe) << run;
    ASSERT_EQ(r.acquisitions, 15) << run;
    int latest = -1, present = 0;
    for (const Op& op : r.history.ops()) {
      if (op.f == OpF::kAcquire && op.type == OpType::kOk) latest = op.actor;
      if (op.f != OpF::kState || !r.history.state(op).present) continue;
      ++present;
      ASSERT_GE(latest, 0) << "a value before any acquisition, at op " << r.history.IndexOf(op);
      EXPECT_EQ(op.subject, latest) << "run " << run << ", op " << r.history.IndexOf(op)
                                    << ": put down to "
                                    << (op.subject >= 0 ? r.history.name(op.subject) : "nobody")
                                    << ", acquired by " << r.history.name(latest);
    }
    EXPECT_EQ(present, 15) << run;
  }
}

// A reading publishes the key's state as MessagePack (real_observe.cc):
// a hash, Redisson's reentrant lock, comes back field by field, each new
// value put down to the client whose field it is. (A state is often
// recorded in the same turn as its acquirer's answer, just before it, so
// the latest acquisition in the history is not the test.) Only new
// values: a state that repeats the value with another TTL (kInfo) is put
// down to whichever command could have changed the TTL.
TEST(RealScenarios, AReentrantLocksHashIsReadFieldByField) {
  RunOptions o;
  o.algorithm = "reentrant-watchdog";
  o.backend = Backend::kReal;
  RunResult r = RunScenario(ParseScenario(kContention, "contention.json"), o);
  ASSERT_EQ(r.verdict(), Verdict::kSafe);
  ASSERT_EQ(r.acquisitions, 15);
  // Each field's sender: the first command that carries it as its last
  // argument ("uuid:thread") is its client's first acquire script (its
  // watchdog's renewals and its releases, which carry it too, come later).
  std::map<std::string, std::string, std::less<>> sender;
  for (const Op& op : r.history.ops()) {
    if (op.f != OpF::kRedis || op.type != OpType::kInvoke) continue;
    const CommandView cmd = r.history.command(op);
    if (cmd.size() > 0) sender.emplace(std::string(cmd[cmd.size() - 1]), r.history.name(op.actor));
  }
  int present = 0;
  for (const Op& op : r.history.ops()) {
    if (op.f != OpF::kState || !r.history.state(op).present) continue;
    ++present;
    const KeyState& state = r.history.state(op);
    EXPECT_TRUE(state.hash) << "op " << r.history.IndexOf(op);
    ASSERT_EQ(state.fields.size(), 1u) << "op " << r.history.IndexOf(op);
    EXPECT_EQ(state.fields[0].second, "1") << "op " << r.history.IndexOf(op);  // held once
    const auto s = sender.find(state.fields[0].first);
    ASSERT_NE(s, sender.end()) << "a field nobody sent, at op " << r.history.IndexOf(op);
    if (op.type == OpType::kOk) {
      EXPECT_EQ(op.subject >= 0 ? r.history.name(op.subject) : "nobody", s->second)
          << "op " << r.history.IndexOf(op);
    }
  }
  EXPECT_GE(present, 15);
}

TEST(RealScenarios, ContentionWithoutFaultsIsSafeOnRealRedis) {
  for (const char* algo : {"set-nx-px", "set-nx-px-del"}) {
    RunResult r = RunReal("baseline-contention", algo);
    EXPECT_EQ(r.verdict(), Verdict::kSafe) << algo;
    EXPECT_EQ(r.acquisitions, 40) << algo;
  }
}


TEST(RealScenarios, RedlockOnThreeRealServersIsSafeUnderContention) {
  // Three redis-server processes, one per node, started by the harness.
  // The shared contention scenario, on three masters.
  std::string three_nodes = kContention;
  const std::string algorithm = "\"algorithm\": \"set-nx-px\"";
  three_nodes.replace(three_nodes.find(algorithm), algorithm.size(),
                      "\"algorithm\": \"redlock\", \"nodes\": 3");
  for (bool parallel : {true, false}) {
    std::string text = three_nodes;
    if (!parallel) text.replace(text.find("\"tries\": 100000"), 15, "\"tries\": 100000, \"parallel\": false");
    RunOptions o;
    o.backend = Backend::kReal;
    RunResult r = RunScenario(ParseScenario(text, "redlock-real.json"), o);
    EXPECT_EQ(r.verdict(), Verdict::kSafe) << parallel;
    EXPECT_EQ(r.acquisitions, 15) << parallel;
    EXPECT_EQ(r.failed_acquisitions, 0) << parallel;
  }
}

// Redlock on three nodes whose 1 ms request timeouts fire: calls are given
// up on while their commands still run (GaveUp), and a node runs a
// holder's release, the next SET NX and a reading in one go (the reading
// must come after the `del` it follows: readings are published among the
// key's events). No two clients ever hold the lock at once. Before the
// first rule, about one run in 15 on a loaded machine read a foreign write
// (CI's sanitized run found it first), and one in 300 before the second;
// this is a sample, not a proof, and fails on a regression only now and
// then.
//
// Safety is what it asserts, not liveness: once calls time out, a harness
// slower than the timeout (a sanitized build on a loaded machine: 1 ms is
// 200 us of real time here) can stay in a storm where every call times out
// and nobody acquires for longer than the deadlock bound, a true verdict
// about that run (CI saw it). The run's 30 s bounds such a storm.
TEST(RealScenarios, RedlockIsSafeWhileItsNodeTimeoutsFire) {
  std::string text = kContention;
  const std::string algorithm = "\"algorithm\": \"set-nx-px\"";
  text.replace(text.find(algorithm), algorithm.size(), "\"algorithm\": \"redlock\", \"nodes\": 3");
  // 3 ms: with 1 ms, a sanitized build on a loaded machine (two busy
  // loops, or CI's other tests beside it) timed out every node of every
  // try, five runs in a row, and never took the lock (CI, 2026-11-30; the
  // same with the timeout code of the day before). The delayed link below
  // still makes calls time out on any machine.
  text.replace(text.find("\"tries\": 100000"), 15, "\"tries\": 100000, \"node_timeout\": \"3ms\"");
  const std::string duration = "\"duration\": \"5m\"";
  text.replace(text.find(duration), duration.size(), "\"duration\": \"30s\"");
  // A's link to one node is slower than the timeout at first, so that some
  // calls are given up on however fast the machine is (CI's fast run once
  // saw none); the other two nodes still make a majority.
  const std::string clients = "\"clients\": [";
  text.replace(text.find(clients), clients.size(),
               R"("faults": [{"type": "delay", "between": [["A"], ["redis2"]], "latency": "10ms",)"
               R"( "at": "0s", "duration": "100ms"}],)" + clients);
  int acquisitions = 0, given_up = 0;
  for (int run = 0; run < 5; ++run) {
    RunOptions o;
    o.backend = Backend::kReal;
    RunResult r = RunScenario(ParseScenario(text, "redlock-timeouts.json"), o);
    EXPECT_NE(r.verdict(), Verdict::kViolated) << run;
    EXPECT_TRUE(r.check.ok()) << run << ": " << r.check.violations.size() << " violations";
    acquisitions += r.acquisitions;
    for (const Op& op : r.history.ops()) given_up += op.f == OpF::kRedis && op.type == OpType::kInfo;
  }
  // Not vacuous: the lock was taken, and requests timed out.
  EXPECT_GT(acquisitions, 0);
  EXPECT_GT(given_up, 0) << "no request timed out";
}

}  // namespace
}  // namespace locksim

namespace locksim {
namespace {

// Every variant against a real redis-server, without faults: contending
// clients never overlap and every acquisition completes (the same scenario
// as tests/lockimpls/variants_test.cc, compressed by its real_time_scale).
class RealVariantTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RealVariantTest, ContendingClientsNeverOverlapOnRealRedis) {
  RunOptions o;
  o.algorithm = GetParam();
  o.backend = Backend::kReal;
  RunResult r = RunScenario(ParseScenario(kContention, "contention.json"), o);
  EXPECT_EQ(r.verdict(), Verdict::kSafe);
  EXPECT_EQ(r.acquisitions, 15);
  EXPECT_EQ(r.failed_acquisitions, 0);
}

std::vector<std::string> AllIds() {
  std::vector<std::string> ids;
  for (const AlgorithmInfo& a : Algorithms()) {
    if (!a.is_limiter()) ids.emplace_back(a.id);
  }
  return ids;
}

INSTANTIATE_TEST_SUITE_P(AllVariants, RealVariantTest, ::testing::ValuesIn(AllIds()),
                         [](const auto& info) {
                           std::string name;
                           for (char c : info.param) name += c == '-' ? '_' : c;
                           return name;
                         });

}  // namespace
}  // namespace locksim

namespace locksim {
namespace {

TEST(RealLimiter, BothLimitersAdmitAtMostTheLimitPerWindowOnRealRedis) {
  // A 1 s window (EXPIRE takes seconds, so real time is not compressed);
  // three clients, a request each every 100 ms for 1.5 s.
  const std::string text = R"({
    "duration": "10s",
    "algorithm": "rate-limit-lua",
    "lock": {"key": "limit:10.0.0.1", "ttl": "1s", "limit": 10},
    "clients": [
      {"name": "A", "think": "100ms", "iterations": 15},
      {"name": "B", "start": "30ms", "think": "100ms", "iterations": 15},
      {"name": "C", "start": "60ms", "think": "100ms", "iterations": 15}
    ]
  })";
  for (const char* algo : {"rate-limit-lua", "rate-limit-naive"}) {
    RunOptions o;
    o.algorithm = algo;
    o.backend = Backend::kReal;
    RunResult r = RunScenario(ParseScenario(text, "limit.json"), o);
    EXPECT_EQ(r.verdict(), Verdict::kSafe) << algo << ": " << r.effect.sentences.front();
  }
}

}  // namespace
}  // namespace locksim
