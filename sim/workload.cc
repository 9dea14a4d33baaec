#include "sim/workload.h"

namespace locksim {

Task<void> RunClient(Runtime& runtime, ProcessEnv& env, Lock& lock,
                     const ClientSpec& spec, const std::string& resource) {
  History& h = runtime.history();
  const int p = env.actor();
  for (int64_t i = 0; spec.iterations == 0 || i < spec.iterations; ++i) {
    if (i > 0 && spec.think.count() > 0) co_await env.SleepFor(spec.think);
    h.Add(runtime.Now(), p, OpType::kInvoke, OpF::kAcquire, resource);
    const bool acquired = co_await lock.Acquire(env);
    h.Add(runtime.Now(), p, acquired ? OpType::kOk : OpType::kFail,
          OpF::kAcquire, resource);
    if (!acquired) continue;

    h.Add(runtime.Now(), p, OpType::kInvoke, OpF::kCs, resource);
    co_await env.SleepFor(spec.hold);
    h.Add(runtime.Now(), p, OpType::kOk, OpF::kCs, resource);

    h.Add(runtime.Now(), p, OpType::kInvoke, OpF::kRelease, resource);
    const bool released = co_await lock.Release(env);
    h.Add(runtime.Now(), p, released ? OpType::kOk : OpType::kFail,
          OpF::kRelease, resource);
  }
}

void ScheduleFaults(Runtime& runtime, const std::vector<FaultSpec>& faults,
                    const std::function<int(const std::string&)>& process_of) {
  for (const FaultSpec& f : faults) {
    const int target = process_of(f.process);
    const Nanos end = f.at + f.duration;
    const std::string value = f.process + " for " + FormatDuration(f.duration);
    runtime.At(f.at, runtime.nemesis(), [&runtime, target, end, value] {
      runtime.history().Add(runtime.Now(), runtime.history().nemesis(), OpType::kInfo,
                            OpF::kPause, value);
      runtime.Pause(target, end);
    });
    runtime.AtFirst(end, runtime.nemesis(), [&runtime, name = f.process] {
      runtime.history().Add(runtime.Now(), runtime.history().nemesis(), OpType::kInfo,
                            OpF::kResume, name);
    });
  }
}

}  // namespace locksim
