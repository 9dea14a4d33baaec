// The factory of worlds: the backend a run names, built from one set of
// options. Here, not in sim/world/, because it includes both worlds and
// the real one (sim/real/) includes sim/world/.
#ifndef LOCKSIM_SIM_RUN_MAKE_WORLD_H_
#define LOCKSIM_SIM_RUN_MAKE_WORLD_H_

#include <memory>

#include "sim/result/run_result.h"
#include "sim/world/world.h"

namespace locksim {

// A VirtualWorld, or a RealWorld with its servers started (which throws
// InputError when a binary is missing, HarnessError otherwise).
std::unique_ptr<World> MakeWorld(Backend backend, const WorldOptions& options);

}  // namespace locksim

#endif  // LOCKSIM_SIM_RUN_MAKE_WORLD_H_
