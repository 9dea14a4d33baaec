#include "sim/world/process_env.h"

#include <coroutine>

namespace locksim {
namespace {

// Suspends the calling coroutine until the world delivers the reply (or the
// socket timeout passes). The awaiter lives in the coroutine frame, so
// `reply` outlives the suspension. Every step is an event of the process's
// incarnation: a paused process sends and reads nothing until it resumes,
// and a crashed one never does.
struct CallAwaiter final : ReplySink {
  CallAwaiter(Runtime* rt, int p, int inc, int a, int n, Command c, SharedCommand s,
              Nanos call_timeout)
      : runtime(rt),
        process(p),
        incarnation(inc),
        actor(a),
        node(n),
        cmd(std::move(c)),
        shared(std::move(s)) {
    // The shorter of the call's own timeout and the socket timeout.
    const Nanos socket = runtime->call_timeout();
    timeout = call_timeout.count() > 0 && (socket.count() == 0 || call_timeout < socket)
                  ? call_timeout
                  : socket;
  }

  Runtime* runtime;
  int process;
  int incarnation;
  int actor;
  int node;
  Command cmd;
  SharedCommand shared;  // when set, the command (and `cmd` is empty)
  Nanos timeout{0};  // 0: wait for ever
  Reply reply;
  std::coroutine_handle<> handle;
  bool timed_out = false;
  // Only with a socket timeout: whether the reply or the timeout came
  // first. Shared with the timeout's event, which may run after this
  // awaiter is gone (the reply came first and the thread went on).
  std::shared_ptr<bool> settled;

  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    handle = h;
    // The command was just recorded; a fault triggered by that may have
    // paused or crashed the process before the bytes left it.
    if (runtime->Runnable(process)) {
      Send();
    } else {
      runtime->At(runtime->Now(), process, [this] { Send(); }, incarnation);
    }
  }
  Reply await_resume() { return std::move(reply); }

  void Send() {
    if (timeout.count() > 0) {
      settled = std::make_shared<bool>(false);
      runtime->After(
          timeout, process,
          [this, settled = settled] {
            if (*settled) return;
            *settled = true;
            timed_out = true;
            runtime->Abandon(actor, node);
            reply = Reply::Error(
                std::string("ERR locksim: no reply within the ") +
                (timeout == runtime->call_timeout() ? "socket" : "request") + " timeout (" +
                FormatDuration(timeout) + ")");
            Deliver();
          },
          incarnation);
    }
    if (shared) {
      runtime->SendShared(process, actor, node, std::move(shared), this);
    } else {
      runtime->Send(process, actor, node, std::move(cmd), this);
    }
  }

  void Receive(Reply&& r) override {
    // Abandoned (the timeout came first), or the process died and came
    // back while the command was in flight.
    if (settled && *settled) return;
    if (runtime->Incarnation(process) != incarnation) return;
    if (settled) *settled = true;
    reply = std::move(r);
    Deliver();
  }

  // Records the reply (or the timeout: an unknown outcome) and resumes the
  // thread, unless a fault that the record triggered stopped the process.
  void Deliver() {
    // The history keeps a copy; the reply itself moves on to the thread.
    runtime->history().AddReply(runtime->Now(), actor, timed_out ? OpType::kInfo : OpType::kOk,
                                node, reply);
    if (runtime->Runnable(process)) {
      handle.resume();
    } else {
      runtime->Resume(runtime->Now(), process, handle, incarnation);
    }
  }
};

struct WaitAwaiter {
  Runtime* runtime;
  int process;
  int incarnation;
  Signal* signal;
  Nanos timeout;
  bool notified = false;

  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    auto waiter = std::make_shared<Signal::Waiter>();
    Runtime* rt = runtime;
    const int p = process;
    const int inc = incarnation;
    bool* result = &notified;
    // Either the notification or the timeout wakes the thread, never both;
    // the wake-up is an event of the process, so it waits out a pause.
    waiter->wake = [rt, p, inc, h, result](bool by_notify) {
      if (rt->Incarnation(p) != inc) return;  // the process died meanwhile
      *result = by_notify;
      rt->Resume(rt->Now(), p, h, inc);
    };
    signal->Add(waiter);
    rt->After(
        timeout, p,
        [waiter] {
          if (waiter->done) return;
          waiter->done = true;
          waiter->wake(false);
        },
        inc);
  }
  bool await_resume() const noexcept { return notified; }
};

}  // namespace

Task<Reply> ProcessEnv::Call(int node, Command cmd, Nanos timeout) {
  return Send(node, std::move(cmd), nullptr, timeout);
}

Task<Reply> ProcessEnv::CallShared(int node, SharedCommand cmd, Nanos timeout) {
  return Send(node, Command(), std::move(cmd), timeout);
}

Task<Reply> ProcessEnv::Send(int node, Command cmd, SharedCommand shared, Nanos timeout) {
  if (node < 0 || node >= runtime_->NodeCount()) {
    runtime_->InvariantBroken("lock code called node " + std::to_string(node) + " of " +
                              std::to_string(runtime_->NodeCount()));
  }
  // The history copies the command's bytes into its buffer (a shared one's
  // only when it is not the one it stored last for this thread); the
  // command itself moves on to the world.
  if (shared) {
    runtime_->history().AddCommand(runtime_->Now(), actor_, node, shared);
  } else {
    runtime_->history().AddCommand(runtime_->Now(), actor_, node, cmd);
  }
  // A named awaiter, not a temporary: g++ 12 destroys the members of a
  // prvalue awaiter in a co_await expression twice (GCC PR 100611 family).
  CallAwaiter awaiter(runtime_, process_, incarnation_, actor_, node, std::move(cmd),
                      std::move(shared), timeout);
  co_return co_await awaiter;
}

Command ProcessEnv::CopyToSend(const Command& cmd) {
  Command copy = runtime_->TakeServedCommand();
  copy.assign(cmd.begin(), cmd.end());  // each string into a served one's buffer
  return copy;
}

void ProcessEnv::ResumeAfter(Nanos d, std::coroutine_handle<> thread) {
  runtime_->Resume(runtime_->Now() + d, process_, thread, incarnation_);
}

Task<bool> ProcessEnv::WaitFor(Signal& signal, Nanos timeout) {
  WaitAwaiter awaiter{runtime_, process_, incarnation_, &signal, timeout};
  co_return co_await awaiter;
}

void ProcessEnv::StartThread(std::string name, std::function<Task<void>(Env&)> body) {
  const int thread_id = runtime_->NextThreadId(process_);
  const int actor =
      runtime_->AddThread(process_, runtime_->ProcessName(process_) + ":" + name);
  auto env = std::make_shared<ProcessEnv>(runtime_, process_, actor, thread_id);
  Task<void> task = body(*env);
  runtime_->Adopt(env);
  // Started by a thread that a fault stopped just now: the thread starts
  // when the process resumes, and never if it crashed.
  runtime_->Spawn(process_, runtime_->Now(), std::move(task), /*daemon=*/true, incarnation_);
}

}  // namespace locksim
