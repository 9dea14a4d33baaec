// `locksim explore` and `locksim merge` as a user runs them: what they
// write does not depend on --jobs, merged shards equal the unsharded run,
// the saved files replay with `locksim run`, bad input exits 2 naming the
// option.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/explore/generate.h"
#include "sim/run/runner.h"
#include "tests/testing/run_locksim.h"

namespace locksim {
namespace {

namespace fs = std::filesystem;

// Every file under `dir`, by relative path, with its bytes.
std::map<std::string, std::string> Tree(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out[fs::relative(e.path(), dir).string()] = Slurp(e.path());
  }
  return out;
}

class ExploreCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "locksim-explore-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  Outcome Locksim(const std::string& args) { return RunLocksim(LOCKSIM_BINARY, dir_, args); }
  std::string Out(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

constexpr char kSweep[] = "explore --algorithm set-nx-px-del --faults pause --seeds 30";

TEST_F(ExploreCliTest, OneJobAndTwoJobsWriteIdenticalOutput) {
  Outcome one = Locksim(std::string(kSweep) + " --jobs 1 --out " + Out("j1"));
  Outcome two = Locksim(std::string(kSweep) + " --jobs 2 --out " + Out("j2"));
  EXPECT_EQ(one.exit_code, 1) << one.err;
  EXPECT_EQ(two.exit_code, 1) << two.err;
  const auto a = Tree(Out("j1")), b = Tree(Out("j2"));
  EXPECT_GT(a.size(), 1u);  // summary.json and some findings
  EXPECT_EQ(a, b);
  // The table names each kind's shortest counterexample; wall time is on
  // stderr only.
  EXPECT_NE(one.out.find("shortest counterexample"), std::string::npos) << one.out;
  EXPECT_NE(one.err.find("wall time"), std::string::npos) << one.err;
  EXPECT_EQ(Slurp(Out("j1") + "/summary.json").find("wall"), std::string::npos);
}

TEST_F(ExploreCliTest, MergedShardsEqualTheUnshardedRun) {
  ASSERT_EQ(Locksim(std::string(kSweep) + " --jobs 2 --out " + Out("all")).exit_code, 1);
  std::string shards;
  for (int i = 0; i < 3; ++i) {
    const std::string out = Out("shard" + std::to_string(i));
    Outcome o = Locksim(std::string(kSweep) + " --jobs 1 --shard " + std::to_string(i) +
                        "/3 --out " + out);
    ASSERT_LE(o.exit_code, 1) << o.err;
    EXPECT_NE(Slurp(out + "/summary.json").find("\"shard\": \"" + std::to_string(i) + "/3\""),
              std::string::npos);
    shards += " " + out;
  }
  Outcome merged = Locksim("merge" + shards + " --out " + Out("merged"));
  EXPECT_EQ(merged.exit_code, 1) << merged.err;
  EXPECT_EQ(Tree(Out("merged")), Tree(Out("all")));
}

// A generated scenario is in no file: what a broken simulator invariant
// names to replay one of its runs is the explore command of that one seed
// (RunOptions::replay). That command runs the seed again and finds the same.
TEST_F(ExploreCliTest, ASeedsReplayCommandFindsWhatTheSeedFoundInTheSweep) {
  ASSERT_EQ(Locksim(std::string(kSweep) + " --out " + Out("x")).exit_code, 1);
  const nlohmann::json summary = nlohmann::json::parse(Slurp(Out("x") + "/summary.json"));
  ASSERT_FALSE(summary["kinds"].empty());
  const nlohmann::json& shortest = summary["kinds"][0]["shortest"];
  const uint64_t seed = shortest["seed"].get<uint64_t>();
  const ExploreSpec spec = MakeExploreSpec("set-nx-px-del", {"pause"});
  const std::string replay = ExploreReplayCommand(spec, seed);
  EXPECT_EQ(replay, "locksim explore --algorithm set-nx-px-del --faults pause --first-seed " +
                        std::to_string(seed) + " --seeds 1 --jobs 1");
  EXPECT_EQ(SeedRunOptions(spec, seed).replay, replay);
  Outcome again = Locksim(replay.substr(std::string("locksim ").size()) + " --out " + Out("one"));
  EXPECT_EQ(again.exit_code, 1) << again.err;
  const std::string file = shortest["file"].get<std::string>();
  EXPECT_EQ(Slurp(Out("one") + "/" + file), Slurp(Out("x") + "/" + file));
  // On real servers it names where and how the seed ran.
  ExploreSpec real;
  real.algorithm = "set-nx-px";
  real.faults = {"pause", "node-clock"};
  real.backend = Backend::kReal;
  real.time_scale = TimeScale{1, 20};
  real.redis_server = "/opt/redis/bin/redis-server";
  EXPECT_EQ(ExploreReplayCommand(real, 7),
            "locksim explore --algorithm set-nx-px --faults pause,node-clock --backend real "
            "--time-scale 1/20 --redis-server /opt/redis/bin/redis-server --first-seed 7 "
            "--seeds 1 --jobs 1");
}

TEST_F(ExploreCliTest, MergeRefusesAnIncompleteSetOfShards) {
  Locksim(std::string(kSweep) + " --shard 0/2 --out " + Out("s0"));
  Outcome o = Locksim("merge " + Out("s0") + " --out " + Out("m"));
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("shard(s) 1 of 2 missing"), std::string::npos) << o.err;
}

TEST_F(ExploreCliTest, SavedFindingsReplayWithRun) {
  ASSERT_EQ(Locksim(std::string(kSweep) + " --out " + Out("x")).exit_code, 1);
  const nlohmann::json summary = nlohmann::json::parse(Slurp(Out("x") + "/summary.json"));
  ASSERT_FALSE(summary["kinds"].empty());
  for (const auto& kind : summary["kinds"]) {
    const std::string file = Out("x") + "/" + kind["shortest"]["file"].get<std::string>();
    // Its "expect" entry: the same verdict, kinds and overlaps.
    Outcome check = Locksim("run " + file);
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
    EXPECT_NE(check.out.find("1 of 1 runs as expected"), std::string::npos) << check.out;
    // In detail: the violation itself.
    Outcome detail = Locksim("run " + file + " --algorithm set-nx-px-del");
    EXPECT_EQ(detail.exit_code, 1);
    EXPECT_NE(detail.out.find("verdict: VIOLATED"), std::string::npos) << detail.out;
    EXPECT_NE(detail.out.find("as expected"), std::string::npos) << detail.out;
  }
}

TEST_F(ExploreCliTest, ATimedRunNamesTheSeedsItCoveredAndTheyRunAgain) {
  Outcome timed = Locksim("explore --algorithm set-nx-px-del --faults pause --time 1 --jobs 2 --out " +
                          Out("timed"));
  ASSERT_LE(timed.exit_code, 1) << timed.err;
  const nlohmann::json summary = nlohmann::json::parse(Slurp(Out("timed") + "/summary.json"));
  const uint64_t count = summary["seeds"]["count"].get<uint64_t>();
  ASSERT_GT(count, 0u);
  EXPECT_NE(timed.err.find("--first-seed 1 --seeds " + std::to_string(count)), std::string::npos)
      << timed.err;
  Locksim("explore --algorithm set-nx-px-del --faults pause --jobs 1 --seeds " +
          std::to_string(count) + " --out " + Out("again"));
  EXPECT_EQ(Tree(Out("again")), Tree(Out("timed")));
}

TEST_F(ExploreCliTest, NoViolationExitsZero) {
  // setnx-simple has no TTL: a clock cannot expire it.
  Outcome o = Locksim("explore --algorithm setnx-simple --faults clock --seeds 10 --out " +
                      Out("safe"));
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("0 with a finding"), std::string::npos) << o.out;
}

TEST_F(ExploreCliTest, BadInputExitsTwoNamingTheOption) {
  const std::string out = " --out " + Out("bad");
  struct Case {
    std::string args, message;
  } cases[] = {
      {"explore --algorithm set-nx-px --faults pause,gc", "--faults: unknown fault class \"gc\""},
      {"explore --faults pause", "missing --algorithm"},
      {"explore --algorithm nope", "--algorithm: unknown algorithm \"nope\""},
      {"explore --algorithm redis-py",
       "--algorithm: redis-py drives a third-party client on real servers: explore it with "
       "--backend real"},
      {"explore --algorithm redis-py --backend real --jobs 2",
       "--jobs: explore on real servers runs one seed at a time"},
      {"explore --algorithm set-nx-px --backend real --time-scale 0", "--time-scale"},
      {"explore --algorithm set-nx-px --time-scale 1/2",
       "--time-scale: explore scales real runs only"},
      {"explore --algorithm set-nx-px --seeds 0", "--seeds: expected an integer"},
      {"explore --algorithm set-nx-px --seeds 5 --time 5", "--time: give either"},
      {"explore --algorithm set-nx-px --shard 3/3", "--shard: expected an integer from 0 to 2"},
      {"explore --algorithm set-nx-px --shard 1", "--shard: expected i/N"},
      {"explore --algorithm set-nx-px --time 5 --shard 0/2", "--shard: needs --seeds"},
      {"explore --algorithm set-nx-px --jobs 0", "--jobs: expected an integer"},
      {"merge " + Out("nowhere"), "summary.json: cannot read"},
  };
  for (const Case& c : cases) {
    Outcome o = Locksim(c.args + out);
    EXPECT_EQ(o.exit_code, 2) << c.args << "\n" << o.err;
    EXPECT_NE(o.err.find(c.message), std::string::npos) << c.args << "\n" << o.err;
  }
}

// `locksim verify` as a user runs it: a counterexample `locksim run`
// replays (exit 1), a verified bound (exit 0) whose summary does not depend
// on --jobs, bad input exit 2 naming the option.
TEST_F(ExploreCliTest, VerifyWritesAReplayableCounterexample) {
  Outcome o = Locksim("verify --algorithm set-nx-px --faults pause --out " + Out("v"));
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_NE(o.out.find("verify set-nx-px: violated"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("explored before it"), std::string::npos) << o.out;
  const auto summary = nlohmann::json::parse(Slurp(Out("v") + "/summary.json"));
  EXPECT_EQ(summary["verified"], false);
  EXPECT_EQ(summary["finding"]["file"], "counterexample.json");
  Outcome replay = Locksim("run " + Out("v") + "/counterexample.json");
  EXPECT_EQ(replay.exit_code, 0) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("1 of 1 runs as expected"), std::string::npos) << replay.out;
  // Its "source" is the command that finds it again.
  const auto file = nlohmann::json::parse(Slurp(Out("v") + "/counterexample.json"));
  std::string source = file["source"].get<std::string>();
  ASSERT_TRUE(source.starts_with("locksim verify --algorithm set-nx-px --faults pause")) << source;
  Outcome again = Locksim(source.substr(std::string("locksim ").size()) + " --out " + Out("again"));
  EXPECT_EQ(again.exit_code, 1) << again.err;
  EXPECT_EQ(Slurp(Out("again") + "/counterexample.json"), Slurp(Out("v") + "/counterexample.json"));
}

TEST_F(ExploreCliTest, VerifyReportsTheBoundAndTheSameCountForAnyJobs) {
  const std::string args = "verify --algorithm setnx-simple --faults pause --clients 3";
  Outcome one = Locksim(args + " --jobs 1 --out " + Out("j1"));
  Outcome two = Locksim(args + " --jobs 2 --out " + Out("j2"));
  EXPECT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(two.exit_code, 0) << two.err;
  EXPECT_NE(one.out.find("no violation in "), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("within bound: up to 2 faults (pause)"), std::string::npos) << one.out;
  auto a = nlohmann::json::parse(Slurp(Out("j1") + "/summary.json"));
  auto b = nlohmann::json::parse(Slurp(Out("j2") + "/summary.json"));
  EXPECT_EQ(a["verified"], true);
  EXPECT_GT(a["schedules"].get<int64_t>(), 100);
  a.erase("seconds");  // wall time: the one field that varies
  b.erase("seconds");
  EXPECT_EQ(a, b);
  EXPECT_EQ(one.out.substr(0, one.out.find('\n')), two.out.substr(0, two.out.find('\n')));
  EXPECT_FALSE(fs::exists(Out("j1") + "/counterexample.json"));
}

TEST_F(ExploreCliTest, VerifyBadInputExitsTwoNamingTheOption) {
  struct Case {
    std::string args, message;
  } cases[] = {
      {"verify --faults pause", "missing --algorithm"},
      {"verify --algorithm nope", "--algorithm: unknown algorithm \"nope\""},
      {"verify --algorithm set-nx-px --faults partition", "--faults: verify does not place partition"},
      {"verify --algorithm set-nx-px --faults gc", "--faults: unknown fault class \"gc\""},
      {"verify --algorithm rate-limit-naive", "--algorithm: rate-limit-naive is a rate limiter"},
      {"verify --algorithm set-nx-px --max-faults 9", "--max-faults: expected an integer"},
      {"verify --algorithm set-nx-px --ttl fast", "--ttl: expected a positive duration"},
      {"verify --algorithm set-nx-px --hold 2s", "--hold: at most 80% of the lease"},
      {"verify --algorithm set-nx-px --max-delays 1 --delay 100000h", "--delay: at most 1h"},
      {"verify --algorithm set-nx-px --start-gap soon", "--start-gap: expected a duration"},
      {"verify --algorithm set-nx-px --start-gap 2h", "--start-gap: at most 1h"},
  };
  for (const Case& c : cases) {
    Outcome o = Locksim(c.args + " --out " + Out("bad"));
    EXPECT_EQ(o.exit_code, 2) << c.args << "\n" << o.err;
    EXPECT_NE(o.err.find(c.message), std::string::npos) << c.args << "\n" << o.err;
  }
}

}  // namespace
}  // namespace locksim
