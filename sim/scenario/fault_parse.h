// The "faults" of a scenario (docs/scenarios.md, "Faults"): one parser per
// fault type, the fields each takes, its target, its links, and when it
// fires (at a time, or on a client's event). Internal to sim/scenario/.
#ifndef LOCKSIM_SIM_SCENARIO_FAULT_PARSE_H_
#define LOCKSIM_SIM_SCENARIO_FAULT_PARSE_H_

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "sim/scenario/object_reader.h"
#include "sim/scenario/scenario.h"

namespace locksim {

// The names a fault may aim at: the scenario's clients and Redis nodes.
struct Names {
  std::set<std::string> clients;
  // The threads of clients with several, as histories name them ("A.1",
  // "A.2"): an expectation's overlap may be between two of them.
  std::set<std::string> threads;
  std::vector<std::string> nodes;
  bool IsNode(const std::string& n) const {
    return std::find(nodes.begin(), nodes.end(), n) != nodes.end();
  }
  std::string NodeList() const {
    std::string out;
    for (const std::string& n : nodes) out += (out.empty() ? "" : ", ") + n;
    return out;
  }
  std::string ClientList() const {
    std::string out;
    for (const std::string& n : clients) out += (out.empty() ? "" : ", ") + n;
    return out;
  }
};


// One fault at JSON path `path` of `file`. Throws InputError naming the
// path and what is wrong.
FaultSpec ParseFault(const json& j, const std::string& path, const std::string& file,
                     const Names& names, Nanos run_duration);

}  // namespace locksim

#endif  // LOCKSIM_SIM_SCENARIO_FAULT_PARSE_H_
