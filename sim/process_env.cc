#include "sim/process_env.h"

#include <coroutine>

namespace locksim {
namespace {

// Suspends the calling coroutine until the world delivers the reply. The
// awaiter lives in the coroutine frame, so `reply` outlives the suspension.
struct CallAwaiter {
  Runtime* runtime;
  int process;
  int actor;
  int node;
  Command cmd;
  Reply reply;

  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    runtime->Send(process, actor, node, std::move(cmd), [this, h](Reply r) {
      reply = std::move(r);
      h.resume();
    });
  }
  Reply await_resume() { return std::move(reply); }
};

struct SleepAwaiter {
  Runtime* runtime;
  int process;
  Nanos d;

  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    runtime->After(d, process, [h] { h.resume(); });
  }
  void await_resume() const noexcept {}
};

struct WaitAwaiter {
  Runtime* runtime;
  int process;
  Signal* signal;
  Nanos timeout;
  bool notified = false;

  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    auto waiter = std::make_shared<Signal::Waiter>();
    Runtime* rt = runtime;
    const int p = process;
    bool* result = &notified;
    // Either the notification or the timeout wakes the thread, never both;
    // the wake-up is an event of the process, so it waits out a pause.
    waiter->wake = [rt, p, h, result](bool by_notify) {
      *result = by_notify;
      rt->At(rt->Now(), p, [h] { h.resume(); });
    };
    signal->Add(waiter);
    rt->After(timeout, p, [waiter] {
      if (waiter->done) return;
      waiter->done = true;
      waiter->wake(false);
    });
  }
  bool await_resume() const noexcept { return notified; }
};

}  // namespace

Task<Reply> ProcessEnv::Call(int node, Command cmd) {
  if (node < 0 || node >= runtime_->NodeCount()) {
    runtime_->InvariantBroken("lock code called node " + std::to_string(node) + " of " +
                              std::to_string(runtime_->NodeCount()));
  }
  History& h = runtime_->history();
  h.Add(runtime_->Now(), actor_, OpType::kInvoke, OpF::kRedis, FormatCommand(cmd), node);
  ++*commands_sent_;
  // A named awaiter, not a temporary: g++ 12 destroys the members of a
  // prvalue awaiter in a co_await expression twice (GCC PR 100611 family).
  CallAwaiter awaiter{runtime_, process_, actor_, node, std::move(cmd), {}};
  Reply reply = co_await awaiter;
  h.Add(runtime_->Now(), actor_, OpType::kOk, OpF::kRedis, reply.ToString(), node);
  co_return reply;
}

Task<void> ProcessEnv::SleepFor(Nanos d) {
  SleepAwaiter awaiter{runtime_, process_, d};
  co_await awaiter;
}

Task<bool> ProcessEnv::WaitFor(Signal& signal, Nanos timeout) {
  WaitAwaiter awaiter{runtime_, process_, &signal, timeout};
  co_return co_await awaiter;
}

void ProcessEnv::StartThread(std::string name, std::function<Task<void>(Env&)> body) {
  const int thread_id = runtime_->NextThreadId(process_);
  const int actor =
      runtime_->AddThread(process_, runtime_->ProcessName(process_) + ":" + name);
  auto env = std::make_shared<ProcessEnv>(runtime_, process_, actor, thread_id);
  env->commands_sent_ = commands_sent_;  // counted with the process
  Task<void> task = body(*env);
  runtime_->Adopt(env);
  runtime_->Spawn(process_, runtime_->Now(), std::move(task), /*daemon=*/true);
}

}  // namespace locksim
