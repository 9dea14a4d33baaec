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

LockConfig Defaults(Nanos ttl, Nanos retry_delay, Nanos acquire_timeout, int64_t tries = 0) {
  LockConfig c;
  c.ttl = ttl;
  c.retry_delay = retry_delay;
  c.acquire_timeout = acquire_timeout;
  c.tries = tries;
  return c;
}

using std::chrono::milliseconds;
using std::chrono::seconds;

}  // namespace

const std::vector<AlgorithmInfo>& Algorithms() {
  // In catalogue order. Defaults are the values the source documents use.
  static const std::vector<AlgorithmInfo> kAlgorithms = {
      {"set-nx-px", "SET key token NX PX ttl; release by Lua compare-and-delete",
       "seed 002 §1.3, seed 003 I",
       "none in the code; the lease runs out under a paused holder (F1, F10)",
       Defaults(seconds(10), milliseconds(100), seconds(10)), &Make<SetNxPxLock>},
      {"set-nx-px-del", "SET key token NX PX ttl; release by plain DEL",
       "seed 002 §1.3 (A/B/C story), seed 000 (2:15 -> 2:21)",
       "DEL without an owner check frees another client's lock (F2)",
       Defaults(seconds(10), milliseconds(100), seconds(10)), &Make<SetNxPxDelLock>},
  };
  return kAlgorithms;
}

LockConfig Resolve(const LockOverrides& o, const LockConfig& defaults) {
  LockConfig c = defaults;
  if (o.key) c.key = *o.key;
  if (o.ttl) c.ttl = *o.ttl;
  if (o.retry_delay) c.retry_delay = *o.retry_delay;
  if (o.acquire_timeout) c.acquire_timeout = *o.acquire_timeout;
  if (o.tries) c.tries = *o.tries;
  return c;
}

std::string DescribeConfig(const LockConfig& c) {
  std::string s = "ttl=" + FormatDuration(c.ttl) + " retry_delay=" + FormatDuration(c.retry_delay) +
                  " acquire_timeout=" + FormatDuration(c.acquire_timeout);
  if (c.tries > 0) s += " tries=" + std::to_string(c.tries);
  return s;
}

const AlgorithmInfo* FindAlgorithm(std::string_view id) {
  for (const AlgorithmInfo& a : Algorithms()) {
    if (a.id == id) return &a;
  }
  return nullptr;
}

std::string AlgorithmIds() {
  std::string out;
  for (const AlgorithmInfo& a : Algorithms()) {
    if (!out.empty()) out += ", ";
    out += a.id;
  }
  return out;
}

}  // namespace locksim
