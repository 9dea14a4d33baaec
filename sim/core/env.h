// Env: everything lock code may see of the world, and nothing more. A lock
// variant is written once against this interface and runs unchanged on the
// virtual backend (simulated time, simulated network, virtual Redis) and on
// the real one (wall-clock time, TCP, redis-server). In LevelDB's manner the
// Env is injected, never reached through a global; in FoundationDB's manner
// time is only ever awaited, never blocked on.
#ifndef LOCKSIM_SIM_CORE_ENV_H_
#define LOCKSIM_SIM_CORE_ENV_H_

#include <algorithm>
#include <coroutine>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/core/reply.h"
#include "sim/core/signal.h"
#include "sim/core/task.h"
#include "sim/core/time.h"

namespace locksim {

class Env {
 public:
  virtual ~Env() = default;

  // What Call hands the Env: the node (0-based), the command in one of
  // three forms (exactly one is set), and the timeout (0: none).
  struct CallArgs {
    int node = 0;
    Command* moved = nullptr;               // sent as it is (moved from)
    const Command* copied = nullptr;        // the caller keeps it: sent as a copy (CopyToSend)
    const SharedCommand* shared = nullptr;  // built once for a loop (below)
    Nanos timeout{0};
    // The command as one the caller gives up: moved, copied or shared's copy.
    Command Take(Env& env) const {
      if (moved != nullptr) return std::move(*moved);
      if (copied != nullptr) return env.CopyToSend(*copied);
      return Command(**shared);
    }
  };
  // What an Env keeps of a call in flight, from StartCall to FinishCall.
  class CallSlot {
   protected:
    ~CallSlot() = default;
  };
  // What Call returns: co_await it in the expression that calls Call, as
  // it points at the command until the command is sent. A Calling kept
  // in a variable does not compile (without std::move): it is an lvalue,
  // which has no co_await (`auto c = env.Call(0, {"GET", key});
  // co_await c;` would send a command that died at the end of its line).
  // No coroutine frame of its own: a virtual run sends a command every few
  // microseconds, and a Task per call, made, resumed through and freed, was
  // a tenth of a contended run's time (perf). The call's state is the
  // Env's, in a slot; the awaiter's members are trivially destructible, and
  // must stay so (see SleepFor).
  struct [[nodiscard]] Calling {
    Env* env;
    CallArgs args;
    // Lives beside its Calling, both temporaries of the co_await's full
    // expression.
    struct Awaiter {
      const Calling* call;
      CallSlot* slot = nullptr;
      bool await_ready() const noexcept { return false; }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<> caller) {
        return call->env->StartCall(call->args, caller, &slot);
      }
      Reply await_resume() { return call->env->FinishCall(slot); }
    };
    Awaiter operator co_await() && { return Awaiter{this}; }
    Awaiter operator co_await() & = delete;  // kept in a variable: see above
  };

  // Sends `cmd` to Redis node `node` (0-based) over this process's own
  // connection and awaits the reply. A transport failure (connection lost,
  // node unreachable) arrives as an error reply, never as an exception.
  Calling Call(int node, Command&& cmd) { return Calling{this, {node, &cmd}}; }
  // The same for a command the caller keeps (a retry loop sends one again
  // and again): copied with CopyToSend when it is sent.
  Calling Call(int node, const Command& cmd) { return Calling{this, {node, nullptr, &cmd}}; }
  // The same for a command built once for a loop that sends it again and
  // again (SharedCommand): the virtual world serves it where it is, and the
  // history knows it for the one it stored last time without comparing
  // bytes (the real world writes its bytes to a socket as any command's).
  Calling Call(int node, const SharedCommand& cmd) {
    return Calling{this, {node, nullptr, nullptr, &cmd}};
  }
  // The same as a Task (for WhenAll: Redlock asks every node at once),
  // giving up after `timeout` (when > 0, and before the scenario's socket
  // timeout if that is shorter): the connection is abandoned and the reply
  // is an error, the command's outcome unknown. Redlock's per-node request
  // timeout. A wrapper that overrides it sees every command (EnvWrapper).
  virtual Task<Reply> Call(int node, Command cmd, Nanos timeout) = 0;
  // Call's work: sends the command of `args`, and resumes `caller` once
  // the reply is in (or the timeout passed). Returns the coroutine to
  // run now (a noop one, or another that does the sending), and leaves in
  // `*slot` what FinishCall needs.
  virtual std::coroutine_handle<> StartCall(const CallArgs& args, std::coroutine_handle<> caller,
                                            CallSlot** slot) = 0;
  // The reply of the call in `slot`, which ends there.
  virtual Reply FinishCall(CallSlot* slot) = 0;
  // A copy of `cmd` to send. The virtual world hands back the commands it
  // has served, and a copy goes into one of them: a retry's SET then
  // reuses its strings' buffers instead of allocating new ones (when none
  // is at hand, or one too small, it allocates as a plain copy does).
  virtual Command CopyToSend(const Command& cmd) { return cmd; }

  // Number of Redis nodes this process can talk to.
  virtual int NodeCount() const = 0;

  // This process's local clock as a unix-epoch reading. It may be offset or
  // drifting relative to true time and to other processes: that is the
  // point of clock faults.
  virtual Nanos Now() const = 0;

  // Suspends this process's current thread for `d` of true time (co_await
  // it). While the process is paused the wake-up waits for the pause to end.
  // An awaiter, not a Task: a retry loop sleeps between every two commands,
  // and a coroutine frame of its own per sleep, made, resumed through and
  // freed, cost a seed a few percent of its time (perf). Its members are
  // trivially destructible, and must stay so: g++ 12 destroys the members
  // of a prvalue awaiter in a co_await expression twice (GCC PR 100611
  // family).
  struct Sleep {
    Env* env;
    Nanos d;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> thread) { env->ResumeAfter(d, thread); }
    void await_resume() const noexcept {}
  };
  Sleep SleepFor(Nanos d) { return Sleep{this, d}; }
  // SleepFor's work: `thread` (the sleeping coroutine) resumes once `d`
  // of true time has passed, as an event of this process.
  virtual void ResumeAfter(Nanos d, std::coroutine_handle<> thread) = 0;

  // The run's seeded random source: the same seed, the same draws.
  virtual uint64_t Random() = 0;

  // Threads. An Env belongs to one thread of one client process; every
  // thread of a process stops when the process is paused.
  // This thread's id within its process (1 for the main thread), as Java's
  // Thread.getId() in Redisson's "uuid:threadId" owner names.
  virtual int ThreadId() const = 0;
  // Starts a background thread of this process running body(its Env), like
  // a Java daemon thread: the run does not wait for it to finish. For
  // renewal tasks (watchdog, refresh).
  virtual void StartThread(std::string name, std::function<Task<void>(Env&)> body) = 0;
  // Waits until `signal` is notified (true) or `timeout` passes (false).
  virtual Task<bool> WaitFor(Signal& signal, Nanos timeout) = 0;

  // Convenience: a 128-bit random token as 32 hex digits (lock owner ids).
  std::string RandomToken() {
    static constexpr char kHex[] = "0123456789abcdef";
    char out[32];
    for (int word = 0; word < 2; ++word) {
      uint64_t r = Random();
      for (int i = 0; i < 16; ++i, r >>= 4) out[word * 16 + i] = kHex[r & 15];
    }
    return std::string(out, sizeof(out));
  }
};

static_assert(std::is_trivially_destructible_v<Env::Sleep>, "see Env::SleepFor");
static_assert(std::is_trivially_destructible_v<Env::Calling>, "see Env::SleepFor");
static_assert(std::is_trivially_destructible_v<Env::Calling::Awaiter>, "see Env::SleepFor");

// An Env that forwards every call to another one, as LevelDB's EnvWrapper
// does: a recording or faulty Env for a test overrides only the method it
// changes (Call with its timeout, say, beside `using EnvWrapper::Call;`)
// and inherits the rest.
class EnvWrapper : public Env {
 public:
  // REQUIRES: `target` outlives the wrapper.
  explicit EnvWrapper(Env* target) : target_(target) {}
  Env* target() const { return target_; }

  using Env::Call;
  // Every Call, whatever its form, comes to this one as a Task (StartCall),
  // so that a wrapper that overrides it sees every command.
  Task<Reply> Call(int node, Command cmd, Nanos timeout) override {
    return target_->Call(node, std::move(cmd), timeout);
  }
  std::coroutine_handle<> StartCall(const CallArgs& args, std::coroutine_handle<> caller,
                                    CallSlot** slot) override {
    auto relay = std::make_unique<Relay>();
    relay->call = Call(args.node, args.Take(*this), args.timeout);
    *slot = relay.get();
    // Task's own awaiter: `caller` resumes when the call's task is done.
    std::coroutine_handle<> run = std::move(relay->call).operator co_await().await_suspend(caller);
    relays_.push_back(std::move(relay));
    return run;
  }
  Reply FinishCall(CallSlot* slot) override {
    auto it = std::find_if(relays_.begin(), relays_.end(),
                           [slot](const std::unique_ptr<Relay>& r) { return r.get() == slot; });
    std::unique_ptr<Relay> relay = std::move(*it);
    relays_.erase(it);
    return std::move(relay->call).operator co_await().await_resume();
  }
  Command CopyToSend(const Command& cmd) override { return target_->CopyToSend(cmd); }
  int NodeCount() const override { return target_->NodeCount(); }
  Nanos Now() const override { return target_->Now(); }
  void ResumeAfter(Nanos d, std::coroutine_handle<> thread) override {
    target_->ResumeAfter(d, thread);
  }
  uint64_t Random() override { return target_->Random(); }
  int ThreadId() const override { return target_->ThreadId(); }
  void StartThread(std::string name, std::function<Task<void>(Env&)> body) override {
    target_->StartThread(std::move(name), std::move(body));
  }
  Task<bool> WaitFor(Signal& signal, Nanos timeout) override {
    return target_->WaitFor(signal, timeout);
  }

 private:
  // A call in flight: the Task of Call that carries it.
  struct Relay : CallSlot {
    Task<Reply> call;
  };
  Env* target_;
  std::vector<std::unique_ptr<Relay>> relays_;  // a handful at most
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_CORE_ENV_H_
