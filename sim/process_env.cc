#include "sim/process_env.h"

#include <coroutine>

namespace locksim {
namespace {

// Suspends the calling coroutine until the world delivers the reply. The
// awaiter lives in the coroutine frame, so `reply` outlives the suspension.
struct CallAwaiter {
  Runtime* runtime;
  int process;
  int node;
  Command cmd;
  Reply reply;

  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    runtime->Send(process, node, std::move(cmd), [this, h](Reply r) {
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

}  // namespace

Task<Reply> ProcessEnv::Call(int node, Command cmd) {
  History& h = runtime_->history();
  h.Add(runtime_->Now(), process_, OpType::kInvoke, OpF::kRedis,
        FormatCommand(cmd), node);
  ++commands_sent_;
  // A named awaiter, not a temporary: g++ 12 destroys the members of a
  // prvalue awaiter in a co_await expression twice (GCC PR 100611 family).
  CallAwaiter awaiter{runtime_, process_, node, std::move(cmd), {}};
  Reply reply = co_await awaiter;
  h.Add(runtime_->Now(), process_, OpType::kOk, OpF::kRedis, reply.ToString(),
        node);
  co_return reply;
}

Task<void> ProcessEnv::SleepFor(Nanos d) {
  SleepAwaiter awaiter{runtime_, process_, d};
  co_await awaiter;
}

}  // namespace locksim
