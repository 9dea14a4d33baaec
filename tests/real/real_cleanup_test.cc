// A real run leaves nothing behind, however it ends: no redis-server and no
// redis-sentinel of ours, and no temporary folder. The run has masters with
// replicas (so three sentinels), a node crash and restart, and a delay fault
// (so the loopback proxy carries every connection). The proxy is a thread of
// the harness: it cannot outlive it.
//
// Ways it ends: normally; on an error (a node that cannot restart: exit 3);
// SIGINT and SIGTERM mid-run (128+N after stopping everything); SIGKILL
// mid-run (the parent-death signal kills the servers; the next run removes
// the folders).
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <thread>

#include "tests/testing/scenario_paths.h"

namespace locksim {
namespace {

namespace fs = std::filesystem;

// Servers and sentinels working inside `dir`: Redis rewrites its process
// title, but it chdir()s into its --dir, which our servers put in the
// test's own TMPDIR.
int ProcessesIn(const std::string& dir) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "comm");
    std::string comm;
    std::getline(in, comm);
    if (comm.rfind("redis-server", 0) != 0 && comm.rfind("redis-sentinel", 0) != 0) continue;
    std::error_code ec;
    const std::string cwd = fs::read_symlink(entry.path() / "cwd", ec).string();
    if (!ec && cwd.rfind(dir, 0) == 0) ++count;
  }
  return count;
}

// Two groups of master + replica (4 servers, 3 sentinels); redis1 crashes
// at 1.5s and restarts 200ms later; A's link to redis0 is slowed through
// the proxy for the first two seconds.
constexpr char kScenario[] = R"({
  "name": "hygiene", "algorithm": "set-nx-px", "seed": 1, "duration": "4s",
  "nodes": 2, "redis": {"replicas": 1},
  "lock": {"ttl": "1s", "retry_delay": "20ms", "acquire_timeout": "3s"},
  "clients": [
    {"name": "A", "hold": "50ms", "think": "20ms", "iterations": 0},
    {"name": "B", "hold": "50ms", "think": "20ms", "iterations": 0}
  ],
  "faults": [
    {"type": "delay", "between": [["A"], ["redis0"]], "latency": "5ms", "at": "0s", "duration": "2s"},
    {"type": "crash", "process": "redis1", "at": "1500ms", "restart_after": "200ms"}
  ]
})";

// A redis-server that starts once per folder: a restart fails (exit 3).
constexpr char kNoRestart[] = R"(#!/bin/sh
prev=
for a in "$@"; do [ "$prev" = "--dir" ] && dir=$a; prev=$a; done
if [ -e "$dir/started" ]; then echo "refusing a restart in $dir" >&2; exit 1; fi
touch "$dir/started"
exec redis-server "$@"
)";

enum class End { kNormal, kError, kSigint, kSigterm, kSigkill };

std::string EndName(End end) {
  switch (end) {
    case End::kNormal: return "NormalExit";
    case End::kError: return "HarnessError";
    case End::kSigint: return "SIGINT";
    case End::kSigterm: return "SIGTERM";
    case End::kSigkill: return "SIGKILL";
  }
  return "?";
}

// gtest prints a parameter without a printer as its bytes, which ctest
// takes into the test's name.
void PrintTo(End end, std::ostream* out) { *out << EndName(end); }

class RealCleanupTest : public ::testing::TestWithParam<End> {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "locksim-cleanup-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    tmp_ = dir_ / "tmp";
    fs::create_directory(tmp_);
    std::ofstream(dir_ / "hygiene.json") << kScenario;
    std::ofstream(dir_ / "no-restart") << kNoRestart;
    chmod((dir_ / "no-restart").c_str(), 0755);
  }
  void TearDown() override { fs::remove_all(dir_); }

  pid_t Start(bool failing_restart) {
    const pid_t pid = fork();
    if (pid == 0) {
      setenv("TMPDIR", tmp_.c_str(), 1);
      const std::string scenario = (dir_ / "hygiene.json").string();
      const std::string server = failing_restart ? (dir_ / "no-restart").string() : "redis-server";
      execl(LOCKSIM_BINARY, LOCKSIM_BINARY, "run", scenario.c_str(), "--backend", "real",
            "--redis-server", server.c_str(), "-q", static_cast<char*>(nullptr));
      _exit(127);
    }
    return pid;
  }

  bool WaitFor(const std::function<bool()>& done, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return done();
  }

  fs::path dir_, tmp_;
};

TEST_P(RealCleanupTest, LeavesNoServerSentinelOrFolderBehind) {
  const End end = GetParam();
  const pid_t pid = Start(end == End::kError);
  ASSERT_GT(pid, 0);
  // Four servers and three sentinels, all of ours.
  ASSERT_TRUE(WaitFor([&] { return ProcessesIn(tmp_.string()) == 7; }, std::chrono::seconds(20)))
      << "the run never had its 7 processes up (" << ProcessesIn(tmp_.string()) << ")";
  const int signo = end == End::kSigint    ? SIGINT
                    : end == End::kSigterm ? SIGTERM
                    : end == End::kSigkill ? SIGKILL
                                           : 0;
  if (signo != 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(700));  // mid-run: before the crash
    kill(pid, signo);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  switch (end) {
    case End::kNormal:
      ASSERT_TRUE(WIFEXITED(status));
      EXPECT_EQ(WEXITSTATUS(status), 0);
      break;
    case End::kError:
      ASSERT_TRUE(WIFEXITED(status));
      EXPECT_EQ(WEXITSTATUS(status), 3);
      break;
    case End::kSigkill:
      EXPECT_TRUE(WIFSIGNALED(status));
      break;
    default:
      ASSERT_TRUE(WIFEXITED(status));
      EXPECT_EQ(WEXITSTATUS(status), 128 + signo);
  }
  // The kernel delivers the parent-death signal asynchronously: allow it a moment.
  EXPECT_TRUE(WaitFor([&] { return ProcessesIn(tmp_.string()) == 0; }, std::chrono::seconds(5)))
      << ProcessesIn(tmp_.string()) << " processes of ours left";
  if (end == End::kSigkill) {
    // Nothing could clean up after a SIGKILL: the next run does.
    EXPECT_FALSE(fs::is_empty(tmp_));
    const std::string cmd = "TMPDIR=" + tmp_.string() + " " + LOCKSIM_BINARY + " run " +
                            ScenarioPath("baseline-contention") +
                            " --algorithm set-nx-px --backend real -q";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }
  EXPECT_TRUE(fs::is_empty(tmp_)) << "temporary folder left in " << tmp_;
}

INSTANTIATE_TEST_SUITE_P(Ends, RealCleanupTest,
                         ::testing::Values(End::kNormal, End::kError, End::kSigint,
                                           End::kSigterm, End::kSigkill),
                         [](const auto& info) { return EndName(info.param); });

}  // namespace
}  // namespace locksim
