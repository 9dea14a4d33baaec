// `locksim list`: the lock variants, and with --verbose their source, bug
// and default parameters.
#include <cstdio>
#include <string>
#include <vector>

#include "lockimpls/lock.h"
#include "sim/cli/commands.h"
#include "sim/cli/options.h"
#include "sim/core/errors.h"
#include "sim/core/text.h"

namespace locksim {
namespace {

}  // namespace

int ListCommand(const std::vector<std::string>& args) {
  bool verbose = false;
  CommandLine cl("locksim list [options]\nThe lock variants locksim runs.");
  cl.Add()("verbose,v", po::bool_switch(&verbose), "show source, behaviour and known bug");
  if (!cl.Parse(args)) return kExitSafe;
  for (const AlgorithmInfo& a : Algorithms()) {
    // A library driven through an adapter: which one, at which version.
    std::string library;
    if (a.adapter != nullptr) {
      library = "[library " + a.adapter->library +
                (a.adapter->version.empty() ? "" : " " + a.adapter->version) + "] ";
    }
    if (!verbose) {
      std::printf("%-19s %s%s\n", std::string(a.id).c_str(), library.c_str(),
                  std::string(a.summary).c_str());
      continue;
    }
    std::printf("%s\n  %s%s\n  source: %s\n  bug: %s\n  defaults: %s\n",
                std::string(a.id).c_str(), library.c_str(), std::string(a.summary).c_str(),
                std::string(a.source).c_str(), std::string(a.bug).c_str(),
                DescribeConfig(a.defaults).c_str());
    if (a.adapter != nullptr) {
      std::printf("  manifest: %s\n  runs: %s\n  needs: %s\n", a.adapter->manifest.c_str(),
                  Join(a.adapter->argv, " ").c_str(), a.adapter->install.c_str());
    }
  }
  return kExitSafe;
}

}  // namespace locksim
