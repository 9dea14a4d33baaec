#include "sim/core/history.h"

#include <cstdio>
#include <cstdlib>

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
    case OpF::kAdapter: return "adapter";
  }
  return "?";
}

Command CommandView::ToCommand() const {
  Command cmd;
  cmd.reserve(argc_);
  for (size_t i = 0; i < argc_; ++i) cmd.emplace_back((*this)[i]);
  return cmd;
}

std::string FormatCommand(const CommandView& cmd) {
  std::string out;
  for (size_t i = 0; i < cmd.size(); ++i) {
    if (i) out += ' ';
    AppendCommandArg(cmd[i], &out);
  }
  return out;
}

namespace {

// As a report shows a value: long ones cut to 37 bytes and "...".
std::string Shorten(const std::string& v) { return v.size() <= 40 ? v : v.substr(0, 37) + "..."; }

}  // namespace

std::string FormatKeyState(const KeyState& s) {
  if (!s.present) return s.key + " absent";
  std::string out = s.key + " = ";
  if (s.hash) {
    out += "{";
    for (size_t i = 0; i < s.fields.size(); ++i) {
      out += (i ? ", " : "") + Shorten(s.fields[i].first) + ": " + Shorten(s.fields[i].second);
    }
    out += "}";
  } else {
    out += "\"" + Shorten(s.str) + "\"";
  }
  out += s.pttl_ms ? " pttl " + std::to_string(*s.pttl_ms) : " no ttl";
  return out;
}

std::string FormatStep(std::string_view key, bool nested) {
  std::string out(key);
  if (nested) out += " (nested)";
  return out;
}

std::string FormatNumber(int64_t value, std::optional<int64_t> token) {
  std::string out = std::to_string(value);
  if (token) out += " (token " + std::to_string(*token) + ")";
  return out;
}

std::string FormatReplyCheck(const ReplyCheck& check, bool matched) {
  if (matched) return check.got.ToString();
  return "reply to " + FormatCommand(check.command) + " was " + check.got.ToString() +
         ", Redis gives " + check.expected;
}

History::History() {
  names_.emplace_back(kNemesis);
  owners_.push_back(0);
}

int History::AddActor(std::string name, int owner) {
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

const Op& History::Append(Nanos time, int actor, OpType type, OpF f, Payload payload,
                          uint32_t slot, int node, int subject, bool nested) {
  if (ops_.size() >= kMaxOps) {
    std::fprintf(stderr, "locksim: a history holds at most %zu operations\n", kMaxOps);
    std::abort();
  }
  if (node < -1 || node > kMaxNode) {
    std::fprintf(stderr, "locksim: op of node %d: an op names nodes up to %d\n", node, kMaxNode);
    std::abort();
  }
  Op& op = ops_.Append();
  const auto index = static_cast<int32_t>(ops_.size() - 1);
  op.time = time;
  op.actor = actor;
  op.node = static_cast<int16_t>(node);
  op.subject = subject;
  op.type = type;
  op.f = f;
  op.payload = payload;
  op.nested = nested;
  op.slot = slot;
  if (f == OpF::kRedis) {
    commands_sent_ += type == OpType::kInvoke;
  } else if (f != OpF::kAdapter) {
    lock_ops_.push_back(index);
  }
  if (listener_) listener_(index);
  return op;
}

const Op& History::AddStep(Nanos time, int actor, OpType type, OpF f, std::string_view key,
                           bool nested) {
  // Steps come with the key of the step before nearly always: compared
  // with it first, without the map's walk.
  // (A slot past the table's end, kNoSlot among them, is none: a moved-from
  // history keeps the number but not the table.)
  if (last_key_slot_ >= keys_.size() || keys_[last_key_slot_] != key) {
    auto it = key_slots_.find(key);
    if (it == key_slots_.end()) {
      it = key_slots_.emplace(std::string(key), Push(&keys_, std::string(key))).first;
    }
    last_key_slot_ = it->second;
  }
  return Append(time, actor, type, f, Payload::kKey, last_key_slot_, -1, -1, nested);
}

bool History::SentCommandNamed(std::string_view name) const {
  for (const CommandSlot& c : commands_) {
    const CommandView cmd(&command_bytes_, &command_ends_, c.begin, c.first_end, c.argc);
    if (CommandNameIs(cmd.name(), name)) return true;
  }
  return false;
}

bool History::SameCommand(uint32_t slot, const Command& cmd) const {
  const CommandSlot& c = commands_[slot];
  if (c.argc != cmd.size()) return false;
  const CommandView stored(&command_bytes_, &command_ends_, c.begin, c.first_end, c.argc);
  for (size_t i = 0; i < cmd.size(); ++i) {
    if (stored[i] != cmd[i]) return false;
  }
  return true;
}

const Op& History::AddCommand(Nanos time, int actor, int node, const Command& cmd) {
  // A client that retries sends the same command again and again (a lost
  // SET NX, every retry delay): its ops share the bytes stored the first
  // time (copying them was 7% of a contended run, callgrind).
  uint32_t& last = LastOf(&last_command_, actor, kNoSlot);
  if (last != kNoSlot && SameCommand(last, cmd)) {
    return Append(time, actor, OpType::kInvoke, OpF::kRedis, Payload::kCommand, last, node);
  }
  CommandSlot c{command_bytes_.size(), static_cast<uint32_t>(command_ends_.size()),
                static_cast<uint32_t>(cmd.size())};
  uint32_t end = 0;
  for (const std::string& arg : cmd) {
    command_bytes_ += arg;
    end += static_cast<uint32_t>(arg.size());
    command_ends_.push_back(end);
  }
  last = Push(&commands_, c);
  return Append(time, actor, OpType::kInvoke, OpF::kRedis, Payload::kCommand, last, node);
}

const Op& History::AddCommand(Nanos time, int actor, int node, const SharedCommand& cmd) {
  LastShared& last = LastOf(&last_shared_, actor, LastShared{});
  if (last.cmd == cmd) {
    LastOf(&last_command_, actor, kNoSlot) = last.slot;
    return Append(time, actor, OpType::kInvoke, OpF::kRedis, Payload::kCommand, last.slot, node);
  }
  const Op& op = AddCommand(time, actor, node, *cmd);
  last = LastShared{cmd, op.slot};
  return op;
}

const Op& History::AddReply(Nanos time, int actor, OpType type, int node, const Reply& reply) {
  // As with commands: the retries' replies (nil, nil, ...) are stored once.
  uint32_t& last = LastOf(&last_reply_, actor, kNoSlot);
  if (last == kNoSlot || !(replies_[last] == reply)) last = Push(&replies_, reply);
  return Append(time, actor, type, OpF::kRedis, Payload::kReply, last, node);
}

const Op& History::AddNumber(Nanos time, int actor, OpType type, OpF f, int64_t value,
                             std::optional<int64_t> token) {
  return Append(time, actor, type, f, Payload::kNumber, Push(&numbers_, Number{value, token}));
}

const Op& History::AddReplyCheck(Nanos time, int actor, OpType type, ReplyCheck check) {
  return Append(time, actor, type, OpF::kRead, Payload::kReplyCheck,
                Push(&reply_checks_, std::move(check)));
}

const Op& History::AddFault(Nanos time, OpF f, std::string description, int subject) {
  return Append(time, nemesis(), OpType::kInfo, f, Payload::kText,
                Push(&texts_, std::move(description)), -1, subject);
}

const Op& History::AddState(Nanos time, int node_actor, OpType type, KeyState state,
                            int cause) {
  return Append(time, node_actor, type, OpF::kState, Payload::kState,
                Push(&states_, std::move(state)), -1, cause);
}

const Op& History::AddAdapterMessage(Nanos time, int actor, OpType type, std::string json) {
  return Append(time, actor, type, OpF::kAdapter, Payload::kText, Push(&texts_, std::move(json)));
}

const Op& History::Add(Nanos time, int actor, OpType type, OpF f) {
  return Append(time, actor, type, f, Payload::kNone, 0);
}

void History::Expect(const Op& op, Payload payload) const {
  if (op.payload == payload) return;
  std::fprintf(stderr, "locksim: history op %lld (%s %s) read as the wrong kind of value\n",
               static_cast<long long>(ops_.IndexOf(op)), std::string(OpFName(op.f)).c_str(),
               std::string(OpTypeName(op.type)).c_str());
  std::abort();
}

const std::string& History::key(const Op& op) const {
  static const std::string kNoKey;
  if (op.payload == Payload::kNone) return kNoKey;
  Expect(op, Payload::kKey);
  return keys_[op.slot];
}

CommandView History::command(const Op& op) const {
  Expect(op, Payload::kCommand);
  const CommandSlot& c = commands_[op.slot];
  return CommandView(&command_bytes_, &command_ends_, c.begin, c.first_end, c.argc);
}

const Reply& History::reply(const Op& op) const {
  Expect(op, Payload::kReply);
  return replies_[op.slot];
}

int64_t History::number(const Op& op) const {
  Expect(op, Payload::kNumber);
  return numbers_[op.slot].value;
}

std::optional<int64_t> History::token(const Op& op) const {
  Expect(op, Payload::kNumber);
  return numbers_[op.slot].token;
}

const ReplyCheck& History::reply_check(const Op& op) const {
  Expect(op, Payload::kReplyCheck);
  return reply_checks_[op.slot];
}

const KeyState& History::state(const Op& op) const {
  Expect(op, Payload::kState);
  return states_[op.slot];
}

const std::string& History::text(const Op& op) const {
  Expect(op, Payload::kText);
  return texts_[op.slot];
}

std::string History::ValueText(const Op& op) const {
  switch (op.payload) {
    case Payload::kNone: return "";
    case Payload::kKey: return FormatStep(key(op), op.nested);
    case Payload::kCommand: return FormatCommand(command(op));
    case Payload::kReply: return reply(op).ToString();
    case Payload::kNumber: return FormatNumber(number(op), token(op));
    case Payload::kReplyCheck: return FormatReplyCheck(reply_check(op), op.type == OpType::kOk);
    case Payload::kState: return FormatKeyState(state(op));
    case Payload::kText: return text(op);
  }
  return "";
}

}  // namespace locksim
