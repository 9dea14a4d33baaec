#include "sim/check/lease.h"

#include <map>

namespace locksim {

std::vector<NodeLease> LeaseAtEntry(const History& h, int thread, int64_t at) {
  std::vector<NodeLease> out;
  if (at < 0) return out;
  const int owner = h.owner(thread);
  const Nanos entry = h.ops()[static_cast<size_t>(at)].time;
  std::map<int, Nanos> lease_end;  // node actor -> end of the thread's lease
  for (int64_t i = 0; i < at; ++i) {
    const Op& op = h.ops()[static_cast<size_t>(i)];
    if (op.f != OpF::kState) continue;
    const KeyState& state = h.state(op);
    const bool mine = op.subject >= 0 && h.owner(op.subject) == owner && state.present;
    if (mine) {
      lease_end[op.actor] =
          state.pttl_ms ? op.time + std::chrono::milliseconds(*state.pttl_ms) : Nanos::max();
    } else if (op.type == OpType::kOk) {
      auto it = lease_end.find(op.actor);
      if (it != lease_end.end() && it->second > op.time) it->second = op.time;
    }
  }
  for (const auto& [node, end] : lease_end) {
    out.push_back(NodeLease{node, end == Nanos::max() ? std::nullopt
                                                      : std::optional<Nanos>(end - entry)});
  }
  return out;
}

bool EnteredAfterItsLease(const History& history, int thread, int64_t at) {
  const std::vector<NodeLease> leases = LeaseAtEntry(history, thread, at);
  if (leases.empty()) return false;
  for (const NodeLease& l : leases) {
    if (!l.left || *l.left > Nanos{0}) return false;
  }
  return true;
}

}  // namespace locksim
