// The client workload: repeat acquire -> critical section (hold) -> release,
// for a number of iterations or until the run ends, recording each step in
// the history (acquire, cs, release). A client that cannot acquire within
// its acquire timeout records a failed acquire and tries again next
// iteration.
#ifndef LOCKSIM_SIM_RUN_CLIENTS_H_
#define LOCKSIM_SIM_RUN_CLIENTS_H_

#include "lockimpls/lock.h"
#include "sim/world/process_env.h"
#include "sim/check/workload.h"
#include "sim/world/runtime.h"
#include "sim/scenario/scenario.h"

namespace locksim {

// One thread of a client process running the workload on `resource`, the
// protected resource all clients share.
Task<void> RunClient(Runtime& runtime, ProcessEnv& env, Lock& lock, const ClientSpec& spec,
                     const std::string& key, const WorkloadSpec& workload,
                     ProtectedResource& resource);

// One thread of a client process sending requests through a rate limiter:
// `iterations` requests, `think` apart.
Task<void> RunLimiterClient(Runtime& runtime, ProcessEnv& env, Limiter& limiter,
                            const ClientSpec& spec, const std::string& key);

}  // namespace locksim

#endif  // LOCKSIM_SIM_RUN_CLIENTS_H_
