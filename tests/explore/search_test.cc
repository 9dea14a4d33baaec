// The searched matrix (compare --search): a pure function of its
// arguments whatever --jobs is, examples that replay, the stories' classes,
// the disagreements, and the "search" section of results.json and of every
// report.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "reports/compare_json.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "reports/terminal_table.h"
#include "sim/core/errors.h"
#include "sim/explore/search.h"
#include "sim/run/compare.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "tests/testing/scenario_paths.h"

namespace locksim {
namespace {

using ojson = nlohmann::ordered_json;

SearchOptions Small(int jobs) {
  SearchOptions o;
  o.algorithms = {"set-nx-px", "redlock", "rate-limit-naive"};
  o.classes = {"none", "pause", "client-crash"};
  o.seeds = 30;
  o.jobs = jobs;
  return o;
}

const SearchResult& SmallSearch() {
  static const SearchResult* r = new SearchResult(RunSearch(Small(2)));
  return *r;
}

const SearchCell& Cell(const SearchResult& r, const std::string& algorithm, const std::string& cls) {
  for (const SearchCell& c : r.cells) {
    if (c.algorithm == algorithm && c.fault_class == cls) return c;
  }
  throw std::runtime_error("no cell " + algorithm + " x " + cls);
}

ojson JsonOf(const SearchResult& search) {
  CompareResult compare;
  compare.search = search;
  return CompareToJson(compare);
}

TEST(Search, TheMatrixDoesNotDependOnJobs) {
  const SearchResult one = RunSearch(Small(1));
  EXPECT_EQ(JsonOf(one).dump(), JsonOf(SmallSearch()).dump());
}

TEST(Search, ACellIsTheWorstVerdictAndItsExampleReplays) {
  const SearchResult& r = SmallSearch();
  ASSERT_EQ(r.cells.size(), 9u);  // algorithm-major
  EXPECT_EQ(r.cells[0].algorithm, "set-nx-px");
  EXPECT_EQ(r.cells[1].fault_class, "pause");
  // F1: set-nx-px under pauses is violated, and the example replays so.
  const SearchCell& f1 = Cell(r, "set-nx-px", "pause");
  EXPECT_EQ(f1.worst, Verdict::kViolated);
  EXPECT_EQ(f1.runs, 30);
  EXPECT_GT(f1.with_finding, 0);
  ASSERT_TRUE(f1.example.has_value());
  EXPECT_EQ(f1.example->run.verdict(), Verdict::kViolated);
  RunOptions replay;
  replay.label = "set-nx-px";
  const RunResult again = RunScenario(ParseScenario(f1.example->scenario_text, "example"), replay);
  EXPECT_EQ(again.ExpectationMet(), std::optional<bool>(true));
  // F15: the naive limiter's crash leaves a counter without a TTL.
  const SearchCell& f15 = Cell(r, "rate-limit-naive", "client-crash");
  EXPECT_NE(f15.worst, Verdict::kSafe);
  // Redlock with no fault finds nothing: a safe cell has no example.
  const SearchCell& quiet = Cell(r, "redlock", "none");
  EXPECT_EQ(quiet.worst, Verdict::kSafe);
  EXPECT_EQ(quiet.with_finding, 0);
  EXPECT_FALSE(quiet.example.has_value());
  // Outcome counts add up to the seeds with a finding.
  int64_t sum = 0;
  for (const auto& [tokens, n] : f1.outcomes) sum += n;
  EXPECT_EQ(sum, f1.with_finding);
}

TEST(Search, AStorysFaultClasses) {
  EXPECT_EQ(ScenarioFaultClasses(LoadScenario(ScenarioPath("f08-restart-without-persistence"))),
            (std::vector<std::string>{"node-crash", "partition"}));
  EXPECT_EQ(ScenarioFaultClasses(LoadScenario(ScenarioPath("f04-client-clock-skew"))),
            (std::vector<std::string>{"client-clock"}));
  EXPECT_EQ(ScenarioFaultClasses(LoadScenario(ScenarioPath("f12-expire-zero"))),
            (std::vector<std::string>{"none"}));
}

// w01 shows fenced keeping the counter's invariant under a pause; a search
// of pauses that lost an update disagrees, and says so.
TEST(Search, AStoryKeepingItsInvariantDisagreesWithASearchThatBrokeIt) {
  CompareOptions o;
  o.algorithms = {"fenced"};
  o.scenario_paths = {ScenarioPath("w01-counter-lost-update")};
  const CompareResult stories = RunCompare(o);
  ASSERT_TRUE(stories.cells[0].Shown()->effect.holds);
  SearchResult search;
  search.seeds = 1000;
  search.algorithms = {"fenced"};
  search.classes = {"pause"};
  SearchCell c;
  c.algorithm = "fenced";
  c.fault_class = "pause";
  c.runs = 1000;
  c.with_finding = 5;
  c.worst = Verdict::kViolated;
  c.outcomes = {{"lost-update+mutual-exclusion", 2}, {"mutual-exclusion", 3}};
  search.cells.push_back(c);
  FindDisagreements(stories, &search);
  ASSERT_EQ(search.disagreements.size(), 1u);
  EXPECT_EQ(search.disagreements[0].text,
            "the story w01-counter-lost-update shows fenced keeping the counter invariant, but "
            "search under pause found lost-update in 2 of 1000 seeds");
  // Nothing lost in search: no disagreement.
  search.cells[0].outcomes = {{"mutual-exclusion", 5}};
  FindDisagreements(stories, &search);
  EXPECT_TRUE(search.disagreements.empty());
}

TEST(Search, ResultsJsonCarriesTheSearchAndEveryReportDrawsIt) {
  const ojson j = JsonOf(SmallSearch());
  EXPECT_EQ(j["schema_version"], 2);
  const ojson& s = j["search"];
  EXPECT_EQ(s["seeds"]["count"], 30);
  EXPECT_EQ(s["classes"], ojson({"none", "pause", "client-crash"}));
  ASSERT_EQ(s["cells"].size(), 9u);
  const ojson& f1 = s["cells"][1];
  EXPECT_EQ(f1["id"], "search--set-nx-px--pause");
  EXPECT_EQ(f1["verdict"], "violated");
  EXPECT_EQ(f1["file"], "search/search--set-nx-px--pause.json");
  EXPECT_TRUE(f1["counterexample"].contains("history"));
  EXPECT_EQ(f1["rerun"].get<std::string>().rfind("locksim explore --algorithm set-nx-px --faults pause --first-seed ", 0), 0u);
  EXPECT_FALSE(s["cells"][3].contains("counterexample"));  // redlock x none
  // The parser takes it back; a malformed search is named by its path.
  EXPECT_NO_THROW(ParseResultsJson(j.dump(), "results.json"));
  ojson bad = j;
  bad["search"]["cells"][2].erase("id");
  try {
    ParseResultsJson(bad.dump(), "results.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("$.search.cells[2].id: missing"), std::string::npos) << e.what();
  }
  // Every writer shows the second matrix.
  const std::string html = RenderHtmlReport(j);
  EXPECT_NE(html.find("<section id=\"search\">"), std::string::npos);
  EXPECT_NE(html.find("<a class=\"cell\" href=\"#cell-search--set-nx-px--pause\""), std::string::npos);
  EXPECT_NE(html.find("id=\"cell-search--set-nx-px--pause\""), std::string::npos);
  const std::string md = RenderMarkdownSummary(j);
  EXPECT_NE(md.find("### Found by search"), std::string::npos);
  EXPECT_NE(md.find("| `redlock` | no finding in 30 |"), std::string::npos) << md;
  const std::string junit = RenderJunit(j);
  EXPECT_NE(junit.find("<testsuite name=\"search\" tests=\"9\""), std::string::npos) << junit;
  const std::string table = RenderTerminalTable(j, false);
  EXPECT_NE(table.find("found by search: 30 generated seeds per variant and fault class"),
            std::string::npos) << table;
}

}  // namespace
}  // namespace locksim

namespace locksim {
namespace {

// docs/compare-results.schema.json names every field of the search section.
TEST(Search, TheDocumentedSchemaNamesEverySearchField) {
  std::ifstream in(std::string(LOCKSIM_SOURCE_DIR) + "/docs/compare-results.schema.json");
  ASSERT_TRUE(in);
  const ojson schema = ojson::parse(in);
  const ojson j = JsonOf(SmallSearch());
  ASSERT_TRUE(schema["properties"].contains("search"));
  const ojson& search_schema = schema["$defs"]["search"];
  for (const auto& [k, v] : j["search"].items()) {
    EXPECT_TRUE(search_schema["properties"].contains(k)) << "search." << k;
  }
  for (const ojson& k : search_schema["required"]) EXPECT_TRUE(j["search"].contains(k.get<std::string>()));
  const ojson& cell_schema = schema["$defs"]["search_cell"];
  for (const ojson& c : j["search"]["cells"]) {
    for (const auto& [k, v] : c.items()) {
      EXPECT_TRUE(cell_schema["properties"].contains(k)) << "search cell." << k;
    }
    for (const ojson& k : cell_schema["required"]) EXPECT_TRUE(c.contains(k.get<std::string>()));
  }
}

}  // namespace
}  // namespace locksim
