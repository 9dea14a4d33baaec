#include "sim/check/lease.h"

#include <algorithm>

namespace locksim {

LeaseIndex::LeaseIndex(const History& history) : history_(history) {
  const History::LockOps lock_ops = history.lock_ops();
  for (auto it = lock_ops.begin(); it != lock_ops.end(); ++it) {
    const Op& op = *it;
    if (op.f != OpF::kState) continue;
    if (op.subject >= 0 && history.state(op).present) {
      mine_[history.owner(op.subject)][op.actor].push_back(it.index());
    }
    if (op.type == OpType::kOk) {
      if (static_cast<size_t>(op.actor) >= states_.size()) states_.resize(op.actor + 1);
      states_[static_cast<size_t>(op.actor)].push_back(it.index());
    }
  }
}

std::vector<NodeLease> LeaseIndex::AtEntry(int thread, int64_t at) const {
  std::vector<NodeLease> out;
  if (at < 0) return out;
  auto owner = mine_.find(history_.owner(thread));
  if (owner == mine_.end()) return out;
  const Nanos entry = history_.ops()[static_cast<size_t>(at)].time;
  for (const auto& [node, mine] : owner->second) {
    auto last = std::lower_bound(mine.begin(), mine.end(), at);
    if (last == mine.begin()) continue;  // none before `at`
    const int32_t index = *--last;
    const Op& op = history_.ops()[static_cast<size_t>(index)];
    const KeyState& state = history_.state(op);
    Nanos end = state.pttl_ms ? op.time + std::chrono::milliseconds(*state.pttl_ms) : Nanos::max();
    // The node's next state after it (history order is time order), if
    // before `at`: every state op between the two is someone else's.
    if (static_cast<size_t>(node) < states_.size()) {
      const std::vector<int32_t>& states = states_[static_cast<size_t>(node)];
      auto next = std::upper_bound(states.begin(), states.end(), index);
      if (next != states.end() && *next < at) {
        end = std::min(end, history_.ops()[static_cast<size_t>(*next)].time);
      }
    }
    out.push_back(NodeLease{node, end == Nanos::max() ? std::nullopt
                                                      : std::optional<Nanos>(end - entry)});
  }
  return out;
}

bool LeaseIndex::EnteredAfterItsLease(int thread, int64_t at) const {
  const std::vector<NodeLease> leases = AtEntry(thread, at);
  if (leases.empty()) return false;
  for (const NodeLease& l : leases) {
    if (!l.left || *l.left > Nanos{0}) return false;
  }
  return true;
}

}  // namespace locksim
