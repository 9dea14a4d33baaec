// AdapterLock: the Lock of a client process whose lock code is a
// third-party library in a process of its own (an adapter, e.g. redis-py's
// Lock in python3), driven over the adapter protocol of docs/adapters.md:
// one JSON object per line, requests on the adapter's stdin, one reply per
// request on its stdout, in order.
//
// The harness side stays a client process of the Runtime like any other:
// the workload records acquire / cs / release as usual, and each request
// and its reply go into the history as the thread's `adapter` ops (not
// `redis`: they are requests to the library, not Redis commands), each the
// JSON line exchanged; the reply carries the client's own view of its
// lease, lease_ms. The library's own Redis commands are recorded by the real
// world: the adapter connects through its proxy links, which are tapped
// (RealWorld::NodeAddress, DrainTapped).
//
// Replies arrive through the world's poll loop (AdapterHost::WatchFd, the
// real world's) and are delivered
// as events of the client's process, so a paused client sees them only when
// it resumes; the nemesis also SIGSTOPs / SIGCONTs / SIGKILLs the adapter
// (Signal) with the pause, its end, and a crash.
//
// What the library does is a finding; only a broken protocol is the
// harness's failure:
//   - a reply with an "error" (the library raised; the adapter caught it)
//     is counted by op and text (errors()), and the step it answers is
//     recorded `info` (Lock::TakeError);
//   - an adapter that exits or closes its stdout (while serving a request,
//     or between two: a timer of the library can throw), or does not
//     answer within a request's bound (the acquire timeout plus a margin; time it spent
//     stopped does not count) is that client crashing: it is killed, the
//     crash goes into the history (a crash op whose subject is the client),
//     the run goes on without it, and failures() says what it did, with
//     the last lines of its stderr;
//   - a reply that is not JSON, answers the wrong request or says
//     "ok": false breaks the protocol: the run ends with HarnessError
//     (exit 3), naming the adapter, the request and the tail of its stderr.
#ifndef LOCKSIM_SIM_REAL_ADAPTER_LOCK_H_
#define LOCKSIM_SIM_REAL_ADAPTER_LOCK_H_

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lockimpls/lock.h"
#include "sim/real/adapter_process.h"
#include "sim/world/world.h"
#include "sim/scenario/scenario.h"
#include "sim/core/signal.h"

namespace locksim {

// Why `algo` (adapter-driven) cannot run `scenario` here, or "" when it
// can: it needs the real backend and single-threaded clients.
std::string AdapterUnsupported(const AlgorithmInfo& algo, const Scenario& scenario,
                               bool real_backend);

class AdapterLock : public Lock {
 public:
  // How long an adapter may take to start and answer hello.
  static constexpr Nanos kHelloTimeout = std::chrono::seconds(15);
  // Added to a request's own bound (the acquire timeout; 0 for release).
  static constexpr Nanos kReplyMargin = std::chrono::seconds(5);

  // Starts the adapter of client `client` (runtime process `process`) and
  // sends it hello; does not wait for the answer. `program_override`, when
  // not empty, is run instead of `program`'s interpreter and script (the
  // --adapter option). Throws InputError when the program is missing,
  // HarnessError when it cannot be started.
  // `host` is `world`'s AdapterHost (World::adapter_host()).
  AdapterLock(World& world, AdapterHost& host, int process, std::string client,
              const AdapterProgram& program, const LockConfig& config,
              const std::string& program_override = {});
  // Says bye and stops the adapter. Does not touch the world: destroy the
  // world first (as the runner does), or while it lives only after Signal(SIGKILL).
  ~AdapterLock() override;

  // Before the run: blocks until the adapter has answered hello. Throws
  // InputError when it refuses (its library is missing: exit 2),
  // HarnessError when it fails or does not answer within kHelloTimeout.
  void AwaitHello();

  Task<bool> Acquire(Env& thread) override;
  Task<bool> Release(Env& thread) override;

  // The nemesis acting on the client process: SIGSTOP, SIGCONT, SIGKILL.
  void Signal(int signo);

  std::string TakeError(const Env& thread) override;

  pid_t pid() const { return adapter_->pid(); }
  // "redis-py 4.3.4", from the hello answer ("" until then).
  const std::string& library() const { return library_; }
  const std::string& client() const { return client_; }

  // Each error the library raised, in order: the run's result counts them
  // by op and text over every client (runner.cc, LibraryOf).
  struct Error {
    std::string op;  // "acquire", "release"
    std::string text;
    Nanos time{0};   // true time
  };
  const std::vector<Error>& errors() const { return errors_; }
  // Set when the adapter died or hung (the client crashed).
  struct Failure {
    Nanos time{0};
    std::string what;    // "exited with status 1 while serving acquire"
    std::string stderr_tail;
  };
  const std::optional<Failure>& failure() const { return failure_; }

 private:
  struct Expected {
    int64_t id;      // 0: the hello
    std::string op;  // "hello", "acquire", "release", "extend"
  };
  // Sends `request` (an id is added), records it, and waits for its reply
  // for at most `bound` of time the adapter was not stopped.
  Task<nlohmann::json> Request(Env& env, nlohmann::json request, Nanos bound);
  void OnReadable();
  void HandleLine(const std::string& line);
  // "" when the hello answer is good; else why not.
  std::string CheckHello(const nlohmann::json& reply);
  void ArmBound(int64_t id, const std::string& what, Nanos bound, Nanos stopped_before);
  // The whole message for a failure of the adapter: who, what, its stderr.
  std::string Describe(const std::string& what);
  // Die, from an event: for a failure noticed inside a coroutine.
  void DieSoon(const std::string& what);
  // The library process died or hung (`what`): kill it, record the
  // client's crash, and let the run go on without it.
  void Die(const std::string& what);
  // Notes a reply's "error", if any, for op; returns it.
  std::string NoteError(const std::string& op, const nlohmann::json& reply);

  World& world_;
  AdapterHost& host_;
  int process_;
  int incarnation_;
  std::string client_;
  std::string library_;
  LockConfig config_;
  std::unique_ptr<AdapterProcess> adapter_;
  bool dead_ = false;  // crashed (SIGKILL): its replies no longer matter
  int64_t next_id_ = 1;
  std::deque<Expected> expected_;  // sent, not yet answered, in order
  std::map<int64_t, nlohmann::json> replies_;  // answered, not yet read
  locksim::Signal replied_;
  std::string last_error_;  // of the last acquire / release, until taken
  std::vector<Error> errors_;
  std::optional<Failure> failure_;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_REAL_ADAPTER_LOCK_H_
