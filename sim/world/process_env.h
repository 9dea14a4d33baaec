// ProcessEnv: the Env of one thread of one client process, on either world.
// It forwards to the Runtime and records every Redis command and reply in the
// history under the thread's name (as data: the Command and the Reply), so
// that a violation can show the commands that led to it.
#ifndef LOCKSIM_SIM_WORLD_PROCESS_ENV_H_
#define LOCKSIM_SIM_WORLD_PROCESS_ENV_H_

#include <memory>
#include <vector>

#include "sim/core/env.h"
#include "sim/world/runtime.h"

namespace locksim {

class ProcessEnv : public Env {
 public:
  // The main thread of `process`.
  ProcessEnv(Runtime* runtime, int process);
  ProcessEnv(Runtime* runtime, int process, int actor, int thread_id);
  ~ProcessEnv() override;

  using Env::Call;
  Task<Reply> Call(int node, Command cmd, Nanos timeout) override;
  std::coroutine_handle<> StartCall(const CallArgs& args, std::coroutine_handle<> caller,
                                    CallSlot** slot) override;
  Reply FinishCall(CallSlot* slot) override;
  Command CopyToSend(const Command& cmd) override;
  int NodeCount() const override { return runtime_->NodeCount(); }
  Nanos Now() const override { return runtime_->LocalNow(process_); }
  void ResumeAfter(Nanos d, std::coroutine_handle<> thread) override;
  uint64_t Random() override { return runtime_->process_random(process_).Next(); }
  int ThreadId() const override { return thread_id_; }
  void StartThread(std::string name, std::function<Task<void>(Env&)> body) override;
  Task<bool> WaitFor(Signal& signal, Nanos timeout) override;

  int process() const { return process_; }
  int actor() const { return actor_; }
  int incarnation() const { return incarnation_; }

 private:
  // A call in flight (process_env.cc). A thread has one at a time, or a
  // few (WhenAll): they are kept for the next calls, not freed.
  struct InFlight;

  Runtime* runtime_;
  int process_;
  int incarnation_;  // the process's life this thread belongs to
  int actor_;  // the history's name for this thread
  int thread_id_;
  std::vector<std::unique_ptr<InFlight>> calls_;
  std::vector<InFlight*> idle_;  // of calls_: not in flight
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_WORLD_PROCESS_ENV_H_
