#include "sim/world/process_env.h"

#include <coroutine>

namespace locksim {

// A call in flight: the command on its way, then the reply, until the
// calling coroutine takes it (FinishCall). Every step is an event of the
// process's incarnation: a paused process sends and reads nothing until it
// resumes, and a crashed one never does (its calls stay in calls_, never
// reused).
struct ProcessEnv::InFlight final : Env::CallSlot, ReplySink {
  Runtime* runtime = nullptr;
  int process = 0;
  int incarnation = 0;
  int actor = 0;
  int node = 0;
  Command cmd;
  SharedCommand shared;  // when set, the command (and `cmd` is empty)
  Nanos timeout{0};  // 0: wait for ever
  Reply reply;
  std::coroutine_handle<> caller;
  bool timed_out = false;
  // Whether the reply or the timeout came first. A timeout's event stays
  // queued after its call ended (the slot may carry a later call by then):
  // it knows its call by the serial, and does nothing unless that call is
  // still unsettled. Two captured words, which std::function keeps without
  // an allocation (a client retrying at once has a timeout pending per
  // call). Reading the slot is safe however late: a run's envs, which own
  // the slots, outlive its world's queue (ScenarioRun declares envs_
  // first; adopted envs die inside ~Runtime, whose queue runs no more).
  uint64_t serial = 0;
  bool settled = false;

  void Send() {
    if (timeout.count() > 0) {
      runtime->After(
          timeout, process,
          [this, call = serial] {
            if (call != serial || settled) return;
            settled = true;
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
    if (settled) return;
    if (runtime->Incarnation(process) != incarnation) return;
    settled = true;
    reply = std::move(r);
    Deliver();
  }

  // Records the reply (or the timeout: an unknown outcome) and resumes the
  // thread, unless a fault that the record triggered stopped the process.
  // The last thing it does: the thread may start its next call in this
  // slot before resume() returns.
  void Deliver() {
    // The history keeps a copy; the reply itself moves on to the thread.
    runtime->history().AddReply(runtime->Now(), actor, timed_out ? OpType::kInfo : OpType::kOk,
                                node, reply);
    if (runtime->Runnable(process)) {
      caller.resume();
    } else {
      runtime->Resume(runtime->Now(), process, caller, incarnation);
    }
  }
};

namespace {

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

// Out of line, where InFlight is known (calls_ holds them).
ProcessEnv::ProcessEnv(Runtime* runtime, int process)
    : ProcessEnv(runtime, process, runtime->MainActor(process), 1) {}
ProcessEnv::ProcessEnv(Runtime* runtime, int process, int actor, int thread_id)
    : runtime_(runtime),
      process_(process),
      incarnation_(runtime->Incarnation(process)),
      actor_(actor),
      thread_id_(thread_id) {}
ProcessEnv::~ProcessEnv() = default;

Task<Reply> ProcessEnv::Call(int node, Command cmd, Nanos timeout) {
  co_return co_await Calling{this, {node, &cmd, nullptr, nullptr, timeout}};
}

std::coroutine_handle<> ProcessEnv::StartCall(const CallArgs& args,
                                              std::coroutine_handle<> caller, CallSlot** slot) {
  if (args.node < 0 || args.node >= runtime_->NodeCount()) {
    runtime_->InvariantBroken("lock code called node " + std::to_string(args.node) + " of " +
                              std::to_string(runtime_->NodeCount()));
  }
  InFlight* call;
  if (idle_.empty()) {
    // Whose calls it carries is set once: a slot stays this thread's.
    calls_.push_back(std::make_unique<InFlight>());
    call = calls_.back().get();
    call->runtime = runtime_;
    call->process = process_;
    call->incarnation = incarnation_;
    call->actor = actor_;
  } else {
    call = idle_.back();
    idle_.pop_back();
  }
  *slot = call;
  call->node = args.node;
  call->caller = caller;
  ++call->serial;
  call->settled = false;
  call->timed_out = false;
  // The shorter of the call's own timeout and the socket timeout.
  const Nanos socket = runtime_->call_timeout();
  call->timeout =
      args.timeout.count() > 0 && (socket.count() == 0 || args.timeout < socket) ? args.timeout
                                                                                  : socket;
  // The history copies the command's bytes into its buffer (a shared one's
  // only when it is not the one it stored last for this thread); the
  // command itself moves on to the world.
  if (args.shared != nullptr) {
    call->shared = *args.shared;
    runtime_->history().AddCommand(runtime_->Now(), actor_, args.node, call->shared);
  } else {
    call->cmd = args.Take(*this);
    runtime_->history().AddCommand(runtime_->Now(), actor_, args.node, call->cmd);
  }
  // The command was just recorded; a fault triggered by that may have
  // paused or crashed the process before the bytes left it.
  if (runtime_->Runnable(process_)) {
    call->Send();
  } else {
    runtime_->At(runtime_->Now(), process_, [call] { call->Send(); }, incarnation_);
  }
  return std::noop_coroutine();
}

Reply ProcessEnv::FinishCall(CallSlot* slot) {
  InFlight* call = static_cast<InFlight*>(slot);
  Reply reply = std::move(call->reply);
  idle_.push_back(call);
  return reply;
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
