// The history of a run, in Jepsen's shape: plain records
//   {index, time, process, type, f, value}
// with type invoke / ok / fail / info (info: outcome unknown, or an event
// that is not an operation, such as a fault). Times are true (simulation)
// time. Faults are recorded with process "nemesis". Checkers are pure
// functions of this data and know nothing of Redis or of the worlds.
#ifndef LOCKSIM_SIM_HISTORY_H_
#define LOCKSIM_SIM_HISTORY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/time.h"

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
enum class OpF : uint8_t {
  kAcquire, kCs, kRelease, kRedis, kPause, kResume, kRead, kWrite, kRefresh, kJob, kAdmit
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
  std::string value;
};

class History {
 public:
  static constexpr std::string_view kNemesis = "nemesis";

  History();  // process 0 is the nemesis

  int AddProcess(std::string name);
  int nemesis() const { return 0; }
  const std::vector<std::string>& process_names() const { return names_; }
  const std::string& name(int process) const { return names_[process]; }

  const Op& Add(Nanos time, int process, OpType type, OpF f,
                std::string value = {}, int node = -1);

  const std::vector<Op>& ops() const { return ops_; }
  size_t size() const { return ops_.size(); }

 private:
  std::vector<std::string> names_;
  std::vector<Op> ops_;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_HISTORY_H_
