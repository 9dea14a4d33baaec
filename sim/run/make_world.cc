#include "sim/run/make_world.h"

#include "sim/real/real_world.h"
#include "sim/world/virtual_world.h"

namespace locksim {

std::unique_ptr<World> MakeWorld(Backend backend, const WorldOptions& options) {
  if (backend == Backend::kReal) return std::make_unique<RealWorld>(options);
  return std::make_unique<VirtualWorld>(options);
}

}  // namespace locksim
