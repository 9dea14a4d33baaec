// The history of a run, in Jepsen's shape: plain records
//   {index, time, process, type, f, value}
// with type invoke / ok / fail / info (info: outcome unknown, or an event
// that is not an operation, such as a fault). Times are true (simulation)
// time. Faults are recorded with process "nemesis". Checkers are pure
// functions of this data and know nothing of Redis or of the worlds.
#ifndef LOCKSIM_SIM_CORE_HISTORY_H_
#define LOCKSIM_SIM_CORE_HISTORY_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/time.h"

namespace locksim {

enum class OpType : uint8_t { kInvoke, kOk, kFail, kInfo };

// What an operation is. Client operations: acquire, cs (the critical
// section: invoke on entry, ok on exit), release, redis (one command to one
// node: invoke carries the command, ok the reply). Nemesis: pause, resume.
// The protected resource (workloads): read, write (ok: accepted, fail:
// rejected by the fencing guard; value starts with the number written),
// refresh (token-refresh: value is the invalidation epoch), job
// (scheduled-job: value is the tick). Rate limiters: admit (invoke; ok:
// admitted, fail: refused; value is the window's count).
// Faults, recorded under the nemesis with `subject` = the process acted on
// (its main actor) where there is one: pause, resume, crash, restart,
// clock, expire, failover, partition, heal, delay, drop.
// Node state (virtual backend): state, recorded under a Redis node each
// time a watched key changes on it; value "KEY = VALUE pttl N", "KEY = VALUE
// no ttl" or "KEY absent"; type ok when the value changed or the key went
// away, info when only its TTL changed; `subject` = the client thread whose
// command made the change (-1: expiry, replication, restart, a fault).
enum class OpF : uint8_t {
  kAcquire, kCs, kRelease, kRedis, kPause, kResume, kRead, kWrite, kRefresh, kJob, kAdmit,
  kCrash, kRestart, kClock, kExpire, kFailover, kPartition, kHeal, kDelay, kDrop, kState
};

std::string_view OpTypeName(OpType t);
std::string_view OpFName(OpF f);

struct Op {
  int64_t index = 0;
  Nanos time{0};
  int process = 0;  // index into History::process_names()
  OpType type = OpType::kInfo;
  OpF f = OpF::kAcquire;
  int node = -1;  // the Redis node, for f == kRedis
  int subject = -1;  // faults: the process acted on; state: who changed it
  std::string value;
};

// A lock taken again inside its own critical section (a client with
// "reenter") records its acquire and release with this suffix on the value.
inline constexpr std::string_view kNestedSuffix = " (nested)";
inline bool IsNested(const Op& op) { return op.value.ends_with(kNestedSuffix); }

// The TTL in a state op's value ("... pttl 4999"), or -1 when it has none.
int64_t StatePttl(std::string_view value);
// Whether a state op's value says the key is absent.
bool StateAbsent(std::string_view value);

class History {
 public:
  static constexpr std::string_view kNemesis = "nemesis";

  History();  // process 0 is the nemesis

  // A new actor. `owner` is the actor of the process it belongs to (the
  // main thread of a client process); -1: it is a process of its own.
  int AddProcess(std::string name, int owner = -1);
  int nemesis() const { return 0; }
  // The main actor of the process `actor` belongs to.
  int owner(int actor) const { return owners_[actor]; }
  int Find(std::string_view name) const;  // -1 when unknown
  const std::vector<std::string>& process_names() const { return names_; }
  const std::string& name(int process) const { return names_[process]; }

  const Op& Add(Nanos time, int process, OpType type, OpF f,
                std::string value = {}, int node = -1, int subject = -1);

  // Called after each Add with the new op's index (the fault triggers).
  // The listener may add ops itself.
  void SetListener(std::function<void(int64_t)> listener) { listener_ = std::move(listener); }

  const std::vector<Op>& ops() const { return ops_; }
  size_t size() const { return ops_.size(); }

 private:
  std::vector<std::string> names_;
  std::vector<int> owners_;
  std::vector<Op> ops_;
  std::function<void(int64_t)> listener_;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_CORE_HISTORY_H_
