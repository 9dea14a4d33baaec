// Where locksim's own files are: the clock shim it loads into redis-server,
// the adapters of third-party lock clients, the bundled scenarios and the
// schemas. An installed locksim (cmake --install, the .deb) finds them
// beside its executable: PREFIX/bin/locksim, PREFIX/lib/locksim/ (the
// shim), PREFIX/share/locksim/ (adapters under lockimpls/, scenarios/,
// schemas). A locksim run from its build tree finds them where it was built
// from (the source tree, and the build folder for the shim).
#ifndef LOCKSIM_SIM_CORE_RESOURCES_H_
#define LOCKSIM_SIM_CORE_RESOURCES_H_

#include <string>

namespace locksim {

// The LD_PRELOAD clock shim (sim/clockshim/).
std::string ClockShimPath();
// A data file by its path in the source tree ("lockimpls/redis_py/
// redis_py_adapter.py", "scenarios"): installed under PREFIX/share/locksim/
// with the same relative path.
std::string DataPath(const std::string& relative);
// The Node.js lock libraries of lockimpls/node/package-lock.json, as
// .ci/install-node puts them: <build>/node/node_modules (make deps-node).
// An installed locksim looks in PREFIX/lib/locksim/node_modules, which the
// package does not fill: run the Node adapters from a build tree.
std::string NodeModulesPath();

}  // namespace locksim

#endif  // LOCKSIM_SIM_CORE_RESOURCES_H_
