// The command line, run as a user runs it: exit codes, messages, output.
#include <signal.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <nlohmann/json.hpp>
#include <optional>

#include "lockimpls/lock.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_files.h"
#include "tests/testing/run_locksim.h"
#include "tests/testing/scenario_paths.h"

namespace locksim {
namespace {

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "locksim-cli-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Outcome Locksim(const std::string& args) { return RunLocksim(LOCKSIM_BINARY, dir_, args); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }

  std::filesystem::path dir_;
};

TEST_F(CliTest, SafeScenarioExitsZero) {
  Outcome o = Locksim("run " + ScenarioPath("baseline-contention") + " --algorithm set-nx-px");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("verdict: SAFE"), std::string::npos) << o.out;
}

TEST_F(CliTest, ViolatingScenarioExitsOneAndPrintsTheOverlap) {
  Outcome o = Locksim("run " + ScenarioPath("f02-del-frees-other") +
                      " --algorithm set-nx-px-del --json -");
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_NE(o.out.find("\"verdict\": \"violated\""), std::string::npos);
  EXPECT_NE(o.out.find("\"clients\": [\n        \"B\",\n        \"C\"\n      ]"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.err.find("B and C both held lock:order"), std::string::npos) << o.err;
}

TEST_F(CliTest, SameRunTwiceGivesIdenticalBytes) {
  const std::string args = "run " + ScenarioPath("f02-del-frees-other") +
                           " --algorithm set-nx-px-del --seed 9 --history --json -";
  Outcome a = Locksim(args);
  Outcome b = Locksim(args);
  EXPECT_EQ(a.exit_code, 1);
  EXPECT_FALSE(a.out.empty());
  EXPECT_EQ(a.out, b.out);
}

TEST_F(CliTest, MalformedScenarioExitsTwoNamingFileAndPath) {
  const std::string bad = Write("bad.json", R"({"duration": "1s", "clients": [{"name": "A", "hold": -5}]})");
  Outcome o = Locksim("run " + bad);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.err, "locksim: " + bad +
                       ": $.clients[0].hold: expected a duration string such as \"250ms\", "
                       "got a number\n");
  const std::string not_json = Write("nj.json", "{ not json");
  o = Locksim("run " + not_json);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find(not_json + ": $: not valid JSON"), std::string::npos) << o.err;
}

TEST_F(CliTest, UnknownAlgorithmOrOptionExitsTwo) {
  Outcome o = Locksim("run " + ScenarioPath("f01-pause-past-ttl") + " --algorithm nope");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--algorithm: unknown algorithm \"nope\""), std::string::npos) << o.err;
  o = Locksim("run " + ScenarioPath("f01-pause-past-ttl") + " --bogus");
  EXPECT_EQ(o.exit_code, 2);
  o = Locksim("run " + ScenarioPath("f01-pause-past-ttl") + " --backend moon");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--backend"), std::string::npos);
  o = Locksim("frobnicate");
  EXPECT_EQ(o.exit_code, 2);
  o = Locksim("run /nonexistent/x.json");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("/nonexistent/x.json: no such file or folder"), std::string::npos);
}

TEST_F(CliTest, ListShowsTheBundledLibrariesWithTheirVersions) {
  Outcome o = Locksim("list");
  EXPECT_EQ(o.exit_code, 0);
  for (const char* line : {"redis-py            [library redis-py 4.3.4]",
                           "node-redlock        [library node-redlock 5.0.0-beta.2]",
                           "redis-semaphore     [library redis-semaphore 5.8.0]"}) {
    EXPECT_NE(o.out.find(line), std::string::npos) << line << "\n" << o.out;
  }
  o = Locksim("list --verbose");
  EXPECT_NE(o.out.find("manifest: "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("redis-py.adapter.json"), std::string::npos) << o.out;
}

TEST_F(CliTest, AMissingAdapterManifestExitsTwo) {
  Outcome o = Locksim("run " + ScenarioPath("f16-redis-py-pause") +
                      " --backend real --adapter /nonexistent/my.adapter.json");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--adapter: /nonexistent/my.adapter.json: no such file"),
            std::string::npos)
      << o.err;
}

TEST_F(CliTest, RealBackendWithoutRedisServerExitsTwo) {
  Outcome o = Locksim("run " + ScenarioPath("f01-pause-past-ttl") +
                      " --backend real --redis-server /nonexistent/redis-server");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("not found"), std::string::npos) << o.err;
  // And when redis-server is simply not on PATH.
  o = Locksim("run " + ScenarioPath("f01-pause-past-ttl") + " --backend real --redis-server "
              "no-such-redis-server-binary");
  EXPECT_EQ(o.exit_code, 2);
}

TEST_F(CliTest, CheckComparesEveryExpectation) {
  // As many runs as the bundled files have "expect" entries; those of a
  // third-party client (redis-py) are not applicable on virtual.
  int runs = 0, not_applicable = 0;
  for (const std::string& f : ListScenarioFiles({std::string(LOCKSIM_SOURCE_DIR) + "/scenarios"}, "test")) {
    for (const auto& [label, x] : LoadScenario(f).expect) {
      ++(FindAlgorithm(x.algorithm)->real_only() ? not_applicable : runs);
    }
  }
  ASSERT_GT(runs, 80);
  Outcome o = Locksim("check " + std::string(LOCKSIM_SOURCE_DIR) + "/scenarios");
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  const std::string line = std::to_string(runs) + " of " + std::to_string(runs) +
                           " runs as expected; " + std::to_string(not_applicable) +
                           " not applicable on --backend virtual";
  EXPECT_NE(o.out.find(line), std::string::npos) << line << "\n" << o.out;
}

// One exit-code rule: a single run exits 0 only when its verdict is safe;
// an expectation run (check, run over files with "expect", --label) exits
// 0 when every expectation is met.
TEST_F(CliTest, ASingleRunExitsZeroOnlyWhenSafe) {
  EXPECT_EQ(Locksim("run " + ScenarioPath("baseline-contention") + " --algorithm set-nx-px").exit_code, 0);
  EXPECT_EQ(Locksim("run " + ScenarioPath("f01-pause-past-ttl") + " --algorithm set-nx-px").exit_code, 1);
  // F3: setnx-simple deadlocks; F11: watch-multi is degraded. Findings: 1.
  Outcome deadlock = Locksim("run " + ScenarioPath("f03-crash-before-expire") + " --algorithm setnx-simple");
  EXPECT_EQ(deadlock.exit_code, 1) << deadlock.out << deadlock.err;
  EXPECT_NE(deadlock.out.find("verdict: DEADLOCK"), std::string::npos) << deadlock.out;
  Outcome degraded = Locksim("run " + ScenarioPath("f11-watch-retry-storm") + " --algorithm watch-multi");
  EXPECT_EQ(degraded.exit_code, 1) << degraded.out << degraded.err;
  EXPECT_NE(degraded.out.find("verdict: DEGRADED"), std::string::npos) << degraded.out;
}

TEST_F(CliTest, AnExpectationRunExitsZeroWhenEveryExpectationIsMet) {
  // --label: the expected violation is met.
  Outcome met = Locksim("run " + ScenarioPath("f01-pause-past-ttl") + " --label set-nx-px");
  EXPECT_EQ(met.exit_code, 0) << met.out << met.err;
  EXPECT_NE(met.out.find("as expected"), std::string::npos) << met.out;
  // A file with expectations, as a suite: met.
  EXPECT_EQ(Locksim("run " + ScenarioPath("f01-pause-past-ttl")).exit_code, 0);
  // An expectation that is not met: 1, from check, run and --label alike.
  const std::string wrong = Write("wrong.json", R"({
    "name": "wrong", "duration": "10s", "lock": {"ttl": "1s"},
    "clients": [{"name": "A", "hold": "100ms"}],
    "expect": {"set-nx-px": {"verdict": "violated"}}})");
  EXPECT_EQ(Locksim("check " + wrong).exit_code, 1);
  EXPECT_EQ(Locksim("run " + wrong).exit_code, 1);
  Outcome label = Locksim("run " + wrong + " --label set-nx-px");
  EXPECT_EQ(label.exit_code, 1) << label.out << label.err;
  EXPECT_NE(label.out.find("NOT as expected"), std::string::npos) << label.out;
}

// An expected kind of violation (a foreign write) is in the suite's
// expected column, and a run's kinds besides overlaps in its verdict column:
// a run that misses one does not read the same as its expectation.
TEST_F(CliTest, TheSuiteTableShowsTheKindsOfViolationBesidesOverlaps) {
  const std::string scenario = ScenarioPath("f02-del-frees-other");
  Outcome del = Locksim("run " + scenario + " --algorithm set-nx-px-del");
  EXPECT_NE(del.out.find("expected: violated A/B,B/C foreign-write — as expected"),
            std::string::npos) << del.out;
  // The scenario's own expectation for it, in the suite: both columns.
  Outcome bundled = Locksim("run " + scenario);
  EXPECT_NE(bundled.out.find(
                "violated A/B,B/C foreign-write  violated A/B,B/C foreign-write  ok"),
            std::string::npos) << bundled.out;
  // F2's compare-and-delete release: overlaps, and no foreign write, which
  // an expectation here asks for.
  nlohmann::json doc = nlohmann::json::parse(Slurp(scenario));
  doc["expect"] = {{"set-nx-px", {{"verdict", "violated"},
                                  {"kinds", {"foreign-write"}},
                                  {"overlaps", {"A/B"}}}}};
  const std::string wrong = Write("f02-kinds.json", doc.dump());
  Outcome suite = Locksim("run " + wrong);
  EXPECT_EQ(suite.exit_code, 1) << suite.out << suite.err;
  EXPECT_NE(suite.out.find("violated A/B  "), std::string::npos) << suite.out;
  EXPECT_NE(suite.out.find("violated A/B foreign-write  "), std::string::npos) << suite.out;
  EXPECT_NE(suite.out.find("NOT AS EXPECTED"), std::string::npos) << suite.out;
}

// A run in which nobody ever held the lock tested nothing, and says so: a
// client partitioned from its only node for the whole run, no timeout.
TEST_F(CliTest, ARunWithNoAcquisitionSaysNothingWasTested) {
  const std::string cut = Write("cut.json", R"({
    "name": "cut", "algorithm": "set-nx-px", "duration": "5s",
    "clients": [{"name": "A", "hold": "100ms"}],
    "faults": [{"type": "partition", "between": [["A"], ["redis0"]], "at": "0s", "duration": "1m"}]})");
  Outcome o = Locksim("run " + cut);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("verdict: SAFE; 0 acquisitions"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("WARNING: no client ever acquired the lock: nothing was tested"),
            std::string::npos) << o.out;
  Outcome json = Locksim("run " + cut + " --json -");
  EXPECT_NE(json.out.find("\"verdict\": \"safe\",\n  \"nothing_tested\": true"), std::string::npos)
      << json.out;
  // One that acquired has no such warning.
  const std::string fine = Write("fine.json", R"({
    "name": "fine", "algorithm": "set-nx-px", "duration": "5s",
    "clients": [{"name": "A", "hold": "100ms"}]})");
  Outcome ok = Locksim("run " + fine);
  EXPECT_EQ(ok.out.find("nothing was tested"), std::string::npos) << ok.out;
}

// And a compare cell in which nobody ever held the lock says so in every
// format: results.json, the terminal, summary.md, junit.xml (skipped, not
// passed) and report.html.
TEST_F(CliTest, ACompareCellWithNoAcquisitionSaysNothingWasTested) {
  const std::string cut = Write("cut.json", R"({
    "name": "cut", "duration": "5s",
    "clients": [{"name": "A", "hold": "100ms"}],
    "faults": [{"type": "partition", "between": [["A"], ["redis0"]], "at": "0s", "duration": "1m"}]})");
  const std::string out = std::filesystem::path(cut).parent_path() / "cmp";
  Outcome o = Locksim("compare --algorithms set-nx-px --scenarios " + cut + " --out " + out);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("SAFE (NOTHING TESTED)"), std::string::npos) << o.out;
  auto read = [&](const std::string& name) {
    std::ifstream in(out + "/" + name);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  EXPECT_NE(read("results.json").find("\"nothing_tested\": true"), std::string::npos);
  EXPECT_NE(read("summary.md").find("SAFE (NOTHING TESTED)"), std::string::npos) << read("summary.md");
  EXPECT_NE(read("junit.xml").find("<skipped message=\"nothing was tested"), std::string::npos)
      << read("junit.xml");
  EXPECT_NE(read("report.html").find("SAFE (NOTHING TESTED)"), std::string::npos);
}

// A script that never ends cannot be waited for in virtual time: the run
// stops with exit 3, naming the node, the script, the seed and the replay.
TEST_F(CliTest, AScriptThatNeverEndsStopsTheRunNamingIt) {
  const std::string loop = Write("loop.json", R"json({
    "name": "loop", "algorithm": "set-nx-px", "seed": 7, "duration": "5s",
    "workload": {"type": "commands", "commands": [["EVAL", "while true do end", "0"]],
                 "replies": ["(nil)"]},
    "clients": [{"name": "A", "hold": "100ms"}]})json");
  Outcome o = Locksim("run " + loop);
  EXPECT_EQ(o.exit_code, 3) << o.out << o.err;
  EXPECT_NE(o.err.find("redis0 ran script 694a5fe1ddb97a4c6a1bf299d9537c7d3d0f84e7 "
                       "(while true do end) for 500 million Lua instructions without it ending"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("seed 7; replay: "), std::string::npos) << o.err;
}

TEST_F(CliTest, AlgorithmSatisfiesAScenarioThatNamesNone) {
  const std::string none = Write("none.json", R"({
    "name": "none", "duration": "10s", "clients": [{"name": "A", "hold": "100ms"}]})");
  Outcome o = Locksim("run " + none + " --algorithm redlock");
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("none · redlock · virtual"), std::string::npos) << o.out;
  // Without it, the message says how to name one.
  Outcome missing = Locksim("run " + none);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("none.json: $: names no algorithm"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("--algorithm"), std::string::npos) << missing.err;
}

TEST_F(CliTest, JsonToStdoutIsOnlyJsonInEveryMode) {
  // A file with several expectations runs as a suite: stdout is the JSON
  // array alone, the table goes to stderr.
  Outcome suite = Locksim("run " + ScenarioPath("f12-expire-zero") + " --json -");
  EXPECT_EQ(suite.exit_code, 0) << suite.err;
  const auto all = nlohmann::json::parse(suite.out);  // throws if anything else is there
  EXPECT_TRUE(all.is_array());
  EXPECT_GE(all.size(), 2u);
  EXPECT_NE(suite.err.find("runs as expected"), std::string::npos) << suite.err;
  // One run: the object alone, the summary on stderr.
  Outcome one = Locksim("run " + ScenarioPath("f12-expire-zero") + " --algorithm setnx-expire --json -");
  EXPECT_EQ(one.exit_code, 1);
  EXPECT_EQ(nlohmann::json::parse(one.out).at("verdict"), "violated");
  EXPECT_NE(one.err.find("verdict: VIOLATED"), std::string::npos) << one.err;
}

TEST_F(CliTest, TheSuiteTableSizesItsColumnsToTheirContent) {
  // f08's "redlock delayed-restart" label is wider than any algorithm id:
  // every row's backend column still starts at the same place.
  Outcome o = Locksim("run " + ScenarioPath("f08-restart-without-persistence") + " " +
                      ScenarioPath("f09-node-clock-jump"));
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  std::istringstream lines(o.out);
  std::string line;
  std::optional<size_t> column;
  int rows = 0;
  while (std::getline(lines, line)) {
    const size_t at = line.find(" virtual ");
    if (at == std::string::npos) continue;
    ++rows;
    if (!column) column = at;
    EXPECT_EQ(at, *column) << line;
  }
  EXPECT_GT(rows, 3);
}

TEST_F(CliTest, RedisPyOnTheVirtualBackendExitsTwo) {
  Outcome o = Locksim("run " + ScenarioPath("f16-redis-py-pause") + " --algorithm redis-py");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("redis-py drives redis-py in a process of its own, which talks to a real "
                       "redis-server: needs --backend real"),
            std::string::npos)
      << o.err;
  o = Locksim("run " + ScenarioPath("f16-redis-py-pause") + " --algorithm set-nx-px --adapter x");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--adapter: set-nx-px is locksim's own lock code"), std::string::npos)
      << o.err;
}

TEST_F(CliTest, ABrokenAdapterExitsThreeNamingItAndItsStderr) {
  const std::string scenario = Write("one.json", R"({
    "duration": "30s", "algorithm": "redis-py", "real_time_scale": "1",
    "lock": {"ttl": "5s", "acquire_timeout": "1s"},
    "clients": [{"name": "A", "hold": "100ms"}]
  })");
  setenv("LOCKSIM_FAKE_ADAPTER", "garbage", 1);
  Outcome o = Locksim("run " + scenario + " --backend real --adapter " +
                      std::string(LOCKSIM_SOURCE_DIR) + "/tests/real/fake_adapter.py");
  unsetenv("LOCKSIM_FAKE_ADAPTER");
  EXPECT_EQ(o.exit_code, 3) << o.out << o.err;
  EXPECT_NE(o.err.find("locksim: harness failure: the fakelib 0.1 adapter of client A"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("sent a line that is not a JSON object"), std::string::npos) << o.err;
  o = Locksim("run " + scenario + " --backend real --adapter /nonexistent/adapter");
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find("--adapter: /nonexistent/adapter: no such file"), std::string::npos)
      << o.err;
}

TEST_F(CliTest, ListNamesTheVariants) {
  Outcome o = Locksim("list --verbose");
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_NE(o.out.find("set-nx-px-del"), std::string::npos);
  EXPECT_NE(o.out.find("seed 002"), std::string::npos);
}

// A crash is a bug in locksim: it still dies of the signal (a core dump and
// the exit status stay as they were), after one line with the command line
// to replay and the stack (sim/core/crash.h). A SIGSEGV sent mid-run stands
// in for a real fault: the handler cannot tell them apart. The run must
// outlast the half second before the signal: an hour of two clients took
// 0.4 s on a fast machine (CI, 2026-12-02), and the history's cap of 4 M
// operations would end a longer one about as soon; so a thousand hours,
// uncapped.
TEST_F(CliTest, ACrashNamesTheSignalTheCommandLineAndTheStack) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "under AddressSanitizer its own report is kept";
#endif
  const std::string scenario = Write("long.json", R"({
    "name": "long", "algorithm": "set-nx-px", "seed": 1, "duration": "1000h",
    "lock": {"ttl": "5s", "retry_delay": "10ms", "acquire_timeout": "30s"},
    "clients": [{"name": "A", "hold": "20ms", "think": "10ms", "iterations": 0},
                {"name": "B", "hold": "20ms", "think": "10ms", "iterations": 0}]})");
  const std::string cmd = "sh -c '" + std::string(LOCKSIM_BINARY) + " run " + scenario +
                          " --max-ops 0 -q 2>" + (dir_ / "err").string() +
                          " & pid=$!; sleep 0.5; kill -SEGV $pid; wait $pid'";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGSEGV) << "it dies of the signal";
  const std::string err = Slurp(dir_ / "err");
  EXPECT_NE(err.find("locksim: crashed with SEGV: a bug in locksim, not a verdict. Replay: " +
                     std::string(LOCKSIM_BINARY) + " run " + scenario + " --max-ops 0 -q\n"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("locksim: the stack"), std::string::npos) << err;
  EXPECT_NE(err.find("locksim(+0x"), std::string::npos) << "frames of the binary: " << err;
}

// An explore of many seeds is slow to replay whole: the report also names
// the seeds under way, one per worker, each with the options that replay
// it alone (CrashNote).
TEST_F(CliTest, AnExploreCrashNamesTheSeedsUnderWay) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "under AddressSanitizer its own report is kept";
#endif
  const std::string cmd = "sh -c '" + std::string(LOCKSIM_BINARY) +
                          " explore --algorithm set-nx-px --seeds 1000000 --jobs 2 -q --out " +
                          (dir_ / "out").string() + " 2>" + (dir_ / "err").string() +
                          " & pid=$!; sleep 1; kill -SEGV $pid; wait $pid'";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGSEGV);
  const std::string err = Slurp(dir_ / "err");
  const std::string note = "\nlocksim: it was running explore seed ";
  size_t notes = 0;
  for (size_t at = err.find(note); at != std::string::npos; at = err.find(note, at + 1)) {
    ++notes;
    const size_t seed_at = at + note.size();
    const std::string seed = err.substr(seed_at, err.find(':', seed_at) - seed_at);
    EXPECT_NE(err.find(": to replay it alone, give --first-seed " + seed + " --seeds 1", seed_at),
              std::string::npos)
        << err;
  }
  EXPECT_GE(notes, 1u) << err;
  EXPECT_LE(notes, 2u) << "one per worker at most: " << err;
  EXPECT_LT(err.find("Replay: "), err.find(note)) << "after the command line: " << err;
}

}  // namespace
}  // namespace locksim
