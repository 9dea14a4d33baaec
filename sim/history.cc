#include "sim/history.h"

namespace locksim {

std::string_view OpTypeName(OpType t) {
  switch (t) {
    case OpType::kInvoke: return "invoke";
    case OpType::kOk: return "ok";
    case OpType::kFail: return "fail";
    case OpType::kInfo: return "info";
  }
  return "?";
}

std::string_view OpFName(OpF f) {
  switch (f) {
    case OpF::kAcquire: return "acquire";
    case OpF::kCs: return "cs";
    case OpF::kRelease: return "release";
    case OpF::kRedis: return "redis";
    case OpF::kPause: return "pause";
    case OpF::kResume: return "resume";
    case OpF::kRead: return "read";
    case OpF::kWrite: return "write";
    case OpF::kRefresh: return "refresh";
    case OpF::kJob: return "job";
    case OpF::kAdmit: return "admit";
  }
  return "?";
}

History::History() { names_.emplace_back(kNemesis); }

int History::AddProcess(std::string name) {
  names_.push_back(std::move(name));
  return static_cast<int>(names_.size()) - 1;
}

const Op& History::Add(Nanos time, int process, OpType type, OpF f,
                       std::string value, int node) {
  Op op;
  op.index = static_cast<int64_t>(ops_.size());
  op.time = time;
  op.process = process;
  op.type = type;
  op.f = f;
  op.node = node;
  op.value = std::move(value);
  ops_.push_back(std::move(op));
  return ops_.back();
}

}  // namespace locksim
