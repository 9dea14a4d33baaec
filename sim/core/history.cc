#include "sim/core/history.h"

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
    case OpF::kCrash: return "crash";
    case OpF::kRestart: return "restart";
    case OpF::kClock: return "clock";
    case OpF::kExpire: return "expire";
    case OpF::kFailover: return "failover";
    case OpF::kPartition: return "partition";
    case OpF::kHeal: return "heal";
    case OpF::kDelay: return "delay";
    case OpF::kDrop: return "drop";
    case OpF::kState: return "state";
  }
  return "?";
}

int64_t StatePttl(std::string_view value) {
  const size_t at = value.rfind(" pttl ");
  if (at == std::string_view::npos) return -1;
  int64_t v = 0;
  for (char c : value.substr(at + 6)) {
    if (c < '0' || c > '9') break;
    v = v * 10 + (c - '0');
  }
  return v;
}

bool StateAbsent(std::string_view value) { return value.ends_with(" absent"); }

History::History() {
  names_.emplace_back(kNemesis);
  owners_.push_back(0);
}

int History::AddProcess(std::string name, int owner) {
  names_.push_back(std::move(name));
  const int id = static_cast<int>(names_.size()) - 1;
  owners_.push_back(owner < 0 ? id : owner);
  return id;
}

int History::Find(std::string_view name) const {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return static_cast<int>(i);
  }
  return -1;
}

const Op& History::Add(Nanos time, int process, OpType type, OpF f,
                       std::string value, int node, int subject) {
  Op op;
  op.index = static_cast<int64_t>(ops_.size());
  op.time = time;
  op.process = process;
  op.type = type;
  op.f = f;
  op.node = node;
  op.subject = subject;
  op.value = std::move(value);
  const int64_t index = op.index;
  ops_.push_back(std::move(op));
  if (listener_) listener_(index);
  return ops_[index];
}

}  // namespace locksim
