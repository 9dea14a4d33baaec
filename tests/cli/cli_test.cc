// The command line, run as a user runs it: exit codes, messages, output.
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/testing/scenario_paths.h"

namespace locksim {
namespace {

struct Outcome {
  int exit_code;
  std::string out;
  std::string err;
};

std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "locksim-cli-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Outcome Locksim(const std::string& args) {
    const std::string cmd = std::string(LOCKSIM_BINARY) + " " + args + " >" +
                            (dir_ / "out").string() + " 2>" + (dir_ / "err").string();
    int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
            Slurp(dir_ / "out"), Slurp(dir_ / "err")};
  }
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
  Outcome o = Locksim("check " + std::string(LOCKSIM_SOURCE_DIR) + "/scenarios");
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  // f16's redis-py entry is a third-party client: not applicable on virtual.
  EXPECT_NE(o.out.find("90 of 90 runs as expected; 1 not applicable on --backend virtual"),
            std::string::npos)
      << o.out;
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
  EXPECT_NE(o.err.find("--adapter: set-nx-px is not driven through an adapter"), std::string::npos)
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
  EXPECT_NE(o.err.find("\"/nonexistent/adapter\" not found"), std::string::npos) << o.err;
}

TEST_F(CliTest, ListNamesTheVariants) {
  Outcome o = Locksim("list --verbose");
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_NE(o.out.find("set-nx-px-del"), std::string::npos);
  EXPECT_NE(o.out.find("seed 002"), std::string::npos);
}

}  // namespace
}  // namespace locksim
