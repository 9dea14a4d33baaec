// The compare results and the writers that draw them: results.json,
// report.html (matrix and SVG timelines), summary.md, junit.xml, the
// terminal table, and the liveness figures read from a history.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>

#include "sim/check/acquisition_stats.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "reports/report_text.h"
#include "reports/compare_json.h"
#include "reports/run_json.h"
#include "reports/svg_timeline.h"
#include "reports/terminal_table.h"
#include "reports/xml_escape.h"
#include "sim/result/compare_result.h"
#include "sim/run/compare.h"
#include "sim/run/runner.h"
#include "sim/check/checker.h"
#include "sim/core/errors.h"
#include "tests/testing/scenario_paths.h"

namespace locksim {
namespace {

using ojson = nlohmann::ordered_json;
using std::chrono::milliseconds;

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

// One comparison shared by the tests: F1 with a lock that breaks and one
// that does not, plus the rate limiter scenario (limiter cells and skipped
// cells).
const CompareResult& SmallCompare() {
  static const CompareResult* result = [] {
    CompareOptions o;
    o.algorithms = {"set-nx-px", "setnx-simple", "rate-limit-lua"};
    o.scenario_paths = {ScenarioPath("f01-pause-past-ttl"), ScenarioPath("w05-rate-limit")};
    return new CompareResult(RunCompare(o));
  }();
  return *result;
}

const ojson& SmallJson() {
  static const ojson* j = new ojson(CompareToJson(SmallCompare()));
  return *j;
}

TEST(AcquisitionStats, LatencyCommandsAndRetriesComeFromTheHistory) {
  History h;
  const int a = h.AddActor("A");
  const int b = h.AddActor("B");
  h.AddStep(Nanos(0), a, OpType::kInvoke, OpF::kAcquire, "lock:x");
  h.AddCommand(Nanos(0), a, 0, {"SET", "lock:x", "t", "NX", "PX", "5000"});
  h.AddReply(Nanos(10), a, OpType::kOk, 0, Reply::Ok());
  h.AddStep(Nanos(10), a, OpType::kOk, OpF::kAcquire, "lock:x");
  h.AddStep(Nanos(5), b, OpType::kInvoke, OpF::kAcquire, "lock:x");
  for (int i = 0; i < 3; ++i) {  // two retries (any case), each with a GET in between
    h.AddCommand(Nanos(5 + i), b, 0, {i == 1 ? "set" : "SET", "lock:x", "u", "NX", "PX", "5000"});
    h.AddCommand(Nanos(5 + i), b, 0, {"GET", "lock:x"});
  }
  h.AddStep(Nanos(105), b, OpType::kOk, OpF::kAcquire, "lock:x");
  h.AddStep(Nanos(200), b, OpType::kInvoke, OpF::kAcquire, "lock:x");
  h.AddStep(Nanos(300), b, OpType::kFail, OpF::kAcquire, "lock:x");

  AcquisitionStats s = ComputeAcquisitionStats(h, Nanos(1'000'000'000));
  EXPECT_EQ(s.acquisitions, 2);
  EXPECT_EQ(s.failed_acquisitions, 1);
  EXPECT_EQ(s.commands, 7);
  EXPECT_EQ(s.repeated_commands, 2);
  std::vector<int64_t> latencies = s.latencies;  // in no particular order
  std::sort(latencies.begin(), latencies.end());
  EXPECT_EQ(latencies, (std::vector<int64_t>{10, 100}));
  ojson j = StatsToJson(s);
  EXPECT_EQ(j["latency_p50"], 10);
  EXPECT_EQ(j["latency_p99"], 100);
  EXPECT_EQ(j["retries_per_acquisition"], 1.0);
  EXPECT_EQ(j["commands_per_acquisition"], 3.5);
  EXPECT_EQ(j["throughput_per_s"], 2.0);
}

// A retry that is the very command sent first shares its stored bytes (one
// slot in the history): still counted only on the same node. EVALSHA of the
// script an EVAL sent is the same command.
TEST(AcquisitionStats, ARetryIsTheFirstCommandAgainOnTheSameNode) {
  History h;
  const int a = h.AddActor("A");
  const Command set = {"SET", "lock:x", "t", "NX", "PX", "5000"};
  h.AddStep(Nanos(0), a, OpType::kInvoke, OpF::kAcquire, "lock:x");
  h.AddCommand(Nanos(0), a, 0, set);
  h.AddCommand(Nanos(1), a, 0, set);  // a retry: the bytes stored once
  h.AddCommand(Nanos(2), a, 1, set);  // the same bytes, to another node: not one
  h.AddCommand(Nanos(3), a, 0, set);
  h.AddStep(Nanos(4), a, OpType::kOk, OpF::kAcquire, "lock:x");
  h.AddStep(Nanos(5), a, OpType::kInvoke, OpF::kAcquire, "lock:x");
  h.AddCommand(Nanos(5), a, 0, {"EVAL", "return 1", "1", "lock:x"});
  const std::string sha = "e0e1f9fabfc9d4800c877a703b823ac0578ff8db";  // of "return 1"
  h.AddCommand(Nanos(6), a, 0, {"evalsha", sha, "1", "lock:x"});
  h.AddStep(Nanos(7), a, OpType::kOk, OpF::kAcquire, "lock:x");

  const AcquisitionStats s = ComputeAcquisitionStats(h, Nanos(1'000'000'000));
  EXPECT_EQ(s.acquisitions, 2);
  EXPECT_EQ(s.commands, 6);
  EXPECT_EQ(s.repeated_commands, 3);
}

// Runs pooled in any order give the figures of all their latencies
// together: Merge keeps the values unsorted, StatsToJson selects from them.
TEST(AcquisitionStats, PooledRunsGiveThePercentilesOfAllTheirLatencies) {
  AcquisitionStats pooled;
  for (int64_t first : {70, 30, 100, 10}) {
    AcquisitionStats run;
    run.acquisitions = 25;
    run.simulated = Nanos(1'000'000'000);
    for (int64_t i = 0; i < 25; ++i) run.latencies.push_back(first - i);
    pooled.Merge(run);
  }
  ASSERT_EQ(pooled.latencies.size(), 100u);
  ojson j = StatsToJson(pooled);
  // The 100 values are -14..10, 6..30, 46..70 and 76..100.
  EXPECT_EQ(j["latency_p50"], 30);
  EXPECT_EQ(j["latency_p99"], 99);
  EXPECT_EQ(j["latency_max"], 100);
  EXPECT_EQ(j["throughput_per_s"], 25.0);
}

TEST(AcquisitionStats, NoAcquisitionGivesNullFigures) {
  History h;
  ojson j = StatsToJson(ComputeAcquisitionStats(h, Nanos(0)));
  EXPECT_EQ(j["acquisitions"], 0);
  EXPECT_TRUE(j["latency_p50"].is_null());
  EXPECT_TRUE(j["throughput_per_s"].is_null());
}

TEST(AcquisitionStats, PercentileIsNearestRankOfValuesInAnyOrder) {
  std::vector<int64_t> v;
  for (int i = 1; i <= 100; ++i) v.push_back((i * 37) % 100 + 1);  // 1..100, shuffled
  EXPECT_EQ(Percentile(&v, 50), 50);
  EXPECT_EQ(Percentile(&v, 99), 99);
  EXPECT_EQ(Percentile(&v, 100), 100);
  EXPECT_EQ(Percentile(&v, 1), 1);
  std::vector<int64_t> one = {7};
  EXPECT_EQ(Percentile(&one, 50), 7);
  EXPECT_EQ(Percentile(&one, 99), 7);
  EXPECT_EQ(Percentile(&one, 100), 7);
  std::vector<int64_t> none;
  EXPECT_EQ(Percentile(&none, 50), 0);
  // StatsToJson's figures are these.
  AcquisitionStats s;
  s.acquisitions = 1;
  s.latencies = {7};
  const ojson j = StatsToJson(s);
  EXPECT_EQ(j["latency_p50"], 7);
  EXPECT_EQ(j["latency_p99"], 7);
  EXPECT_EQ(j["latency_max"], 7);
}

TEST(Compare, TheWorstVerdictOfTheSeedsIsTheCells) {
  CompareCell c;
  EXPECT_EQ(c.Worst(), std::nullopt);
  EXPECT_EQ(c.VerdictText(), "skipped");
  c.runs = {CellRun{1, Verdict::kSafe, 0, true}, CellRun{2, Verdict::kDegraded, 0, true},
            CellRun{3, Verdict::kDeadlock, 0, false}, CellRun{4, Verdict::kSafe, 0, std::nullopt}};
  EXPECT_EQ(c.Worst(), Verdict::kDeadlock);
  EXPECT_EQ(c.VerdictText(), "deadlock");
  EXPECT_EQ(c.ExpectationMet(), false);
  c.runs.push_back(CellRun{5, Verdict::kViolated, 1, true});
  EXPECT_EQ(c.Worst(), Verdict::kViolated);
  // violated > deadlock > degraded > safe, each strictly.
  EXPECT_EQ(VerdictRank(Verdict::kSafe), 0);
  EXPECT_EQ(VerdictRank(Verdict::kDegraded), 1);
  EXPECT_EQ(VerdictRank(Verdict::kDeadlock), 2);
  EXPECT_EQ(VerdictRank(Verdict::kViolated), 3);
}

TEST(Compare, VerdictsAndKindsReadBackFromTheirNames) {
  for (Verdict v : {Verdict::kSafe, Verdict::kDegraded, Verdict::kDeadlock, Verdict::kViolated}) {
    EXPECT_EQ(ParseVerdict(VerdictName(v)), v);
  }
  EXPECT_EQ(VerdictName(Verdict::kViolated), "violated");
  EXPECT_EQ(ParseVerdict("mystery"), std::nullopt);
  EXPECT_EQ(ParseViolationKind("foreign-write"), ViolationKind::kForeignWrite);
  EXPECT_EQ(ViolationKindName(ViolationKind::kMutualExclusion), "mutual-exclusion");
  EXPECT_EQ(ParseViolationKind("Foreign-Write"), std::nullopt);
}

TEST(Compare, CellsAreScenarioTimesAlgorithmWithLimitersKeptApart) {
  const CompareResult& r = SmallCompare();
  ASSERT_EQ(r.cells.size(), 6u);
  EXPECT_EQ(r.cells[0].algorithm, "set-nx-px");
  EXPECT_EQ(r.cells[0].Worst(), Verdict::kViolated);
  EXPECT_EQ(r.cells[0].ExpectationMet(), true);
  EXPECT_TRUE(r.cells[0].counterexample.has_value());
  EXPECT_EQ(r.cells[1].Worst(), Verdict::kSafe);
  EXPECT_FALSE(r.cells[1].counterexample.has_value());
  EXPECT_EQ(r.cells[2].Worst(), std::nullopt);  // rate-limit-lua on a lock scenario
  EXPECT_EQ(r.cells[3].Worst(), std::nullopt);  // set-nx-px on the limiter's
  EXPECT_EQ(r.cells[5].Worst(), Verdict::kSafe);
}

TEST(Compare, UnknownAlgorithmNamesTheOption) {
  CompareOptions o;
  o.algorithms = {"nope"};
  o.scenario_paths = {ScenarioPath("f01-pause-past-ttl")};
  try {
    RunCompare(o);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--algorithms: unknown algorithm \"nope\""),
              std::string::npos);
  }
}

TEST(ResultsJson, IsVersionedAndByteIdenticalAcrossRuns) {
  const ojson& j = SmallJson();
  EXPECT_EQ(j["schema"], "locksim-compare");
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_FALSE(j.contains("search"));  // only with compare --search
  EXPECT_EQ(j["summary"]["run"], 3);
  EXPECT_EQ(j["summary"]["skipped"], 3);
  EXPECT_EQ(j["summary"]["by_verdict"]["violated"], 1);
  EXPECT_EQ(j["summary"]["as_expected"], 3);
  const ojson& cell = j["cells"][0];
  EXPECT_EQ(cell["id"], "f01-pause-past-ttl--set-nx-px");
  EXPECT_EQ(cell["overlaps"], ojson::array({"A/B"}));
  EXPECT_TRUE(cell["expected"]["met"].get<bool>());
  EXPECT_TRUE(cell["counterexample"].contains("history"));
  EXPECT_EQ(cell["figures"]["acquisitions"], 2);
  EXPECT_EQ(j["variants"][0]["algorithm"], "set-nx-px");

  CompareOptions o;
  o.algorithms = {"set-nx-px", "setnx-simple", "rate-limit-lua"};
  o.scenario_paths = {ScenarioPath("f01-pause-past-ttl"), ScenarioPath("w05-rate-limit")};
  EXPECT_EQ(CompareToJson(RunCompare(o)).dump(2), j.dump(2));
}

// A history longer than the bound is listed without its Redis commands,
// and at most the bound's number of operations, with the count left out
// and a note that says so; within it, whole and with no note.
TEST(ResultsJson, ALongHistoryIsListedWithoutItsCommandsAndSaysSo) {
  RunOptions o;
  o.algorithm = "set-nx-px";
  const RunResult r = RunScenario(LoadScenario(ScenarioPath("f01-pause-past-ttl")), o);
  const size_t total = r.history.size();
  size_t lock_ops = 0;
  for (const Op& op : r.history.ops()) lock_ops += op.f != OpF::kRedis && op.f != OpF::kAdapter;
  ASSERT_LT(lock_ops, total);

  const ojson whole = ResultToJson(r, true, total);
  EXPECT_EQ(whole["history"].size(), total);
  EXPECT_FALSE(whole.contains("history_omitted"));
  EXPECT_FALSE(whole.contains("history_note"));

  const ojson lanes = ResultToJson(r, true, total - 1);
  ASSERT_EQ(lanes["history"].size(), lock_ops);
  for (const ojson& op : lanes["history"]) EXPECT_NE(op["f"], "redis");
  EXPECT_EQ(lanes["history_omitted"], total - lock_ops);
  EXPECT_NE(lanes["history_note"].get<std::string>().find("without its Redis commands"),
            std::string::npos);
  EXPECT_EQ(lanes["history_note"].get<std::string>().find("up to"), std::string::npos);
  EXPECT_FALSE(lanes.contains("history_until"));  // every lane op is there

  const ojson first = ResultToJson(r, true, 5);
  ASSERT_EQ(first["history"].size(), 5u);
  EXPECT_EQ(first["history_omitted"], total - 5);
  EXPECT_NE(first["history_note"].get<std::string>().find("up to"), std::string::npos);
  EXPECT_EQ(first["history"][4], lanes["history"][4]);
  EXPECT_EQ(first["history_until"], first["history"][4]["time"]);
}

TEST(ResultsJson, ParseRoundTripsAndNamesWhatIsWrong) {
  const std::string text = SmallJson().dump(2);
  EXPECT_EQ(ParseResultsJson(text, "r.json"), SmallJson());
  auto message = [](const std::string& t) {
    try {
      ParseResultsJson(t, "r.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("{").find("r.json: not JSON"), std::string::npos);
  EXPECT_NE(message(R"({"schema": "other"})").find("r.json: $.schema: expected"),
            std::string::npos);
  ojson j = SmallJson();
  j["schema_version"] = 99;
  EXPECT_NE(message(j.dump()).find("$.schema_version: this locksim reads versions 1 to 2, got 99"),
            std::string::npos);
  // A version 1 file (before the search section) is still read.
  j = SmallJson();
  j["schema_version"] = 1;
  EXPECT_NO_THROW(ParseResultsJson(j.dump(), "r.json"));
  j = SmallJson();
  j["cells"][1].erase("verdict");
  EXPECT_NE(message(j.dump()).find("r.json: $.cells[1].verdict: missing"), std::string::npos);
}

TEST(HtmlReport, HasTheMatrixLinksEveryFailedCellAndDrawsItsTimeline) {
  const std::string html = RenderHtmlReport(SmallJson());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<table class=\"matrix\""), std::string::npos);
  EXPECT_NE(html.find("href=\"#cell-f01-pause-past-ttl--set-nx-px\""), std::string::npos);
  EXPECT_NE(html.find("id=\"cell-f01-pause-past-ttl--set-nx-px\""), std::string::npos);
  EXPECT_EQ(Count(html, "<svg class=\"timeline\""), 1u);
  EXPECT_NE(html.find("VIOLATED 1"), std::string::npos);
  EXPECT_NE(html.find("class=\"v-safe\""), std::string::npos);
  EXPECT_NE(html.find("A and B both held lock:resource"), std::string::npos);
  // Self-contained: no script, nothing fetched.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
}

// A storm's counterexample lists the violations the run explains, then
// how many more results.json has: not a page of 10^5 list items.
TEST(HtmlReport, ListsTheExplainedViolationsAndCountsTheRest) {
  ojson j = SmallJson();
  ojson* violations = nullptr;
  for (ojson& c : j["cells"]) {
    if (c.contains("counterexample") && !c["counterexample"]["violations"].empty()) {
      violations = &c["counterexample"]["violations"];
      break;
    }
  }
  ASSERT_NE(violations, nullptr);
  const ojson first = (*violations)[0];
  violations->clear();
  for (size_t i = 0; i < kExplainedViolations + 50; ++i) {
    ojson v = first;
    v["text"] = "storm violation " + std::to_string(i);
    violations->push_back(v);
  }
  const std::string html = RenderHtmlReport(j);
  EXPECT_EQ(Count(html, "<li>storm violation "), kExplainedViolations);
  EXPECT_NE(html.find("<li>storm violation 99</li>"), std::string::npos);
  EXPECT_EQ(html.find("<li>storm violation 100</li>"), std::string::npos);
  EXPECT_NE(html.find("<li>... and 50 more in results.json</li>"), std::string::npos);
}

// The matrix's lookups: each cell by scenario and algorithm (the first of
// a pair listed twice), and a scenario's cells in results.json's order.
TEST(CellIndex, FindsACellByScenarioAndAlgorithmAndAScenariosCellsInOrder) {
  const ojson r = {{"cells",
                    {{{"scenario", "s1"}, {"algorithm", "a"}, {"n", 1}},
                     {{"scenario", "s2"}, {"algorithm", "a"}, {"n", 2}},
                     {{"scenario", "s1"}, {"algorithm", "b"}, {"n", 3}},
                     {{"scenario", "s1"}, {"algorithm", "a"}, {"n", 4}}}}};
  const CellIndex cells(r);
  for (const auto& [scenario, algorithm, n] :
       {std::tuple("s1", "a", 1), std::tuple("s1", "b", 3), std::tuple("s2", "a", 2)}) {
    const ojson* c = cells.Find(scenario, algorithm);
    ASSERT_NE(c, nullptr) << scenario << " " << algorithm;
    EXPECT_EQ((*c)["n"], n) << scenario << " " << algorithm;
  }
  EXPECT_EQ(cells.Find("s2", "b"), nullptr);
  EXPECT_EQ(cells.Find("s3", "a"), nullptr);
  std::vector<int> of_s1;
  for (const ojson* c : cells.OfScenario("s1")) of_s1.push_back((*c)["n"].get<int>());
  EXPECT_EQ(of_s1, (std::vector<int>{1, 3, 4}));
  EXPECT_TRUE(cells.OfScenario("s3").empty());
}

TEST(HtmlReport, UnknownVerdictsGetTheNeutralColour) {
  ojson j = SmallJson();
  j["cells"][1]["verdict"] = "starved";
  const std::string html = RenderHtmlReport(j);
  EXPECT_NE(html.find("<td class=\"v-other\"><span class=\"cell\""), std::string::npos);
  EXPECT_NE(html.find("STARVED"), std::string::npos);
}

TEST(HtmlReport, EscapesWhatItQuotes) {
  ojson j = SmallJson();
  j["scenarios"][0]["description"] = "<b>\"x\" & 'y'</b>";
  const std::string html = RenderHtmlReport(j);
  EXPECT_EQ(html.find("<b>\"x\""), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;"), std::string::npos);
}

// A run as the lead's history will record it: node state ops, faults other
// than pause, threads of a process.
ojson HandMadeRun() {
  auto op = [](int64_t i, int64_t t, const std::string& p, const std::string& type,
               const std::string& f, const std::string& value) {
    return ojson{{"index", i}, {"time", t}, {"process", p}, {"type", type}, {"f", f},
                 {"value", value}};
  };
  const int64_t s = 1'000'000'000;
  ojson h = ojson::array();
  h.push_back(op(0, 0, "A.1", "invoke", "acquire", "lock:x"));
  h.push_back(op(1, 1 * s, "A.1", "ok", "acquire", "lock:x"));
  h.push_back(op(2, 1 * s, "redis0", "info", "state", "lock:x = \"tok-A\" pttl 5000"));
  h.push_back(op(3, 1 * s, "A.1", "invoke", "cs", "lock:x"));
  h.push_back(op(4, 2 * s, "nemesis", "info", "pause", "A for 8s"));
  h.push_back(op(5, 3 * s, "nemesis", "info", "crash", "redis0"));
  h.push_back(op(6, 3 * s, "redis0", "info", "state", "lock:x absent"));
  h.push_back(op(7, 4 * s, "B", "invoke", "acquire", "lock:x"));
  h.push_back(op(8, 4 * s, "B", "ok", "acquire", "lock:x"));
  h.push_back(op(9, 4 * s, "B", "invoke", "cs", "lock:x"));
  h.push_back(op(10, 4 * s, "redis0", "ok", "state", "lock:x = \"tok-B\" pttl 5000"));
  h.back()["subject"] = "B";
  h.push_back(op(11, 5 * s, "nemesis", "info", "clock", "redis0 +5s"));
  h.push_back(op(12, 10 * s, "nemesis", "info", "resume", "A"));
  h.push_back(op(13, 11 * s, "A.1", "ok", "cs", "lock:x"));
  h.push_back(op(14, 6 * s, "redis1", "ok", "state", "lock:x = {A.1: 1} no ttl"));
  h.push_back(op(15, 7 * s, "B", "invoke", "redis", "SET lock:y tok-B-123456 NX PX 5000"));
  h.push_back(op(16, 7 * s, "redis2", "ok", "state", "lock:y = \"tok-B-123456\" pttl 5000"));
  // What the text says, as run_json.cc writes it for the readers.
  auto state = [&](size_t i, const std::string& key, const ojson& value, const ojson& pttl) {
    h[i]["state"] = {{"key", key}, {"present", !value.is_null()}};
    if (!value.is_null()) h[i]["state"]["value"] = value;
    h[i]["state"]["pttl_ms"] = pttl;
  };
  state(2, "lock:x", "tok-A", 5000);
  h[4]["subject"] = "A";
  h[5]["subject"] = "redis0";
  state(6, "lock:x", nullptr, nullptr);
  state(10, "lock:x", "tok-B", 5000);
  h[11]["subject"] = "redis0";
  h[12]["subject"] = "A";
  state(14, "lock:x", ojson{{"A.1", "1"}}, nullptr);
  state(16, "lock:y", "tok-B-123456", 5000);
  h[16]["subject"] = "B";
  return ojson{{"scenario", "hand-made"},
               {"algorithm", "x"},
               {"violations",
                ojson::array({ojson{{"text", "A.1 and B both held lock:x"},
                                    {"overlap", {{"start", 4 * s}, {"end", 11 * s}}}},
                              ojson{{"kind", "foreign-write"},
                                    {"writer", "B"},
                                    {"overlap", {{"start", 4 * s}, {"end", 4 * s}}},
                                    {"state", {{"time", 4 * s}}}}})},
               {"liveness",
                {{"deadlock", true},
                 {"longest_stall", {{"start", 3 * s}, {"end", 4 * s}}},
                 {"text", "nobody held the lock for 1s"}}},
               {"stats", {{"end", 12 * s}}},
               {"history", h}};
}

TEST(SvgTimeline, DrawsLanesFaultsPausesNodeStateAndTheOverlap) {
  const std::string svg = RenderTimelineSvg(HandMadeRun(), "t1");
  EXPECT_EQ(svg.rfind("<svg class=\"timeline\"", 0), 0u);
  EXPECT_NE(svg.find(">A.1</text>"), std::string::npos);
  EXPECT_NE(svg.find(">B</text>"), std::string::npos);
  EXPECT_NE(svg.find(">redis0</text>"), std::string::npos);
  // A crashed node is down until it restarts (here: to the end).
  EXPECT_EQ(Count(svg, "<rect class=\"down\""), 1u);
  EXPECT_NE(svg.find("redis0 down (crashed), 3s \xE2\x86\x92 12s"), std::string::npos);
  // Faults the writer has never heard of are labelled markers.
  EXPECT_NE(svg.find(">crash redis0</text>"), std::string::npos);
  EXPECT_NE(svg.find(">clock redis0 +5s</text>"), std::string::npos);
  // The pause of process A hatches its thread's lane, not B's.
  EXPECT_EQ(Count(svg, "class=\"pause\""), 1u);
  EXPECT_NE(svg.find("fill=\"url(#hatch-t1)\""), std::string::npos);
  EXPECT_EQ(Count(svg, "class=\"overlap\""), 1u);
  // Two owners on redis0, the absent stretch left empty; the first lease's
  // TTL end (6s) falls after the crash, so only tok-B's (9s) shows there.
  EXPECT_EQ(Count(svg, "class=\"keyval\""), 4u);
  EXPECT_NE(svg.find(">tok-A</text>"), std::string::npos);
  EXPECT_EQ(Count(svg, "class=\"expiry\""), 2u);  // tok-B's at 9s, redis2's at 12s
  EXPECT_NE(svg.find("TTL runs out at 9s"), std::string::npos);
  EXPECT_NE(svg.find("TTL runs out at 12s"), std::string::npos);
  // Who wrote the key: the op's subject (redis0 and redis2), else the value
  // itself (tok-A); a hash value with no TTL.
  EXPECT_EQ(Count(svg, ">B</text>"), 3u);
  EXPECT_EQ(svg.find(">tok-B-123456</text>"), std::string::npos);
  EXPECT_NE(svg.find(">{A.1: 1}, no TTL</text>"), std::string::npos);
  // A violating write marked where it happened; the stall shaded.
  EXPECT_NE(svg.find(">foreign-write by B</text>"), std::string::npos);
  EXPECT_NE(svg.find("<rect class=\"stall\""), std::string::npos);
  EXPECT_NE(svg.find("nobody held the lock for 1s"), std::string::npos);
  // B's critical section is open at the end of the run: drawn to the end.
  EXPECT_NE(svg.find("B in the critical section, 4s \xE2\x86\x92 12s"), std::string::npos);
}

TEST(SvgTimeline, ACrashEndsWhatTheClientWasDoingUntilItRestarts) {
  const int64_t s = 1'000'000'000;
  ojson h = ojson::array();
  auto op = [&h](int64_t t, const std::string& p, const std::string& type, const std::string& f,
                 const std::string& v) {
    h.push_back(ojson{{"index", h.size()}, {"time", t}, {"process", p}, {"type", type},
                      {"f", f}, {"value", v}});
  };
  op(0, "C", "invoke", "acquire", "lock:x");
  op(2 * s, "nemesis", "info", "crash", "C");
  h.back()["subject"] = "C";
  op(5 * s, "nemesis", "info", "restart", "C");
  h.back()["subject"] = "C";
  const ojson run = {{"violations", ojson::array()}, {"stats", {{"end", 10 * s}}}, {"history", h}};
  const std::string svg = RenderTimelineSvg(run, "t2");
  EXPECT_NE(svg.find("C trying to acquire, 0s \xE2\x86\x92 2s"), std::string::npos) << svg;
  EXPECT_NE(svg.find("C down (crashed), 2s \xE2\x86\x92 5s"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">crash C</text>"), std::string::npos);
  EXPECT_NE(svg.find(">restart C</text>"), std::string::npos);
}

TEST(SvgTimeline, ShortDurations) {
  EXPECT_EQ(ShortDuration(0), "0s");
  EXPECT_EQ(ShortDuration(250'000'000), "250ms");
  EXPECT_EQ(ShortDuration(1'500'000'000), "1.5s");
  EXPECT_EQ(ShortDuration(90'000'000'000), "1m30s");
  EXPECT_EQ(ShortDuration(1'234), "1.23\xC2\xB5s");
}

TEST(MarkdownReport, MatrixRowPerVariantAndWhatFailed) {
  const std::string md = RenderMarkdownSummary(SmallJson());
  EXPECT_NE(md.find("| scenario | `set-nx-px` | `setnx-simple` | `rate-limit-lua` |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| f01-pause-past-ttl | **VIOLATED 1** \xE2\x9C\x93 | SAFE \xE2\x9C\x93 | n/a |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| w05-rate-limit | n/a | n/a | SAFE \xE2\x9C\x93 |"), std::string::npos) << md;
  EXPECT_NE(md.find("### What failed (1)"), std::string::npos);
  EXPECT_EQ(EscapeMarkdownCell("a|b\nc"), "a\\|b c");
}

TEST(JunitReport, OneCasePerCellViolationsFailLimiterMismatchesSkip) {
  const std::string xml = RenderJunit(SmallJson());
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 0), 0u);
  EXPECT_NE(xml.find("<testsuites name=\"locksim compare\" tests=\"6\" failures=\"1\" errors=\"0\" "
                     "skipped=\"3\""),
            std::string::npos);
  EXPECT_EQ(Count(xml, "<testcase "), 6u);
  EXPECT_NE(xml.find("<failure type=\"violated\" message=\"VIOLATED 1 (as expected): A and B both "
                     "held lock:resource"),
            std::string::npos);
  EXPECT_NE(xml.find("replay: locksim run "), std::string::npos);
  EXPECT_EQ(EscapeXml("a<b>&\"'\x01"), "a&lt;b&gt;&amp;&quot;&#39;\xEF\xBF\xBD");
}

TEST(TerminalTable, ShortHeadsAndColourOnlyWhenAsked) {
  const std::string plain = RenderTerminalTable(SmallJson(), false);
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
  EXPECT_NE(plain.find("variant         f01          w05"), std::string::npos) << plain;
  EXPECT_NE(plain.find("set-nx-px       VIOLATED 1   n/a"), std::string::npos) << plain;
  EXPECT_NE(plain.find("f01             f01-pause-past-ttl\n"), std::string::npos) << plain;
  EXPECT_NE(plain.find("3 of 3 expectations met"), std::string::npos);
  const std::string coloured = RenderTerminalTable(SmallJson(), true);
  EXPECT_NE(coloured.find("\x1b[1;31mVIOLATED 1"), std::string::npos);
}

// Every bundled scenario: wider than a terminal, and some cells run with
// their expectation's own faults.
TEST(TerminalTable, ShortLabelsWhenTheFullOnesWouldNotFit) {
  CompareOptions o;
  o.scenario_paths = {std::string(LOCKSIM_SOURCE_DIR) + "/scenarios"};
  const CompareResult result = RunCompare(o);
  const ojson j = CompareToJson(result);
  if (j["scenarios"].size() < 12) GTEST_SKIP() << "few scenarios: the full labels fit";
  const std::string table = RenderTerminalTable(j, false);
  EXPECT_NE(table.find("key: ok safe, Vn violated"), std::string::npos) << table;
  std::istringstream lines(table);
  std::string line;
  std::getline(lines, line);  // the heads
  EXPECT_LE(line.size(), 140u) << line;
  EXPECT_EQ(j["summary"]["not_as_expected"], 0) << RenderMarkdownSummary(j);
}

TEST(ReportText, LabelsAndNotes) {
  ojson c = {{"verdict", "violated"}, {"violations", 2},
             {"expected", {{"verdict", "safe"}, {"met", false}}}};
  EXPECT_EQ(CellLabel(c), "VIOLATED 2");
  EXPECT_TRUE(CellFailed(c));
  EXPECT_EQ(ExpectationNote(c), "expected safe");
  EXPECT_EQ(CellLabel(ojson{{"verdict", "skipped"}, {"skipped", "why"}}), "n/a");
  EXPECT_EQ(FigureText(ojson(1.5)), "1.5");
  EXPECT_EQ(FigureText(ojson(nullptr)), "\xE2\x80\x94");
  EXPECT_EQ(CellAnchor("a b--c/d"), "cell-a_b--c_d");
}

}  // namespace
}  // namespace locksim

namespace locksim {
namespace {

// No JSON Schema validator here: check instead that docs' schema names
// exactly the fields the writer emits, at the top, in a cell and in figures.
TEST(ResultsJson, TheDocumentedSchemaNamesEveryFieldWritten) {
  std::ifstream in(std::string(LOCKSIM_SOURCE_DIR) + "/docs/compare-results.schema.json");
  ASSERT_TRUE(in) << "docs/compare-results.schema.json";
  const ojson schema = ojson::parse(in);
  auto keys_match = [](const ojson& props, const ojson& object, const std::string& where) {
    for (const auto& [k, v] : object.items()) {
      EXPECT_TRUE(props.contains(k)) << where << "." << k << " is written but not in the schema";
    }
  };
  auto required_present = [](const ojson& required, const ojson& object, const std::string& where) {
    for (const ojson& k : required) {
      EXPECT_TRUE(object.contains(k.get<std::string>())) << where << "." << k << " is required";
    }
  };
  const ojson& j = SmallJson();
  keys_match(schema["properties"], j, "$");
  required_present(schema["required"], j, "$");
  const ojson& cell_schema = schema["$defs"]["cell"];
  for (const ojson& c : j["cells"]) {
    keys_match(cell_schema["properties"], c, "cell");
    required_present(cell_schema["required"], c, "cell");
  }
  keys_match(schema["$defs"]["figures"]["properties"], j["variants"][0]["figures"], "figures");
  required_present(schema["$defs"]["figures"]["required"], j["variants"][0]["figures"], "figures");
  keys_match(schema["$defs"]["scenario"]["properties"], j["scenarios"][0], "scenario");
  EXPECT_EQ(schema["properties"]["schema_version"]["const"], kCompareSchemaVersion);
}

}  // namespace
}  // namespace locksim
