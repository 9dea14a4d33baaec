// Third-party lock clients driven through the adapter protocol
// (docs/adapters.md), on real redis-server processes: redis-py's own Lock
// losing mutual exclusion when its process is stopped (SIGSTOP) for longer
// than its timeout; broken adapters (tests/real/fake_adapter.py) ending the run
// with a clear message, never a hang; and no adapter process left behind on
// any path out.
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/core/errors.h"
#include "sim/explore/explore.h"
#include "sim/explore/generate.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "tests/testing/scenario_paths.h"

namespace locksim {
namespace {

// Every child process of this test process, zombies included (a child
// killed but not reaped is still listed).
std::vector<pid_t> Children() {
  std::vector<pid_t> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t paren = stat.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream rest(stat.substr(paren + 2));
    char state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == getpid()) out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

std::string FakeAdapter() { return std::string(LOCKSIM_SOURCE_DIR) + "/tests/real/fake_adapter.py"; }

// One client, two acquisitions, a short acquire timeout (1 s): a silent
// adapter is given up on after 1 s + the 5 s margin.
constexpr char kOneClient[] = R"({
  "duration": "30s",
  "algorithm": "redis-py",
  "real_time_scale": "1",
  "lock": {"key": "lock:fake", "ttl": "5s", "retry_delay": "100ms", "acquire_timeout": "1s"},
  "clients": [{"name": "A", "hold": "100ms", "iterations": 2}]
})";

class AdapterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pids_ = (std::filesystem::temp_directory_path() /
             ("locksim-fake-pids-" + std::to_string(getpid())))
                .string();
    std::filesystem::remove(pids_);
    setenv("LOCKSIM_FAKE_ADAPTER_PIDS", pids_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("LOCKSIM_FAKE_ADAPTER");
    unsetenv("LOCKSIM_FAKE_ADAPTER_PIDS");
    std::filesystem::remove(pids_);
  }

  RunResult RunFake(const std::string& mode, const std::string& text = kOneClient) {
    setenv("LOCKSIM_FAKE_ADAPTER", mode.c_str(), 1);
    RunOptions o;
    o.backend = Backend::kReal;
    o.adapter = FakeAdapter();
    return RunScenario(ParseScenario(text, "fake.json"), o);
  }

  // The fake adapters started so far, by the pids they wrote down.
  std::vector<pid_t> FakePids() const {
    std::vector<pid_t> out;
    std::ifstream in(pids_);
    for (long pid; in >> pid;) out.push_back(static_cast<pid_t>(pid));
    return out;
  }

  void ExpectNoAdapterLeft() {
    EXPECT_EQ(Children(), std::vector<pid_t>{}) << "a child process outlived the run";
    for (pid_t pid : FakePids()) {
      EXPECT_NE(kill(pid, 0), 0) << "fake adapter " << pid << " still exists";
    }
  }

  std::string pids_;
};

TEST_F(AdapterTest, RedisPyLosesMutualExclusionWhenStoppedPastItsTimeout) {
  RunOptions o;
  o.algorithm = "redis-py";
  o.backend = Backend::kReal;
  RunResult r = RunScenario(LoadScenario(ScenarioPath("f16-redis-py-pause")), o);
  EXPECT_EQ(r.verdict(), Verdict::kViolated);
  EXPECT_EQ(r.OverlapPairs(), std::vector<std::string>{"A/B"});
  EXPECT_FALSE(r.effect.holds) << "A's late write should lose B's update";
  EXPECT_EQ(r.ExpectationMet(), true);
  // The adapter's replies are in the history, with the client's own view
  // of its lease; A's release finds B's key gone or B's, and says so.
  bool saw_lease = false, saw_not_owned = false;
  for (const Op& op : r.history.ops()) {
    if (op.f != OpF::kAdapter || op.type != OpType::kOk) continue;
    const nlohmann::json reply = nlohmann::json::parse(r.history.text(op));
    saw_lease |= reply.contains("lease_ms");
    saw_not_owned |= r.history.name(op.actor) == "A" &&
                     reply.value("error", "").find("LockNotOwnedError") != std::string::npos;
  }
  EXPECT_TRUE(saw_lease);
  EXPECT_TRUE(saw_not_owned);
  // redis-py's own commands, as its connections through the proxy carried
  // them (issue 17): its SET NX PX and its release script, each answered,
  // and the state changes they caused put down to their client.
  int64_t invokes = 0, replies = 0;
  bool saw_set = false, saw_release_script = false;
  std::set<std::string> set_the_key;
  for (const Op& op : r.history.ops()) {
    if (op.f == OpF::kRedis) {
      EXPECT_TRUE(r.history.name(op.actor) == "A" || r.history.name(op.actor) == "B");
      if (op.type == OpType::kInvoke) {
        ++invokes;
        const CommandView cmd = r.history.command(op);
        saw_set |= cmd.size() == 6 && cmd[0] == "SET" && cmd[1] == "lock:report" &&
                   cmd[3] == "PX" && cmd[5] == "NX";
        saw_release_script |= cmd[0] == "EVALSHA" || cmd[0] == "EVAL";
      } else {
        ++replies;
      }
    }
    if (op.f == OpF::kState && op.subject >= 0 && r.history.state(op).present) {
      set_the_key.insert(r.history.name(op.subject));
    }
  }
  EXPECT_TRUE(saw_set);
  EXPECT_TRUE(saw_release_script);
  EXPECT_EQ(r.redis_commands, invokes);
  EXPECT_EQ(replies, invokes);
  EXPECT_EQ(set_the_key, (std::set<std::string>{"A", "B"}));
  ExpectNoAdapterLeft();
}

// A trigger on the library's own command (issue 17): A's redis-py process
// is stopped right after its SET NX PX leaves, before it can see the reply
// (F10, a pause during acquire, on the library people ship).
// A send trigger on a library's own command (its SET, or node-redlock's
// acquire script) stops the library process right after that command has
// left it: the pause follows the command in the history at once, and the
// acquire returns only once the process is continued. No node or python
// process is left behind.
TEST_F(AdapterTest, ATriggerFiresOnTheLibrarysOwnCommand) {
  const std::pair<std::string, std::string> cases[] = {
      {"redis-py", "SET"}, {"redis-semaphore", "SET"}, {"node-redlock", "EVALSHA"}};
  for (const auto& [library, command] : cases) {
    SCOPED_TRACE(library);
    RunOptions o;
    o.backend = Backend::kReal;
    o.algorithm = library;
    RunResult r = RunScenario(ParseScenario(R"({
      "duration": "10s", "algorithm": "redis-py", "real_time_scale": "1",
      "lock": {"key": "lock:tap", "ttl": "2s", "retry_delay": "100ms", "acquire_timeout": "10s"},
      "clients": [{"name": "A", "hold": "100ms", "iterations": 1}],
      "faults": [{"type": "pause", "process": "A", "duration": "3s",
                  "on": {"process": "A", "event": "send", "command": ")" + command + R"("}}]
    })", "tap.json"), o);
    int64_t sent_at = -1, pause_at = -1;
    Nanos acquired{-1};
    for (const Op& op : r.history.ops()) {
      if (sent_at < 0 && op.f == OpF::kRedis && op.type == OpType::kInvoke &&
          CommandNameIs(r.history.command(op).name(), command)) {
        sent_at = r.history.IndexOf(op);
      }
      if (pause_at < 0 && op.f == OpF::kPause) pause_at = r.history.IndexOf(op);
      if (acquired < Nanos{0} && op.f == OpF::kAcquire && op.type == OpType::kOk) acquired = op.time;
    }
    ASSERT_GE(sent_at, 0) << "the library's " << command << " is not in the history";
    EXPECT_EQ(pause_at, sent_at + 1) << "the pause should follow the " << command << " at once";
    // The library returned from acquire only once it was continued.
    EXPECT_GE(acquired, std::chrono::milliseconds(2900));
    EXPECT_EQ(r.acquisitions, 1);
    EXPECT_TRUE(r.unfired.empty());
    ExpectNoAdapterLeft();
  }
}

TEST_F(AdapterTest, RedisPyIsBadInputOnTheVirtualBackend) {
  RunOptions o;
  o.algorithm = "redis-py";
  try {
    RunScenario(LoadScenario(ScenarioPath("f16-redis-py-pause")), o);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("needs --backend real"), std::string::npos) << e.what();
  }
}

TEST_F(AdapterTest, AWellBehavedAdapterRunsAndIsStoppedDuringAPause) {
  RunResult r = RunFake("good", R"({
    "duration": "30s", "algorithm": "redis-py", "real_time_scale": "1",
    "lock": {"ttl": "5s", "acquire_timeout": "1s"},
    "clients": [{"name": "A", "hold": "1500ms", "iterations": 1}],
    "faults": [{"type": "pause", "process": "A", "duration": "1s",
                "on": {"process": "A", "event": "enter", "after": "100ms"}}]
  })");
  EXPECT_EQ(r.verdict(), Verdict::kSafe);
  EXPECT_EQ(r.acquisitions, 1);
  // --adapter PROGRAM alone: the variant is named after the program, not
  // after the scenario's "algorithm" (redis-py).
  EXPECT_EQ(r.algorithm, "fake_adapter");
  ASSERT_TRUE(r.library.has_value());
  EXPECT_EQ(r.library->name, "fakelib 0.1");
  // The release reply: the adapter's own ticker saw it stopped for ~1 s.
  int64_t max_gap = -1;
  for (const Op& op : r.history.ops()) {
    if (op.f != OpF::kAdapter || op.type != OpType::kOk) continue;
    const nlohmann::json reply = nlohmann::json::parse(r.history.text(op));
    if (reply.contains("max_gap_ms")) max_gap = reply["max_gap_ms"].get<int64_t>();
  }
  EXPECT_GE(max_gap, 900) << "the adapter was not stopped (SIGSTOP) during the pause";
  EXPECT_LT(max_gap, 3000);
  ExpectNoAdapterLeft();
}

TEST_F(AdapterTest, ABrokenAdapterEndsTheRunWithAClearMessage) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"garbage", "sent a line that is not a JSON object: \"this is not JSON\""},
      {"wrong-id", "when the reply to request 1 (acquire) was due"},
      {"not-ok", "could not carry out request 1 (acquire)"},
  };
  for (const auto& [mode, message] : cases) {
    const auto start = std::chrono::steady_clock::now();
    try {
      RunFake(mode);
      ADD_FAILURE() << mode << ": expected HarnessError";
    } catch (const HarnessError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("the fakelib 0.1 adapter of client A"), std::string::npos) << what;
      EXPECT_NE(what.find(message), std::string::npos) << mode << ": " << what;
      EXPECT_NE(what.find("its stderr ("), std::string::npos) << what;
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5)) << mode;
    ExpectNoAdapterLeft();
  }
}

// The crash a library failure records: under the nemesis, its subject the
// client's actor, naming what the adapter did.
int CrashesOf(const RunResult& r, const std::string& client, const std::string& what) {
  int n = 0;
  for (const Op& op : r.history.ops()) {
    if (op.f == OpF::kCrash && op.subject == r.history.Find(client) &&
        r.history.text(op).find(what) != std::string::npos) {
      ++n;
    }
  }
  return n;
}

TEST_F(AdapterTest, ASilentAdapterIsGivenUpOnNotWaitedForForEver) {
  const auto start = std::chrono::steady_clock::now();
  // A library that never answers hangs its client: the client is killed
  // and the run goes on (here, to its end: A was its only client).
  RunResult r = RunFake("silent");
  ASSERT_TRUE(r.library.has_value());
  ASSERT_EQ(r.library->failures.size(), 1u);
  const LibraryFailure& f = r.library->failures[0];
  EXPECT_EQ(f.client, "A");
  EXPECT_NE(f.what.find(R"(did not answer request "{"id":1,"op":"acquire"}" within 6s)"),
            std::string::npos)
      << f.what;
  EXPECT_NE(f.what.find("killed"), std::string::npos) << f.what;
  EXPECT_EQ(CrashesOf(r, "A", "did not answer"), 1);
  EXPECT_EQ(r.acquisitions, 0);
  // The acquire timeout (1 s) plus the 5 s margin.
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, std::chrono::seconds(6));
  EXPECT_LT(took, std::chrono::seconds(40));  // the scenario's 30 s, and no more
  ExpectNoAdapterLeft();
}

constexpr char kTwoClients[] = R"({
  "duration": "3s",
  "algorithm": "redis-py",
  "real_time_scale": "1",
  "lock": {"key": "lock:fake", "ttl": "5s", "retry_delay": "100ms", "acquire_timeout": "1s"},
  "clients": [{"name": "A", "hold": "100ms", "iterations": 2},
              {"name": "B", "hold": "100ms", "iterations": 2, "start": "1s"}]
})";

TEST_F(AdapterTest, AnAdapterThatDiesIsItsClientCrashingAndTheRunGoesOn) {
  for (const std::string mode : {"raise", "exit"}) {
    SCOPED_TRACE(mode);
    setenv("LOCKSIM_FAKE_ADAPTER", mode.c_str(), 1);
    RunOptions o;
    o.backend = Backend::kReal;
    o.adapter = FakeAdapter();
    const RunResult r = RunScenario(ParseScenario(kTwoClients, "fake.json"), o);
    // B (its library good) goes on to its two acquisitions after A died.
    EXPECT_EQ(r.verdict(), Verdict::kSafe);
    EXPECT_EQ(r.acquisitions, 2);
    ASSERT_TRUE(r.library.has_value());
    EXPECT_EQ(r.library->name, "fakelib 0.1");
    ASSERT_EQ(r.library->failures.size(), 1u);
    const LibraryFailure& f = r.library->failures[0];
    EXPECT_EQ(f.client, "A");
    EXPECT_EQ(f.what, "exited with status 1 while serving acquire");
    EXPECT_NE(f.stderr_tail.find(mode == "raise" ? "TypeError: int() argument"
                                                 : "fake adapter: giving up on acquire"),
              std::string::npos)
        << f.stderr_tail;
    EXPECT_EQ(CrashesOf(r, "A", "exited with status 1 while serving acquire"), 1);
    ExpectNoAdapterLeft();
  }
}

TEST_F(AdapterTest, ALibraryErrorIsCountedApartFromTimeouts) {
  setenv("LOCKSIM_FAKE_ADAPTER", "error", 1);
  RunOptions o;
  o.backend = Backend::kReal;
  o.adapter = FakeAdapter();
  const RunResult r = RunScenario(ParseScenario(kTwoClients, "fake.json"), o);
  EXPECT_EQ(r.acquisitions, 2);  // B's
  EXPECT_EQ(r.failed_acquisitions, 0);
  EXPECT_EQ(r.errored_acquisitions, 2);  // A's two, each raised
  ASSERT_TRUE(r.library.has_value());
  ASSERT_EQ(r.library->errors.size(), 1u);
  const LibraryError& e = r.library->errors[0];
  EXPECT_EQ(e.op, "acquire");
  EXPECT_EQ(e.count, 2);
  EXPECT_EQ(e.first_client, "A");
  EXPECT_NE(e.text.find("TypeError: int() argument"), std::string::npos) << e.text;
  EXPECT_TRUE(r.library->failures.empty());
  // In the history: A's acquires end `info` (outcome unknown), not `fail`.
  int info = 0;
  for (const Op& op : r.history.ops()) {
    if (op.f == OpF::kAcquire && op.actor == r.history.Find("A")) {
      EXPECT_NE(op.type, OpType::kFail);
      info += op.type == OpType::kInfo;
    }
  }
  EXPECT_EQ(info, 2);
  ExpectNoAdapterLeft();
}

TEST_F(AdapterTest, AManifestRunsItsLibraryUnderItsOwnId) {
  const std::string manifest = pids_ + ".adapter.json";
  std::ofstream(manifest) << R"({"id": "fakelib", "library": "fakelib", "version": "0.1",
    "summary": "a lock that always grants", "source": "tests/real/fake_adapter.py",
    "run": ["/usr/bin/python3", ")" << FakeAdapter() << R"("],
    "install": "nothing to install", "defaults": {"acquire_timeout": "1s"}})";
  setenv("LOCKSIM_FAKE_ADAPTER", "good", 1);
  RunOptions o;
  o.backend = Backend::kReal;
  o.adapter = manifest;
  const RunResult r = RunScenario(ParseScenario(kOneClient, "fake.json"), o);
  std::filesystem::remove(manifest);
  EXPECT_EQ(r.algorithm, "fakelib");
  EXPECT_EQ(r.acquisitions, 2);
  ASSERT_TRUE(r.library.has_value());
  EXPECT_EQ(r.library->name, "fakelib 0.1");
  ExpectNoAdapterLeft();
}

// explore --backend real: a library searched, not only replayed. Seed 2
// of redis-py under pause stops a holder past its lease (as on the virtual
// Redis); the finding is kept only because its saved file, replayed on
// real servers, showed the same kind (the shrunk file also at twice the
// speed, or else the unshrunk one is saved: on a loaded machine the shrunk
// one's 74 ms of real-time margin was not always enough for this replay).
// At a tenth of real time, where every real-time margin is twice what it
// is at a twentieth. At a twentieth, the shrunk file started its two
// clients 2.5 ms of real time apart, and one `make test` in 14 that ran
// the tests on real servers while the rest compiled left the seed
// "unconfirmed" (neither the shrunk nor the unshrunk file replayed to the
// same kind every time); at a tenth, 5 ms apart, and a saved file that had
// passed its replays replayed safe here once. Shrinking on real servers
// now moves such a start 50 ms of real time back from its edge
// (kRealEdgeMargin, sim/explore/explore.cc).
TEST_F(AdapterTest, ExploreOnRealServersFindsRedisPysPauseViolationAndItReplays) {
#ifdef LOCKSIM_SANITIZE
  // Its verdict rests on real timings at 1/10 of real time, which a
  // sanitized build does not keep (as the real-parity runs, Makefile
  // test-asan); the adapter and proxy hygiene tests still run under it.
  GTEST_SKIP() << "real timings: not under the sanitizers";
#endif
  RunOptions where;
  where.backend = Backend::kReal;
  where.time_scale = TimeScale{1, 10};
  const ExploreSpec spec = MakeExploreSpec("redis-py", {"pause"}, where);
  EXPECT_TRUE(spec.single_threaded);
  EXPECT_NE(std::find(spec.commands.begin(), spec.commands.end(), "SET"), spec.commands.end())
      << "the probe saw the library's own SET through the proxy";
  SeedNote note;
  const std::optional<Finding> f = ExploreSeed(spec, 2, &note);
  ASSERT_TRUE(f.has_value()) << "unrunnable " << note.unrunnable << ", unconfirmed "
                             << note.unconfirmed;
  EXPECT_EQ(f->kind, "mutual-exclusion--pause");
  EXPECT_NE(f->text.find(R"("real_time_scale": "1/10")"), std::string::npos) << f->text;
  EXPECT_NE(f->text.find("--backend real --time-scale 1/10"), std::string::npos) << f->text;
  // The file, as `locksim run FILE --backend real` runs it.
  RunOptions replay;
  replay.backend = Backend::kReal;
  replay.label = "redis-py";
  const RunResult again = RunScenario(ParseScenario(f->text, f->file), replay);
  std::string kinds;
  for (const std::string& k : ViolationKindNames(again.Kinds())) kinds += k + " ";
  std::string overlaps;
  for (const std::string& o : again.OverlapPairs()) overlaps += o + " ";
  EXPECT_EQ(again.ExpectationMet(), true)
      << "the replay gave " << VerdictName(again.verdict()) << ", kinds " << kinds
      << "overlaps " << overlaps << "invariant " << (again.effect.holds ? "holds" : "broken")
      << "; the file:\n" << f->text;
  ExpectNoAdapterLeft();
}

TEST_F(AdapterTest, AnAdapterWhoseLibraryIsMissingIsBadInput) {
  try {
    RunFake("refuse");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot start: \"fakelib is not installed\""),
              std::string::npos)
        << e.what();
  }
  ExpectNoAdapterLeft();
}

TEST_F(AdapterTest, AMissingAdapterProgramIsBadInput) {
  RunOptions o;
  o.backend = Backend::kReal;
  o.adapter = "/nonexistent/adapter";
  EXPECT_THROW(RunScenario(ParseScenario(kOneClient, "fake.json"), o), InputError);
  ExpectNoAdapterLeft();
}

}  // namespace
}  // namespace locksim
