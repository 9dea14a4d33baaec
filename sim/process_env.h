// ProcessEnv: the Env of one client process, on either world. It forwards to
// the Runtime and records every Redis command and reply in the history, so
// that a violation can show the commands that led to it.
#ifndef LOCKSIM_SIM_PROCESS_ENV_H_
#define LOCKSIM_SIM_PROCESS_ENV_H_

#include "sim/env.h"
#include "sim/runtime.h"

namespace locksim {

class ProcessEnv : public Env {
 public:
  ProcessEnv(Runtime* runtime, int process)
      : runtime_(runtime), process_(process) {}

  Task<Reply> Call(int node, Command cmd) override;
  int NodeCount() const override { return runtime_->NodeCount(); }
  Nanos Now() const override { return runtime_->LocalNow(process_); }
  Task<void> SleepFor(Nanos d) override;
  uint64_t Random() override { return runtime_->random().Next(); }

  int process() const { return process_; }
  int64_t commands_sent() const { return commands_sent_; }

 private:
  Runtime* runtime_;
  int process_;
  int64_t commands_sent_ = 0;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_PROCESS_ENV_H_
