// Command dispatch, as redis server.c processCommand() and call().
#include "sim/vredis/server.h"

#include <algorithm>
#include <cctype>

#include "sim/vredis/script_lua.h"

namespace locksim {
namespace {

// As rejectCommandFormat() in redis server.c: newlines in an error would
// break the protocol, so they become spaces.
std::string NoNewlines(std::string s) {
  std::replace(s.begin(), s.end(), '\r', ' ');
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

}  // namespace

bool IsKeyword(std::string_view arg, std::string_view upper) {
  return arg.size() == upper.size() &&
         std::equal(arg.begin(), arg.end(), upper.begin(), [](char a, char b) {
           return std::toupper(static_cast<unsigned char>(a)) == b;
         });
}

bool StringToInt64(std::string_view s, int64_t* out) {
  // Redis util.c string2ll(): rejects empty strings, leading zeros, '+',
  // spaces, "-0" and anything that overflows.
  if (s.empty() || s.size() >= 21) return false;
  if (s.size() == 1 && s[0] == '0') {
    *out = 0;
    return true;
  }
  size_t i = 0;
  bool negative = false;
  if (s[0] == '-') {
    negative = true;
    if (++i == s.size()) return false;
  }
  if (s[i] < '1' || s[i] > '9') return false;
  uint64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    uint64_t digit = static_cast<uint64_t>(s[i] - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
  }
  if (negative) {
    if (v > static_cast<uint64_t>(INT64_MAX) + 1) return false;
    *out = static_cast<int64_t>(0 - v);
  } else {
    if (v > static_cast<uint64_t>(INT64_MAX)) return false;
    *out = static_cast<int64_t>(v);
  }
  return true;
}

VirtualRedis::VirtualRedis() : lua_(std::make_unique<LuaScripting>(this)) {
  conns_[kDefaultConn];
}
VirtualRedis::~VirtualRedis() = default;

VirtualRedis::ConnId VirtualRedis::Connect() {
  ConnId id = next_conn_++;
  conns_[id];
  return id;
}

void VirtualRedis::Disconnect(ConnId conn) {
  auto it = conns_.find(conn);
  if (it == conns_.end()) return;
  conn_ = &it->second;
  UnwatchAll();
  conn_ = nullptr;
  if (conn != kDefaultConn) {
    conns_.erase(it);
  } else {
    it->second = Connection{};
  }
}

std::vector<Reply> VirtualRedis::TakePushes(ConnId conn) {
  auto it = conns_.find(conn);
  if (it == conns_.end()) return {};
  return std::exchange(it->second.pushes, {});
}

Reply VirtualRedis::Execute(ConnId conn, const Command& argv, int64_t now_ms) {
  auto it = conns_.find(conn);
  if (it == conns_.end()) it = conns_.emplace(conn, Connection{}).first;
  conn_ = &it->second;
  now_ms_ = now_ms;
  Reply reply = Dispatch(argv, /*from_script=*/false);
  conn_ = nullptr;
  return reply;
}

Reply VirtualRedis::Dispatch(const Command& argv, bool from_script) {
  const CommandSpec* spec = argv.empty() ? nullptr : Lookup(argv[0]);
  const int argc = static_cast<int>(argv.size());
  // rejectCommand(): inside MULTI, an error while queueing aborts the EXEC.
  auto reject = [&](std::string error) {
    if (conn_->in_multi && !from_script) conn_->dirty_exec = true;
    return Reply::Error(NoNewlines(std::move(error)));
  };
  if (spec == nullptr) {
    if (from_script) return Reply::Error("ERR Unknown Redis command called from script");
    std::string args;
    for (int i = 1; i < argc && args.size() < 128; ++i) {
      size_t room = 128 - args.size();
      args += "'" + argv[i].substr(0, room) + "' ";
    }
    std::string name = argv.empty() ? "" : argv[0].substr(0, 128);
    return reject("ERR unknown command '" + name + "', with args beginning with: " + args);
  }
  if ((spec->arity > 0 && argc != spec->arity) || argc < -spec->arity) {
    if (from_script) {
      return Reply::Error("ERR Wrong number of args calling Redis command from script");
    }
    return reject("ERR wrong number of arguments for '" + std::string(spec->name) + "' command");
  }
  if (from_script && (spec->flags & kNoScript)) {
    return Reply::Error("ERR This Redis command is not allowed from script");
  }
  if (replica_ && !loading_ && (spec->flags & kWrite)) {
    if (from_script) {
      return Reply::Error("READONLY You can't write against a read only replica.");
    }
    return reject("READONLY You can't write against a read only replica.");
  }
  if (!from_script && !conn_->channels.empty() && !(spec->flags & kPubSubOk)) {
    return reject("ERR Can't execute '" + std::string(spec->name) +
                  "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are "
                  "allowed in this context");
  }
  if (!from_script && conn_->in_multi && !(spec->flags & kNoMulti)) {
    conn_->queued.push_back(argv);
    return Reply::Status("QUEUED");
  }
  return Call(*spec, argv);
}

Reply VirtualRedis::Call(const CommandSpec& spec, const Command& argv) {
  const int64_t dirty_before = dirty_;
  std::optional<Command> outer_rewrite = std::exchange(rewritten_, std::nullopt);
  Reply reply = (this->*spec.handler)(argv);
  if (dirty_ != dirty_before && (spec.flags & kWrite)) {
    Propagate(rewritten_ ? std::move(*rewritten_) : argv);
  }
  rewritten_ = std::move(outer_rewrite);
  return reply;
}

Reply VirtualRedis::PingCommand(const Command& argv) {
  if (argv.size() > 2) return Reply::Error("ERR wrong number of arguments for 'ping' command");
  if (!conn_->channels.empty() && !in_script_) {
    // RESP2 subscribed clients get PING as a pub/sub style array.
    return Reply::Array({Reply::String("pong"), Reply::String(argv.size() == 2 ? argv[1] : "")});
  }
  if (argv.size() == 2) return Reply::String(argv[1]);
  return Reply::Status("PONG");
}

void VirtualRedis::Cron(int64_t now_ms, Random& random) {
  now_ms_ = now_ms;
  if (!replica_) ActiveExpireCycle(random);
  PersistenceCron();
}

}  // namespace locksim
