// Explore: generated scenarios find the documented failure kinds, the
// shrunk files replay to the same violation, and shrinking does what it
// says. Seed ranges are small (a second or two each) and were checked to
// contain the kinds asserted.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <ostream>
#include <string>

#include "reports/run_json.h"
#include "sim/core/errors.h"
#include "sim/core/text.h"
#include "sim/explore/explore.h"
#include "sim/explore/shrink.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "tests/testing/temp_dir.h"

namespace locksim {
namespace {

using ojson = nlohmann::ordered_json;

bool HasForeignWrite(const Finding& f) {
  return std::any_of(f.violations.begin(), f.violations.end(),
                     [](const std::string& t) { return t.starts_with("foreign-write"); });
}

ExploreResult Explore(const std::string& algorithm, const std::string& faults, uint64_t count,
                      int jobs = 2) {
  const ExploreSpec spec = MakeExploreSpec(algorithm, ParseFaultClasses(faults, "--faults"));
  SeedPlan plan;
  plan.first = 1;
  plan.count = count;
  return RunExplore(spec, plan, jobs, nullptr, nullptr);
}

// Loads a finding's file as `locksim run FILE` does and runs its "expect"
// entry.
RunResult Replay(const Finding& f, const std::string& algorithm) {
  const Scenario s = ParseScenario(f.text, f.file);
  RunOptions o;
  o.label = algorithm;
  return RunScenario(s, o);
}

void ExpectReplaysToSameViolation(const ExploreResult& r) {
  for (const Finding& f : r.findings) {
    SCOPED_TRACE(f.file);
    const RunResult again = Replay(f, r.spec.algorithm);
    EXPECT_EQ(VerdictName(again.verdict()), f.verdict);
    EXPECT_EQ(again.ExpectationMet(), std::optional<bool>(true));
    EXPECT_TRUE(again.unfired.empty());
    // The checker's kinds in the file are those of the finding's tokens.
    for (const std::string& k : ViolationKindNames(again.Kinds())) {
      const bool in_tokens =
          std::any_of(f.violations.begin(), f.violations.end(),
                      [&](const std::string& t) { return t.starts_with(k); });
      EXPECT_TRUE(in_tokens) << k;
    }
    // The fault classes of the kind are those left in the file (a node's
    // pause, clock or crash told apart).
    std::set<std::string> classes;
    const std::vector<std::string> nodes = again.scenario.NodeNames();
    for (const FaultSpec& fault : again.scenario.faults) {
      const std::string type(FaultTypeName(fault.type));
      const bool on_node = std::find(nodes.begin(), nodes.end(), fault.process) != nodes.end();
      if (type == "pause") {
        classes.insert(on_node ? "node-pause" : "pause");
      } else if (type == "clock" || type == "crash") {
        classes.insert((on_node ? "node-" : "client-") + type);
      } else if (type == "delay" || type == "drop") {
        classes.insert("delay-drop");
      } else {
        classes.insert(type);
      }
    }
    EXPECT_EQ(classes, std::set<std::string>(f.fault_classes.begin(), f.fault_classes.end()));
    EXPECT_NE(f.text.find("explore seed " + std::to_string(f.seed)), std::string::npos);
  }
}

TEST(Explore, SetNxPxDelWithPausesFindsTheF1AndF2Kinds) {
  const ExploreResult r = Explore("set-nx-px-del", "pause", 60);
  ASSERT_FALSE(r.findings.empty());
  // F1: two holders after a pause, nobody's lock deleted.
  const bool f1 = std::any_of(r.findings.begin(), r.findings.end(), [](const Finding& f) {
    return Has(f.violations, "mutual-exclusion") && !HasForeignWrite(f) &&
           f.fault_classes == std::vector<std::string>{"pause"};
  });
  // F2: a release's plain DEL deletes another holder's lock, after a pause.
  const bool f2 = std::any_of(r.findings.begin(), r.findings.end(), [](const Finding& f) {
    return Has(f.violations, "foreign-write-DEL") &&
           f.fault_classes == std::vector<std::string>{"pause"};
  });
  EXPECT_TRUE(f1);
  EXPECT_TRUE(f2);
  ExpectReplaysToSameViolation(r);
}

TEST(Explore, GetsetTimestampWithClockFaultsFindsTheF4Kind) {
  const ExploreResult r = Explore("getset-timestamp", "clock", 40);
  // F4: a client whose clock is off takes a live timestamp lock by GETSET.
  const bool f4 = std::any_of(r.findings.begin(), r.findings.end(), [](const Finding& f) {
    return Has(f.violations, "foreign-write-GETSET") && Has(f.violations, "mutual-exclusion") &&
           f.fault_classes == std::vector<std::string>{"client-clock"};
  });
  EXPECT_TRUE(f4);
  ExpectReplaysToSameViolation(r);
}

TEST(Explore, ShrunkFindingsAreNoBiggerThanWhatWasGenerated) {
  const ExploreResult r = Explore("set-nx-px-del", "pause", 30);
  ASSERT_FALSE(r.findings.empty());
  bool smaller = false;
  for (const Finding& f : r.findings) {
    EXPECT_LE(f.clients, f.original_clients);
    EXPECT_LE(f.fault_count, f.original_faults);
    EXPECT_LE(f.duration, f.original_duration);
    smaller = smaller || f.duration < f.original_duration;
    // Two clients are the least an overlap or a foreign write takes.
    EXPECT_GE(f.clients, 2);
  }
  EXPECT_TRUE(smaller);
}

// Kleppmann's fencing: overlap happens under pauses, but the resource never
// accepts a write whose token is older than one it already accepted, and
// it does reject some.
TEST(Explore, FencedWithPausesOverlapsButAcceptsNoStaleWrite) {
  const ExploreResult r = Explore("fenced", "pause", 60);
  ASSERT_TRUE(std::any_of(r.findings.begin(), r.findings.end(), [](const Finding& f) {
    return Has(f.violations, "mutual-exclusion");
  }));
  int64_t rejected = 0, accepted = 0;
  for (const Finding& f : r.findings) {
    SCOPED_TRACE(f.file);
    const RunResult run = Replay(f, "fenced");
    int64_t highest = -1;
    for (const Op& op : run.history.ops()) {
      if (op.f != OpF::kWrite) continue;
      const std::optional<int64_t> token = run.history.token(op);
      ASSERT_TRUE(token.has_value()) << run.history.ValueText(op);
      if (op.type == OpType::kOk) {
        EXPECT_GE(*token, highest) << "stale write accepted: " << run.history.ValueText(op);
        highest = std::max(highest, *token);
        ++accepted;
      } else {
        EXPECT_LT(*token, highest) << "fresh write rejected: " << run.history.ValueText(op);
        ++rejected;
      }
    }
  }
  EXPECT_GT(accepted, 0);
  EXPECT_GT(rejected, 0);
}

TEST(Explore, TheSameSeedGivesTheSameFindingOnAnyNumberOfThreads) {
  const ExploreResult one = Explore("getset-timestamp", "clock", 20, /*jobs=*/1);
  const ExploreResult two = Explore("getset-timestamp", "clock", 20, /*jobs=*/2);
  EXPECT_EQ(SummaryJson(one).dump(), SummaryJson(two).dump());
  ASSERT_EQ(one.findings.size(), two.findings.size());
  for (size_t i = 0; i < one.findings.size(); ++i) {
    EXPECT_EQ(one.findings[i].text, two.findings[i].text);
  }
}

TEST(Explore, ShardsCoverDisjointSharesOfTheSeeds) {
  const ExploreSpec spec = MakeExploreSpec("set-nx-px-del", {"pause"});
  std::set<uint64_t> seeds;
  int64_t runs = 0;
  for (int64_t i = 0; i < 3; ++i) {
    SeedPlan plan;
    plan.first = 5;
    plan.count = 20;
    plan.shard_index = i;
    plan.shard_count = 3;
    const ExploreResult r = RunExplore(spec, plan, 1, nullptr, nullptr);
    runs += r.runs;
    EXPECT_EQ(r.last, 24u);
    for (const Finding& f : r.findings) {
      EXPECT_EQ((f.seed - 5) % 3, static_cast<uint64_t>(i));
      EXPECT_TRUE(seeds.insert(f.seed).second);
    }
  }
  EXPECT_EQ(runs, 20);
}

TEST(Explore, SummaryRoundTripsThroughTheParser) {
  const ExploreResult r = Explore("set-nx-px-del", "pause", 20);
  const std::string text = SummaryJson(r).dump(2);
  const ExploreResult back = ParseSummary(text, "summary.json");
  EXPECT_EQ(SummaryJson(back).dump(2), text);
}

TEST(Explore, GeneratedScenariosParseAndOnlyUseTheFaultClassesAsked) {
  const ExploreSpec spec =
      MakeExploreSpec("redlock", {"client-clock", "node-clock", "client-crash", "node-crash"});
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    const ojson doc = GenerateScenario(spec, seed);
    const Scenario s = ParseScenario(doc.dump(), "generated");
    EXPECT_EQ(s.nodes, 3);
    EXPECT_EQ(s.seed, seed);
    for (const FaultSpec& f : s.faults) {
      EXPECT_TRUE(f.type == FaultSpec::Type::kClock || f.type == FaultSpec::Type::kCrash);
    }
    EXPECT_EQ(doc.dump(), GenerateScenario(spec, seed).dump());
  }
}

// Explore and verify read their generated documents without making text
// of them (ParseScenarioDoc): every run is the run of the text's scenario.
TEST(Explore, AGeneratedDocumentReadsAsItsTextDoes) {
  for (const char* algorithm : {"set-nx-px", "redlock", "reentrant-watchdog", "watch-multi"}) {
    const ExploreSpec spec = MakeExploreSpec(algorithm, FaultClasses());
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      const ojson doc = GenerateScenario(spec, seed);
      RunOptions o = SeedRunOptions(spec, seed);
      const std::string from_text =
          ResultToJson(RunScenario(ParseScenario(doc.dump(), "g.json"), o), true).dump();
      const std::string from_doc =
          ResultToJson(RunScenario(ParseScenarioDoc(doc, "g.json"), o), true).dump();
      EXPECT_EQ(from_doc, from_text) << algorithm << " seed " << seed;
    }
  }
}

TEST(Explore, UnknownFaultClassNamesTheOption) {
  try {
    ParseFaultClasses("pause,gc", "--faults");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--faults: unknown fault class \"gc\""),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(ParseFaultClasses("clock,pause,client-clock", "--faults"),
            (std::vector<std::string>{"pause", "client-clock", "node-clock"}));
  EXPECT_EQ(ParseFaultClasses("drop,crash", "--faults"),
            (std::vector<std::string>{"client-crash", "node-crash", "delay-drop"}));
  EXPECT_EQ(ParseFaultClasses("all", "--faults"), FaultClasses());
}

// Shrink on a predicate that needs one pause of A of at least 300ms and
// clients A and B: the rest goes, and the pause shrinks close to its bound.
TEST(Shrink, DropsWhatIsNotNeededAndShortensTowardTheBound) {
  ojson doc = ojson::parse(R"({
    "duration": "1m",
    "clients": [
      {"name": "A", "start": "1s", "hold": "2s", "iterations": 3},
      {"name": "B", "start": "2s", "hold": "2s", "iterations": 2},
      {"name": "C", "start": "3s", "hold": "2s"}
    ],
    "faults": [
      {"type": "clock", "process": "C", "offset": "+5s", "at": "0s"},
      {"type": "pause", "process": "A", "duration": "10s", "at": "1s"},
      {"type": "pause", "process": "B", "duration": "10s", "at": "1s"}
    ]
  })");
  auto keeps = [](const ojson& d) {
    bool a = false, b = false;
    for (const ojson& c : d["clients"]) {
      a = a || c["name"] == "A";
      b = b || c["name"] == "B";
    }
    for (const ojson& f : d["faults"]) {
      std::string error;
      if (f["type"] == "pause" && f["process"] == "A" &&
          *ParseDuration(f["duration"].get<std::string>(), &error) >=
              std::chrono::milliseconds(300)) {
        return a && b;
      }
    }
    return false;
  };
  ShrinkStats stats;
  const ojson small = Shrink(doc, keeps, 500, &stats);
  ASSERT_TRUE(keeps(small));
  EXPECT_EQ(small["clients"].size(), 2u);
  ASSERT_EQ(small["faults"].size(), 1u);
  EXPECT_EQ(small["faults"][0]["process"], "A");
  // Bisection stops within 1/16 of the bound.
  std::string error;
  const Nanos pause = *ParseDuration(small["faults"][0]["duration"].get<std::string>(), &error);
  EXPECT_GE(pause, std::chrono::milliseconds(300));
  EXPECT_LE(pause, std::chrono::milliseconds(300) * 17 / 16);
  EXPECT_EQ(small["faults"][0]["at"], "0ns");
  EXPECT_EQ(small["duration"], "1ms");
  for (const ojson& c : small["clients"]) EXPECT_EQ(c["iterations"], 1);
  EXPECT_LE(stats.runs, 500);
  EXPECT_GT(stats.accepted, 0);
}

// A shrunk run ends just past its violation; with a slack (real servers)
// it is lengthened again by that much, never past its original length.
TEST(Shrink, GivesTheRunItsSlackBackUpToItsOriginalLength) {
  using std::chrono::milliseconds;
  const ojson doc = ojson::parse(R"({"duration": "1m", "clients": [{"name": "A", "hold": "5s"}]})");
  auto duration_of = [](const ojson& d) {
    std::string error;
    return *ParseDuration(d["duration"].get<std::string>(), &error);
  };
  // The violation shows in a run of 20.6 s or more.
  auto keeps = [&](const ojson& d) { return duration_of(d) >= milliseconds(20600); };
  const Nanos edge = duration_of(Shrink(doc, keeps, 500, nullptr));
  EXPECT_GE(edge, milliseconds(20600));
  EXPECT_LE(edge, milliseconds(20600) * 17 / 16);
  EXPECT_EQ(duration_of(Shrink(doc, keeps, 500, nullptr, std::chrono::seconds(5))),
            edge + std::chrono::seconds(5));
  EXPECT_EQ(duration_of(Shrink(doc, keeps, 500, nullptr, std::chrono::seconds(50))),
            std::chrono::minutes(1));
}

// With an edge margin (real servers), a duration a binary search took to
// within a step of its edge is moved back from it by the margin, when that
// still shows the violation; not past its original value, and not when the
// moved value no longer shows it.
TEST(Shrink, MovesASearchedDurationBackFromItsEdge) {
  using std::chrono::milliseconds;
  const ojson doc = ojson::parse(R"({"duration": "1m",
    "clients": [{"name": "A", "hold": "5s"}, {"name": "B", "start": "4s", "hold": "5s"}]})");
  auto start_of_b = [](const ojson& d) {
    std::string error;
    return *ParseDuration(d["clients"][1]["start"].get<std::string>(), &error);
  };
  // The violation needs B to start at least 1 s in (after A's acquisition);
  // in the second predicate, not between 1.3 s and 1.9 s.
  auto after = [&](const ojson& d) {
    return d["clients"].size() == 2 && start_of_b(d) >= milliseconds(1000);
  };
  auto within = [&](const ojson& d) {
    return after(d) && (start_of_b(d) <= milliseconds(1300) || start_of_b(d) >= milliseconds(1900));
  };
  const Nanos edge = start_of_b(Shrink(doc, after, 500, nullptr));
  EXPECT_GE(edge, milliseconds(1000));
  EXPECT_LE(edge, milliseconds(1000) * 17 / 16);
  ShrinkStats stats;
  EXPECT_EQ(start_of_b(Shrink(doc, after, 500, &stats, Nanos{0}, milliseconds(500))),
            edge + milliseconds(500));
  EXPECT_EQ(start_of_b(Shrink(doc, after, 500, nullptr, Nanos{0}, std::chrono::seconds(10))),
            std::chrono::seconds(4));  // its original
  // Moved back by the margin, B's start would no longer show it: the edge.
  EXPECT_EQ(start_of_b(Shrink(doc, within, 500, nullptr)), edge);
  EXPECT_EQ(start_of_b(Shrink(doc, within, 500, nullptr, Nanos{0}, milliseconds(500))), edge);
  // The budget spent, the margin's run is still made (and counted).
  ShrinkStats tight;
  const Nanos cut = start_of_b(Shrink(doc, after, 8, &tight, Nanos{0}, milliseconds(500)));
  EXPECT_GT(tight.runs, 8);
  EXPECT_TRUE(after(Shrink(doc, after, 8, nullptr, Nanos{0}, milliseconds(500))));
  EXPECT_GT(cut, milliseconds(1000));
}

TEST(Shrink, StopsAtTheBudget) {
  ojson doc = ojson::parse(R"({"duration": "1m", "clients": [{"name": "A", "hold": "5s"}]})");
  int calls = 0;
  ShrinkStats stats;
  Shrink(doc, [&](const ojson&) { ++calls; return false; }, 3, &stats);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(stats.runs, 3);
  EXPECT_EQ(stats.accepted, 0);
}

}  // namespace
}  // namespace locksim

namespace locksim {
namespace {

// With a sink, findings arrive in seed order whatever the number of
// workers, and the result keeps none of them (memory stays flat). Each
// first reaches the sink's at_once, on its worker's thread, before its turn
// in order.
TEST(Explore, ASinkGetsTheFindingsInSeedOrderAndTheResultKeepsNone) {
  const ExploreSpec spec = MakeExploreSpec("set-nx-px-del", ParseFaultClasses("pause", "--faults"));
  SeedPlan plan;
  plan.count = 60;
  std::vector<uint64_t> seeds;
  std::mutex mu;  // at_once is called from both workers
  std::set<uint64_t> at_once;
  bool at_once_first = true;
  const ExploreResult r = RunExplore(
      spec, plan, 2, nullptr, nullptr,
      FindingSink{[&](const Finding& f) {
                    const std::lock_guard<std::mutex> lock(mu);
                    at_once.insert(f.seed);
                  },
                  [&](Finding&& f) {
                    const std::lock_guard<std::mutex> lock(mu);
                    at_once_first = at_once_first && at_once.contains(f.seed);
                    seeds.push_back(f.seed);
                  }});
  EXPECT_TRUE(r.findings.empty());
  ASSERT_FALSE(seeds.empty());
  EXPECT_EQ(r.violating, static_cast<int64_t>(seeds.size()));
  EXPECT_TRUE(std::is_sorted(seeds.begin(), seeds.end()));
  EXPECT_TRUE(at_once_first);
  EXPECT_EQ(std::vector<uint64_t>(at_once.begin(), at_once.end()), seeds);
  // The same seeds as a run that keeps them.
  const ExploreResult kept = RunExplore(spec, plan, 1, nullptr, nullptr);
  std::vector<uint64_t> kept_seeds;
  for (const Finding& f : kept.findings) kept_seeds.push_back(f.seed);
  EXPECT_EQ(seeds, kept_seeds);
}

// SummaryWriter, fed the findings one by one, writes the same bytes as
// SummaryJson of the whole result, and each finding's file.
TEST(Explore, TheStreamingSummaryIsTheWholeSummaryByteForByte) {
  const ExploreSpec spec = MakeExploreSpec("set-nx-px-del", ParseFaultClasses("pause", "--faults"));
  SeedPlan plan;
  plan.count = 40;
  const ExploreResult r = RunExplore(spec, plan, 2, nullptr, nullptr);
  ASSERT_GT(r.findings.size(), 1u);
  // Several kinds, each with several seeds, so that each kind's seeds
  // (spooled, not kept) are seen to come back under the right kind.
  const nlohmann::ordered_json kinds = SummaryJson(r)["kinds"];
  ASSERT_GT(kinds.size(), 1u);
  EXPECT_GT(kinds[0]["seeds"].size(), 1u);
  // Each kind lists exactly the seeds of its findings, as many as its count.
  for (const auto& kind : kinds) {
    std::vector<uint64_t> expected;
    for (const Finding& f : r.findings) {
      if (f.kind == kind["kind"].get<std::string>()) expected.push_back(f.seed);
    }
    EXPECT_EQ(kind["seeds"].get<std::vector<uint64_t>>(), expected) << kind["kind"];
    EXPECT_EQ(kind["count"].get<size_t>(), expected.size()) << kind["kind"];
  }
  const TempDir tmp("locksim-summary-writer");  // removed however the test ends
  const std::string dir = tmp.path;
  std::filesystem::create_directories(dir + "/findings");
  {
    SummaryWriter writer(dir);
    for (const Finding& f : r.findings) writer.Add(f, f.text);
    writer.Finish(r);
  }
  std::ifstream in(dir + "/summary.json");
  const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(written, SummaryJson(r).dump(2) + "\n");
  std::ifstream finding(dir + "/" + r.findings[0].file);
  const std::string text((std::istreambuf_iterator<char>(finding)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, r.findings[0].text);
  EXPECT_FALSE(std::filesystem::exists(dir + "/.summary-findings.part"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/.summary-seeds.part"));
  // No finding: "findings": [] as nlohmann writes an empty array.
  ExploreResult none = r;
  none.findings.clear();
  none.violating = 0;
  {
    SummaryWriter writer(dir);
    writer.Finish(none);
  }
  std::ifstream empty(dir + "/summary.json");
  const std::string written_empty((std::istreambuf_iterator<char>(empty)),
                                  std::istreambuf_iterator<char>());
  EXPECT_EQ(written_empty, SummaryJson(none).dump(2) + "\n");
}

}  // namespace
}  // namespace locksim

namespace locksim {
namespace {

// Every documented failure a fault class can cause is reachable by search
// given only the algorithm and the classes (docs/explore.md's table,
// bench/findings_table.py): a finding of its kind, no bigger than its
// story in scenarios/, within a budget of seeds about twice the first one.
struct DocumentedFailure {
  const char* failure;
  const char* algorithm;
  const char* faults;
  uint64_t seeds;
  std::vector<std::string> tokens;  // all in the finding's
  std::vector<std::string> classes;
  int64_t max_clients;
  int64_t max_faults;
};

// gtest prints a parameter without a printer as its bytes, which ctest
// takes into the test's name.
void PrintTo(const DocumentedFailure& d, std::ostream* out) {
  *out << d.failure << " " << d.algorithm << " " << d.faults;
}

class SearchFinds : public testing::TestWithParam<DocumentedFailure> {};

TEST_P(SearchFinds, TheDocumentedFailure) {
  const DocumentedFailure& d = GetParam();
  const ExploreResult r = Explore(d.algorithm, d.faults, d.seeds);
  const auto it = std::find_if(r.findings.begin(), r.findings.end(), [&](const Finding& f) {
    return std::all_of(d.tokens.begin(), d.tokens.end(),
                       [&](const std::string& t) { return Has(f.violations, t); }) &&
           f.fault_classes == d.classes && f.clients <= d.max_clients &&
           f.fault_count <= d.max_faults;
  });
  ASSERT_NE(it, r.findings.end()) << d.failure << " not found in " << d.seeds << " seeds";
  const RunResult again = Replay(*it, d.algorithm);
  EXPECT_EQ(VerdictName(again.verdict()), it->verdict);
  EXPECT_EQ(again.ExpectationMet(), std::optional<bool>(true));
}

INSTANTIATE_TEST_SUITE_P(
    Catalogue, SearchFinds,
    testing::Values(
        DocumentedFailure{"F1", "set-nx-px", "pause", 10, {"mutual-exclusion"}, {"pause"}, 2, 1},
        DocumentedFailure{"F2", "set-nx-px-del", "pause", 20, {"foreign-write-DEL"}, {"pause"}, 3, 1},
        DocumentedFailure{"F3", "setnx-simple", "client-crash", 80, {"deadlock"}, {"client-crash"}, 2, 1},
        DocumentedFailure{"F4", "getset-timestamp", "client-clock", 10, {"foreign-write-GETSET"}, {"client-clock"}, 2, 1},
        DocumentedFailure{"F5", "getset-timestamp", "pause", 10, {"foreign-write-GETSET"}, {"pause"}, 3, 3},
        DocumentedFailure{"F6", "getset-timestamp", "pause", 150, {"foreign-write-DEL"}, {"pause"}, 2, 1},
        DocumentedFailure{"F7", "set-nx-px", "failover", 30, {"mutual-exclusion"}, {"failover"}, 2, 2},
        DocumentedFailure{"F8", "redlock", "node-crash", 1000, {"mutual-exclusion"}, {"node-crash"}, 2, 2},
        DocumentedFailure{"F9", "redlock", "node-clock", 200, {"mutual-exclusion"}, {"node-clock"}, 2, 2},
        DocumentedFailure{"F10", "set-nx-px", "pause", 80, {"late-entry", "mutual-exclusion"}, {"pause"}, 2, 1},
        DocumentedFailure{"F11", "watch-multi", "none", 30, {"degraded"}, {}, 8, 0},
        DocumentedFailure{"F12", "setnx-expire", "none", 20, {"mutual-exclusion"}, {}, 2, 0},
        DocumentedFailure{"F14", "set-nx-px-del", "none", 30, {"mutual-exclusion"}, {}, 2, 0},
        DocumentedFailure{"F15", "rate-limit-naive", "client-crash", 200, {"counter-without-ttl"}, {"client-crash"}, 2, 1}),
    [](const testing::TestParamInfo<DocumentedFailure>& info) {
      return std::string(info.param.failure);
    });

// A lock that survives a class gives no finding of it: set-nx-px's
// compare-and-delete never deletes another's lock, whatever the pauses.
TEST(Explore, SetNxPxNeverDeletesAnotherHoldersLock) {
  const ExploreResult r = Explore("set-nx-px", "pause", 200);
  for (const Finding& f : r.findings) EXPECT_FALSE(HasForeignWrite(f)) << f.kind;
}

// Rate limiters are explored against their own invariant: the Lua one,
// INCR and EXPIRE in one script, never loses the counter's TTL to a crash.
TEST(Explore, ALuaLimiterNeverLosesItsCountersTtl) {
  const ExploreResult r = Explore("rate-limit-lua", "client-crash", 200);
  for (const Finding& f : r.findings) {
    EXPECT_FALSE(Has(f.violations, "counter-without-ttl")) << f.kind;
  }
}

}  // namespace
}  // namespace locksim
