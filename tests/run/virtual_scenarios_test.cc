// The bundled scenarios on the virtual backend: each documented failure is
// reproduced for the variant that breaks, with the exact overlapping pairs,
// and the control scenario is safe for every variant.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <sstream>

#include "reports/run_json.h"
#include "sim/run/runner.h"
#include "tests/testing/scenario_paths.h"

namespace locksim {
namespace {

RunResult RunVirtual(const std::string& scenario, const std::string& algorithm, uint64_t seed = 1) {
  RunOptions o;
  o.algorithm = algorithm;
  o.seed = seed;
  return RunScenario(LoadScenario(ScenarioPath(scenario)), o);
}

using Pairs = std::vector<std::string>;

// A replay command gives the run the variant, seed and world it had: a real
// run replays on real servers, with its time scale and server binary; an
// expectation by its label; a default stays short.
TEST(ReplayCommand, NamesTheVariantSeedBackendTimeScaleAndServerOfTheRun) {
  RunOptions o;
  EXPECT_EQ(ReplayRunCommand("s.json", o), "locksim run s.json --backend virtual");
  o.algorithm = "set-nx-px";
  o.seed = 7;
  o.backend = Backend::kReal;
  EXPECT_EQ(ReplayRunCommand("s.json", o),
            "locksim run s.json --algorithm set-nx-px --seed 7 --backend real");
  o.time_scale = TimeScale{1, 20};
  o.redis_server = "/opt/redis/bin/redis-server";
  EXPECT_EQ(ReplayRunCommand("s.json", o),
            "locksim run s.json --algorithm set-nx-px --seed 7 --backend real --time-scale 1/20 "
            "--redis-server /opt/redis/bin/redis-server");
  o.label = "set-nx-px";  // an expectation's overrides come with its label
  o.backend = Backend::kVirtual;  // the server binary means nothing there
  EXPECT_EQ(ReplayRunCommand("s.json", o),
            "locksim run s.json --label set-nx-px --seed 7 --backend virtual --time-scale 1/20");
  o.label.clear();
  o.algorithm.clear();
  o.adapter = "lib.adapter.json";
  EXPECT_EQ(ReplayRunCommand("s.json", o),
            "locksim run s.json --adapter lib.adapter.json --seed 7 --backend virtual "
            "--time-scale 1/20");
}

TEST(VirtualScenarios, F1PausePastTtlLetsBothHoldersIn) {
  for (const char* algo : {"set-nx-px", "set-nx-px-del"}) {
    RunResult r = RunVirtual("f01-pause-past-ttl", algo);
    EXPECT_EQ(r.verdict(), Verdict::kViolated) << algo;
    EXPECT_EQ(r.OverlapPairs(), Pairs{"A/B"}) << algo;
    ASSERT_EQ(r.check.violations.size(), 1u);
    // B entered at 5.5s (lock expired at 5s, B retries every second) and
    // left at 8.5s; A was inside, paused, the whole time.
    const Violation& v = r.check.violations[0];
    EXPECT_GT(v.overlap_start, std::chrono::milliseconds(5500));
    EXPECT_LT(v.overlap_start, std::chrono::milliseconds(5510));
    EXPECT_EQ(r.ExpectationMet(), true);
  }
}

TEST(VirtualScenarios, F2PlainDelFreesTheNextHoldersLock) {
  RunResult r = RunVirtual("f02-del-frees-other", "set-nx-px-del");
  EXPECT_EQ(r.verdict(), Verdict::kViolated);
  EXPECT_EQ(r.OverlapPairs(), (Pairs{"A/B", "B/C"}));
  // The record shows A's DEL, issued after its pause, deleting B's key.
  const Violation& bc = r.check.violations.back();
  bool saw_a_del = false;
  for (int32_t i : bc.events) {
    const Op& op = r.history.ops()[i];
    if (r.history.name(op.actor) == "A" && op.f == OpF::kRedis &&
        op.type == OpType::kInvoke &&
        r.history.command(op).ToCommand() == Command{"DEL", "lock:order"}) {
      // Its reply: A's next redis completion.
      for (size_t j = i + 1; j < r.history.size(); ++j) {
        const Op& reply = r.history.ops()[j];
        if (reply.actor == op.actor && reply.f == OpF::kRedis) {
          EXPECT_EQ(reply.type, OpType::kOk);
          EXPECT_EQ(r.history.reply(reply), Reply::Integer(1));
          break;
        }
      }
      saw_a_del = true;
    }
  }
  EXPECT_TRUE(saw_a_del);
  EXPECT_EQ(r.ExpectationMet(), true);
}

TEST(VirtualScenarios, WithoutNodeStatesARunIsTheSameRunWithNoneRecorded) {
  // RunOptions::record_states (make bench's measure of what recording
  // costs): the clients' and the nemesis's ops are the same, and no node
  // state is recorded, so no foreign write can be found.
  const Scenario s = LoadScenario(ScenarioPath("f02-del-frees-other"));
  RunOptions o;
  o.algorithm = "set-nx-px-del";
  const RunResult full = RunScenario(s, o);
  o.record_states = false;
  const RunResult bare = RunScenario(s, o);
  auto without_states = [](const History& h) {
    std::vector<std::string> out;
    for (const Op& op : h.ops()) {
      if (op.f == OpF::kState) continue;
      out.push_back(FormatDuration(op.time) + " " + h.name(op.actor) + " " +
                    std::string(OpFName(op.f)) + " " + h.ValueText(op));
    }
    return out;
  };
  EXPECT_EQ(without_states(bare.history), without_states(full.history));
  EXPECT_EQ(bare.OverlapPairs(), full.OverlapPairs());
  size_t states = 0, foreign = 0;
  for (const Op& op : full.history.ops()) states += op.f == OpF::kState;
  EXPECT_GT(states, 0u);
  for (const Op& op : bare.history.ops()) EXPECT_NE(op.f, OpF::kState);
  for (const Violation& v : full.check.violations) {
    foreign += v.kind == ViolationKind::kForeignWrite;
  }
  EXPECT_GT(foreign, 0u);
  for (const Violation& v : bare.check.violations) {
    EXPECT_NE(v.kind, ViolationKind::kForeignWrite);
  }
}

TEST(VirtualScenarios, F2CompareAndDeleteKeepsBAndCApart) {
  RunResult r = RunVirtual("f02-del-frees-other", "set-nx-px");
  EXPECT_EQ(r.verdict(), Verdict::kViolated);
  EXPECT_EQ(r.OverlapPairs(), Pairs{"A/B"});  // F1 remains; F2 is gone
  EXPECT_EQ(r.ExpectationMet(), true);
}

TEST(VirtualScenarios, ContentionWithoutFaultsIsSafe) {
  for (const char* algo : {"set-nx-px", "set-nx-px-del"}) {
    for (uint64_t seed : {1, 2, 3}) {
      RunResult r = RunVirtual("baseline-contention", algo, seed);
      EXPECT_EQ(r.verdict(), Verdict::kSafe) << algo << " seed " << seed;
      EXPECT_EQ(r.acquisitions, 40) << algo;
      EXPECT_EQ(r.check.sections.size(), 40u);
    }
  }
}

TEST(VirtualScenarios, ThreadsOfOneProcessContendLikeSeparateClients) {
  Scenario s = ParseScenario(R"({
    "duration": "60s",
    "lock": {"ttl": "5s", "retry_delay": "20ms", "acquire_timeout": "30s"},
    "clients": [{"name": "A", "threads": 3, "hold": "50ms", "iterations": 5},
                {"name": "B", "threads": 3, "hold": "50ms", "iterations": 5}],
    "faults": [{"type": "pause", "process": "A", "at": "100ms", "duration": "200ms"}],
    "expect": {"set-nx-px": {"verdict": "safe"}}
  })", "threads.json");
  RunOptions o;
  RunResult r = RunScenario(s, o);
  EXPECT_EQ(r.verdict(), Verdict::kSafe);
  EXPECT_EQ(r.acquisitions, 30);
  std::set<std::string> actors;
  for (const CriticalSection& c : r.check.sections) actors.insert(r.history.name(c.process));
  EXPECT_EQ(actors, (std::set<std::string>{"A.1", "A.2", "A.3", "B.1", "B.2", "B.3"}));
}

TEST(VirtualScenarios, SameScenarioAndSeedGiveByteIdenticalJson) {
  for (const char* scenario : {"f01-pause-past-ttl", "f02-del-frees-other", "baseline-contention"}) {
    const std::string a = ResultToJson(RunVirtual(scenario, "set-nx-px-del", 5), true).dump(2);
    const std::string b = ResultToJson(RunVirtual(scenario, "set-nx-px-del", 5), true).dump(2);
    EXPECT_EQ(a, b) << scenario;
  }
}

// Runs that hand their Lua states on through one ScriptStatePool (as
// explore's workers do) give the JSON that runs with states of their own
// give, also where a script that could tell (collectgarbage) comes to a
// state from the pool and the run is made again without it.
TEST(VirtualScenarios, RunsThatShareLuaStatesGiveTheJsonOfRunsThatDoNot) {
  const Scenario plain = LoadScenario(ScenarioPath("baseline-contention"));
  const Scenario counts = ParseScenario(R"({
    "name": "gc-count", "algorithm": "set-nx-px", "duration": "2s",
    "workload": {"type": "commands",
                 "commands": [["EVAL", "return collectgarbage('count') > 0 and 1 or 0", "0"]],
                 "replies": ["(integer) 1"]},
    "clients": [{"name": "A", "start": "0s", "hold": "10ms", "iterations": 3},
                {"name": "B", "start": "1ms", "hold": "10ms", "iterations": 3}]
  })", "gc-count.json");
  const std::shared_ptr<ScriptStatePool> pool = NewScriptStatePool();
  for (const Scenario* s : {&plain, &counts, &plain, &counts, &plain}) {
    RunOptions own;
    own.algorithm = "set-nx-px";
    own.seed = 3;
    RunOptions shared = own;
    shared.script_states = pool.get();
    const RunResult r = RunScenario(*s, shared);
    EXPECT_EQ(ResultToJson(r, true).dump(), ResultToJson(RunScenario(*s, own), true).dump())
        << s->file;
    EXPECT_TRUE(r.effect.holds) << s->file;  // every reply as Redis gives it
  }
}

// `run --json` writes the document a record at a time: the same bytes as
// the whole document's dump, alone or as an element of an array.
TEST(VirtualScenarios, TheWrittenJsonIsTheDocumentsDump) {
  for (const char* scenario :
       {"f02-del-frees-other", "f01-pause-past-ttl", "baseline-contention"}) {
    for (bool history : {false, true}) {
      const RunResult r = RunVirtual(scenario, "set-nx-px-del", 5);
      std::ostringstream written;
      WriteResultJson(written, r, history);
      EXPECT_EQ(written.str(), ResultToJson(r, history).dump(2)) << scenario << history;
      std::ostringstream element;
      element << "[\n  ";
      WriteResultJson(element, r, history, 1);
      element << "\n]";
      nlohmann::ordered_json array = nlohmann::ordered_json::array();
      array.push_back(ResultToJson(r, history));
      EXPECT_EQ(element.str(), array.dump(2)) << scenario << history;
    }
  }
}

TEST(VirtualScenarios, DifferentSeedsGiveDifferentHistories) {
  const std::string a = ResultToJson(RunVirtual("baseline-contention", "set-nx-px", 1), true).dump();
  const std::string b = ResultToJson(RunVirtual("baseline-contention", "set-nx-px", 2), true).dump();
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace locksim

namespace locksim {
namespace {

// A run whose history reaches RunOptions::max_ops stops there, says where
// and why, and its verdict covers what it recorded.
TEST(VirtualScenarios, ARunStopsAtItsHistoryCapAndSaysSo) {
  RunOptions o;
  o.algorithm = "set-nx-px";
  o.max_ops = 200;
  const RunResult r = RunScenario(LoadScenario(ScenarioPath("baseline-contention")), o);
  // Checked after each event; an event records a few ops at most.
  EXPECT_GE(r.history.size(), 200u);
  EXPECT_LT(r.history.size(), 210u);
  EXPECT_LT(r.end, r.scenario.duration);
  EXPECT_NE(r.stopped_early.find("--max-ops 200"), std::string::npos) << r.stopped_early;
  EXPECT_EQ(r.verdict(), Verdict::kSafe);
  // Uncapped, the same scenario runs to its end and says nothing.
  o.max_ops = 0;
  const RunResult whole = RunScenario(LoadScenario(ScenarioPath("baseline-contention")), o);
  EXPECT_TRUE(whole.stopped_early.empty());
  EXPECT_GT(whole.history.size(), r.history.size());
}

// Past the first kExplainedViolations, a violation lists neither its events
// nor its faults: listing every fault up to each violation grew as faults x
// violations. The explained ones still list every fault up to their end.
TEST(VirtualScenarios, OnlyTheExplainedViolationsListTheirFaults) {
  // A plain DEL after a TTL shorter than the hold: a foreign write and an
  // overlap nearly every cycle, and a pause early on.
  const Scenario s = ParseScenario(R"({
    "name": "storm", "algorithm": "set-nx-px-del", "duration": "3s",
    "lock": {"key": "lock", "ttl": "10ms", "retry_delay": "10ms", "acquire_timeout": "30s"},
    "clients": [{"name": "A", "start": "0s", "hold": "20ms", "think": "10ms", "iterations": 0},
                {"name": "B", "start": "1ms", "hold": "20ms", "think": "10ms", "iterations": 0},
                {"name": "C", "start": "2ms", "hold": "20ms", "think": "10ms", "iterations": 0}],
    "faults": [{"type": "pause", "process": "C", "at": "5ms", "duration": "30ms"}]
  })", "storm.json");
  RunOptions o;
  const RunResult r = RunScenario(s, o);
  const nlohmann::ordered_json j = ResultToJson(r, false);
  const nlohmann::ordered_json& violations = j.at("violations");
  ASSERT_GT(violations.size(), kExplainedViolations);
  EXPECT_EQ(j.at("violations_explained"), kExplainedViolations);
  for (size_t i = 0; i < violations.size(); ++i) {
    const nlohmann::ordered_json& v = violations[i];
    if (i < kExplainedViolations) {
      EXPECT_FALSE(v.at("events").empty()) << i;
      // The pause came before every violation, its end before the later ones.
      EXPECT_FALSE(v.at("faults").empty()) << i;
    } else {
      EXPECT_TRUE(v.at("events").empty()) << i;
      EXPECT_TRUE(v.at("faults").empty()) << i;
    }
  }
  EXPECT_EQ(violations[kExplainedViolations - 1].at("faults").size(), 2u);
}

}  // namespace
}  // namespace locksim
