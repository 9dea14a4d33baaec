#include <algorithm>

#include "lockimpls/lock.h"
#include "lockimpls/set_nx_px/set_nx_px.h"
#include "lockimpls/set_nx_px_del/set_nx_px_del.h"

namespace locksim {
namespace {

template <typename T>
std::unique_ptr<Lock> Make(Env& process, const LockConfig& config) {
  return std::make_unique<T>(process, config);
}

constexpr AlgorithmInfo kAlgorithms[] = {
    {"set-nx-px",
     "SET key token NX PX ttl; release by Lua compare-and-delete",
     "seed 002 §1.3, seed 003 I",
     "none in the code; the lease runs out under a paused holder (F1, F10)",
     &Make<SetNxPxLock>},
    {"set-nx-px-del",
     "SET key token NX PX ttl; release by plain DEL",
     "seed 002 §1.3 (A/B/C story), seed 000 (2:15 -> 2:21)",
     "DEL without an owner check frees another client's lock (F2)",
     &Make<SetNxPxDelLock>},
};

}  // namespace

std::span<const AlgorithmInfo> Algorithms() { return kAlgorithms; }

const AlgorithmInfo* FindAlgorithm(std::string_view id) {
  for (const AlgorithmInfo& a : kAlgorithms) {
    if (a.id == id) return &a;
  }
  return nullptr;
}

std::string AlgorithmIds() {
  std::string out;
  for (const AlgorithmInfo& a : kAlgorithms) {
    if (!out.empty()) out += ", ";
    out += a.id;
  }
  return out;
}

}  // namespace locksim
