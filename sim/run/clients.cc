#include "sim/run/clients.h"

#include <coroutine>

namespace locksim {
namespace {

// The body of one critical section: hold the lock for spec.hold while doing
// the workload's work on the protected resource.
Task<void> Work(Runtime& runtime, ProcessEnv& env, Lock& lock, const ClientSpec& spec,
                const WorkloadSpec& workload, ProtectedResource& resource) {
  History& h = runtime.history();
  const int p = env.actor();
  const std::optional<int64_t> token = lock.FencingToken(env);
  auto write = [&](int64_t value) {
    const bool ok = resource.Write(value, token);
    h.AddNumber(runtime.Now(), p, ok ? OpType::kOk : OpType::kFail, OpF::kWrite, value, token);
  };
  switch (workload.type) {
    case WorkloadSpec::Type::kCommands:
      for (size_t i = 0; i < workload.commands.size(); ++i) {
        Command cmd(workload.commands[i].begin(), workload.commands[i].end());
        Reply reply = co_await env.Call(0, cmd);
        // The scenario gives the reply as redis-cli prints it.
        const bool same = reply.ToString() == workload.replies[i];
        h.AddReplyCheck(runtime.Now(), p, same ? OpType::kOk : OpType::kFail,
                        ReplyCheck{std::move(cmd), std::move(reply), workload.replies[i]});
      }
      co_await env.SleepFor(spec.hold);
      break;
    case WorkloadSpec::Type::kNone:
    case WorkloadSpec::Type::kScheduledJob:  // the job itself is recorded by the caller
      co_await env.SleepFor(spec.hold);
      break;
    case WorkloadSpec::Type::kCounter: {
      // Read, work, write back: the classic lost update under overlap.
      const int64_t v = resource.Read();
      h.AddNumber(runtime.Now(), p, OpType::kOk, OpF::kRead, v);
      co_await env.SleepFor(spec.hold);
      write(v + 1);
      break;
    }
    case WorkloadSpec::Type::kInventory: {
      // Check the stock, take payment (the work), decrement: "never oversell".
      const int64_t stock = resource.Read();
      h.AddNumber(runtime.Now(), p, OpType::kOk, OpF::kRead, stock);
      co_await env.SleepFor(spec.hold);
      if (stock > 0) write(stock - 1);
      break;
    }
    case WorkloadSpec::Type::kTokenRefresh: {
      // Seed 004: if the cached token is missing or invalidated, fetch a new
      // one (the work) and cache it; otherwise use the cached one.
      const int64_t epoch = runtime.Now() / workload.token_ttl;
      const int64_t cached = resource.Read();  // epoch the cached token was fetched in
      h.AddNumber(runtime.Now(), p, OpType::kOk, OpF::kRead, cached);
      if (cached < epoch) {
        co_await env.SleepFor(spec.hold);
        h.AddNumber(runtime.Now(), p, OpType::kOk, OpF::kRefresh, epoch);
        write(epoch);
      }
      break;
    }
  }
}

// A fault triggered by the step just recorded (a pause "when A has
// acquired") takes effect before the thread's next step: the thread waits
// here until the process resumes, and never comes back if it crashed.
// An awaiter, not a coroutine: it is awaited five times a cycle, and a
// process that can run (nearly always) goes on without suspending.
struct Checkpoint {
  Runtime& runtime;
  const ProcessEnv& env;

  bool await_ready() const { return runtime.Runnable(env.process()); }
  void await_suspend(std::coroutine_handle<> h) const {
    runtime.Resume(runtime.Now(), env.process(), h, env.incarnation());
  }
  void await_resume() const noexcept {}
};

// How an acquire or release ended: ok, fail (timed out, nothing to
// release), or info when the lock code raised an error (outcome unknown).
OpType Outcome(Lock& lock, ProcessEnv& env, bool done) {
  const bool raised = !lock.TakeError(env).empty();
  if (done) return OpType::kOk;
  return raised ? OpType::kInfo : OpType::kFail;
}

Task<bool> Cycle(Runtime& runtime, ProcessEnv& env, Lock& lock, const ClientSpec& spec,
                 const std::string& key, const WorkloadSpec& workload,
                 ProtectedResource& resource, std::optional<int64_t> tick) {
  History& h = runtime.history();
  const int p = env.actor();
  h.AddStep(runtime.Now(), p, OpType::kInvoke, OpF::kAcquire, key);
  co_await Checkpoint{runtime, env};
  const bool acquired = co_await lock.Acquire(env);
  h.AddStep(runtime.Now(), p, Outcome(lock, env, acquired), OpF::kAcquire, key);
  co_await Checkpoint{runtime, env};
  if (!acquired) co_return false;

  h.AddStep(runtime.Now(), p, OpType::kInvoke, OpF::kCs, key);
  co_await Checkpoint{runtime, env};
  if (tick) h.AddNumber(runtime.Now(), p, OpType::kOk, OpF::kJob, *tick);
  if (spec.reenter) {
    // Seed 004's nested call: a method that holds the lock calls another
    // that takes it too, and releases it in a `finally`.
    co_await env.SleepFor(spec.hold / 2);
    h.AddStep(runtime.Now(), p, OpType::kInvoke, OpF::kAcquire, key, /*nested=*/true);
    const bool inner = co_await lock.Acquire(env);
    h.AddStep(runtime.Now(), p, Outcome(lock, env, inner), OpF::kAcquire, key, /*nested=*/true);
    co_await env.SleepFor(spec.hold / 4);
    h.AddStep(runtime.Now(), p, OpType::kInvoke, OpF::kRelease, key, /*nested=*/true);
    const bool inner_released = co_await lock.Release(env);
    h.AddStep(runtime.Now(), p, Outcome(lock, env, inner_released), OpF::kRelease, key,
              /*nested=*/true);
    co_await env.SleepFor(spec.hold - spec.hold / 2 - spec.hold / 4);
  } else {
    co_await Work(runtime, env, lock, spec, workload, resource);
  }
  h.AddStep(runtime.Now(), p, OpType::kOk, OpF::kCs, key);
  co_await Checkpoint{runtime, env};

  h.AddStep(runtime.Now(), p, OpType::kInvoke, OpF::kRelease, key);
  co_await Checkpoint{runtime, env};
  const bool released = co_await lock.Release(env);
  h.AddStep(runtime.Now(), p, Outcome(lock, env, released), OpF::kRelease, key);
  co_return true;
}

}  // namespace

Task<void> RunClient(Runtime& runtime, ProcessEnv& env, Lock& lock, const ClientSpec& spec,
                     const std::string& key, const WorkloadSpec& workload,
                     ProtectedResource& resource) {
  for (int64_t i = 0; spec.iterations == 0 || i < spec.iterations; ++i) {
    std::optional<int64_t> tick;
    if (workload.type == WorkloadSpec::Type::kScheduledJob) {
      // A scheduler on every node fires at each tick of its own clock, and
      // every node tries to take the lock for that tick's run.
      const int64_t period = workload.tick.count();
      const int64_t local = env.Now().count();
      const int64_t next = (local / period + 1) * period;
      co_await env.SleepFor(Nanos(next - local));
      tick = next / period - (kVirtualEpoch.count() / period);
    } else if (i > 0 && spec.think.count() > 0) {
      co_await env.SleepFor(spec.think);
    }
    co_await Cycle(runtime, env, lock, spec, key, workload, resource, tick);
  }
}

Task<void> RunLimiterClient(Runtime& runtime, ProcessEnv& env, Limiter& limiter,
                            const ClientSpec& spec, const std::string& key) {
  History& h = runtime.history();
  for (int64_t i = 0; spec.iterations == 0 || i < spec.iterations; ++i) {
    if (i > 0 && spec.think.count() > 0) co_await env.SleepFor(spec.think);
    h.AddStep(runtime.Now(), env.actor(), OpType::kInvoke, OpF::kAdmit, key);
    const Admission a = co_await limiter.Admit(env);
    h.AddNumber(runtime.Now(), env.actor(), a.admitted ? OpType::kOk : OpType::kFail, OpF::kAdmit,
                a.count);
  }
}

}  // namespace locksim
