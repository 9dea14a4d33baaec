// A real run stopped from outside leaves nothing behind: no redis-server of
// ours, and (for the signals that can be caught) no temporary folder.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/scenario_paths.h"

namespace locksim {
namespace {

namespace fs = std::filesystem;

// redis-server processes working inside `dir`: Redis rewrites its process
// title, but it chdir()s into its --dir, which our servers put in the test's
// own TMPDIR.
int ProcessesMentioning(const std::string& dir) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "comm");
    std::string comm;
    std::getline(in, comm);
    if (comm.rfind("redis-server", 0) != 0) continue;
    std::error_code ec;
    const std::string cwd = fs::read_symlink(entry.path() / "cwd", ec).string();
    if (!ec && cwd.rfind(dir, 0) == 0) ++count;
  }
  return count;
}

class RealCleanupTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "locksim-cleanup-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_P(RealCleanupTest, SignalMidRunLeavesNoServerBehind) {
  const int signo = GetParam();
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setenv("TMPDIR", dir_.c_str(), 1);
    // A real run of several seconds (the F2 story at 1/50 of its time).
    const std::string scenario = ScenarioPath("f02-del-frees-other");
    execl(LOCKSIM_BINARY, LOCKSIM_BINARY, "run", scenario.c_str(), "--backend", "real",
          "--time-scale", "1/50", "-q", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait until its redis-server is up.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (ProcessesMentioning(dir_.string()) == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(ProcessesMentioning(dir_.string()), 1) << "the run never started its server";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // mid-run
  kill(pid, signo);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);

  if (signo == SIGKILL) {
    EXPECT_TRUE(WIFSIGNALED(status));
  } else {
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 128 + signo);
  }
  // The kernel delivers the parent-death signal asynchronously: allow it a moment.
  const auto gone_by = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (ProcessesMentioning(dir_.string()) > 0 && std::chrono::steady_clock::now() < gone_by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(ProcessesMentioning(dir_.string()), 0);
  if (signo == SIGKILL) {
    // Nothing could clean up after a SIGKILL: the next run does.
    EXPECT_FALSE(fs::is_empty(dir_));
    const std::string cmd = "TMPDIR=" + dir_.string() + " " + LOCKSIM_BINARY + " run " +
                            ScenarioPath("baseline-contention") +
                            " --algorithm set-nx-px --backend real -q";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }
  EXPECT_TRUE(fs::is_empty(dir_)) << "temporary folder left in " << dir_;
}

INSTANTIATE_TEST_SUITE_P(Signals, RealCleanupTest, ::testing::Values(SIGINT, SIGTERM, SIGKILL),
                         [](const auto& info) {
                           return info.param == SIGINT    ? std::string("SIGINT")
                                  : info.param == SIGTERM ? std::string("SIGTERM")
                                                          : std::string("SIGKILL");
                         });

}  // namespace
}  // namespace locksim
