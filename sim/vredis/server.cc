// Command dispatch, as redis server.c processCommand() and call().
#include "sim/vredis/server.h"

#include <algorithm>
#include <cctype>

#include "sim/vredis/script_lua.h"

namespace locksim {

Reply FormatError(std::string text) {
  std::replace(text.begin(), text.end(), '\r', ' ');
  std::replace(text.begin(), text.end(), '\n', ' ');
  return Reply::Error(std::move(text));
}

Reply ArityError(std::string_view name) {
  return Reply::Error("ERR wrong number of arguments for '" + std::string(name) + "' command");
}

bool StringToInt64(std::string_view s, int64_t* out) {
  // Redis util.c string2ll(): rejects empty strings, leading zeros, '+',
  // spaces, "-0" and anything that overflows.
  if (s.empty() || s.size() >= 21) return false;
  if (s.size() == 1) {  // a single digit, or no number ("-")
    if (s[0] < '0' || s[0] > '9') return false;
    *out = s[0] - '0';
    return true;
  }
  size_t i = 0;
  bool negative = false;
  if (s[0] == '-') {
    negative = true;
    if (++i == s.size()) return false;
  }
  if (s[i] < '1' || s[i] > '9') return false;
  // Nineteen digits always fit in 64 bits; only a longer number can wrap.
  const bool may_wrap = s.size() - i > 19;
  uint64_t v = 0;
  for (; i < s.size(); ++i) {
    const uint64_t digit = static_cast<unsigned char>(s[i]) - uint64_t{'0'};  // wraps below '0'
    if (digit > 9) return false;
    if (may_wrap && v > (UINT64_MAX - digit) / 10) return false;
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
  queued_pushes_ -= static_cast<int64_t>(it->second.pushes.size());
  for (const std::string& channel : it->second.channels) Unsubscribed(conn, channel);
  if (conn != kDefaultConn) {
    conns_.erase(it);
  } else {
    it->second = Connection{};
  }
}

void VirtualRedis::QueuePush(Connection* c, Reply push) {
  c->pushes.push_back(std::move(push));
  ++queued_pushes_;
}

std::vector<Reply> VirtualRedis::TakePushes(ConnId conn) {
  auto it = conns_.find(conn);
  // The virtual world asks after every command, and there is rarely any.
  if (it == conns_.end() || it->second.pushes.empty()) return {};
  queued_pushes_ -= static_cast<int64_t>(it->second.pushes.size());
  return std::exchange(it->second.pushes, {});
}

Reply VirtualRedis::Execute(ConnId conn, const Command& argv, int64_t now_ms) {
  auto it = conns_.find(conn);
  if (it == conns_.end()) it = conns_.emplace(conn, Connection{}).first;
  conn_ = &it->second;
  conn_id_ = conn;
  now_ms_ = now_ms;
  // What one command propagates (a lazily expired key's DEL, then the
  // command's own effect) is emitted together, wrapped in MULTI/EXEC when
  // there is more than one: Redis 7.0 afterCommand() ->
  // propagatePendingCommands().
  ++effects_depth_;
  const CommandSpec* spec = argv.empty() ? nullptr : LookupRecent(argv[0]);
  Reply reply = Dispatch(argv, /*from_script=*/false, spec);
  --effects_depth_;
  FlushEffects();
  conn_ = nullptr;
  return reply;
}

bool VirtualRedis::InMulti(ConnId conn) const {
  auto it = conns_.find(conn);
  return it != conns_.end() && it->second.in_multi;
}

size_t VirtualRedis::Subscriptions(ConnId conn) const {
  auto it = conns_.find(conn);
  return it == conns_.end() ? 0 : it->second.channels.size();
}

// processCommand(): the checks a command passes before it runs or is
// queued, in Redis 7.0's order.
Reply VirtualRedis::Dispatch(const Command& argv, bool from_script, const CommandSpec* spec) {
  const int argc = static_cast<int>(argv.size());
  // rejectCommand(): inside MULTI, an error while queueing aborts the EXEC;
  // a rejected EXEC itself discards the transaction (execCommandAbort).
  auto reject = [&](std::string error) {
    if (conn_->in_multi && !from_script) conn_->dirty_exec = true;
    if (spec != nullptr && spec->handler == &VirtualRedis::ExecCommand && !from_script) {
      return ExecCommandAbort(error);
    }
    return FormatError(std::move(error));
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
    return reject(ArityError(spec->name).str);
  }
  if (from_script && (spec->flags & kNoScript)) {
    return Reply::Error("ERR This Redis command is not allowed from script");
  }
  // An EXEC counts as a write when it would run one (7.0 is_write_command).
  const bool is_write = (spec->flags & kWrite) ||
                        (spec->handler == &VirtualRedis::ExecCommand && conn_->in_multi &&
                         (conn_->queued_flags & kWrite));
  if (replica_ && !loading_ && is_write) {
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
  if (!from_script && conn_->in_multi && (spec->flags & kRejectInMulti)) {
    return reject("ERR Command not allowed inside a transaction");
  }
  if (!from_script && conn_->in_multi && !(spec->flags & kNoMulti)) {
    conn_->queued.push_back(argv);
    conn_->queued_flags |= spec->flags;
    return Reply::Status("QUEUED");
  }
  return Call(*spec, argv);
}

Reply VirtualRedis::Call(const CommandSpec& spec, const Command& argv) {
  const int64_t dirty_before = dirty_;
  std::optional<Command> outer_rewrite = std::exchange(rewritten_, std::nullopt);
  Reply reply = (this->*spec.handler)(argv);
  if (propagating_ && dirty_ != dirty_before && (spec.flags & kWrite)) {
    // A script's own commands go where its redis.set_repl() says (in
    // Redis, the script caller's CLIENT_PREVENT_*_PROP flags); expirations
    // and everything else go to both.
    Propagate(rewritten_ ? std::move(*rewritten_) : argv,
              in_script_ ? script_propagate_ : kPropagateAll);
  }
  rewritten_ = std::move(outer_rewrite);
  return reply;
}

// pingCommand(), from redis server.c.
Reply VirtualRedis::PingCommand(const Command& argv) {
  if (argv.size() > 2) return ArityError("ping");
  if (!conn_->channels.empty() && !in_script_) {
    // RESP2 subscribed clients get PING as a pub/sub style array.
    return Reply::Array({Reply::String("pong"), Reply::String(argv.size() == 2 ? argv[1] : "")});
  }
  if (argv.size() == 2) return Reply::String(argv[1]);
  return Reply::Status("PONG");
}

// echoCommand().
Reply VirtualRedis::EchoCommand(const Command& argv) { return Reply::String(argv[1]); }

void VirtualRedis::Cron(int64_t now_ms, Random& random) {
  now_ms_ = now_ms;
  if (!replica_) ActiveExpireCycle(random);
  PersistenceCron();
}

}  // namespace locksim

namespace locksim {

// infoCommand(): the sections and fields a client library looks at (a ready
// check reads persistence's "loading", the role), in Redis's layout.
Reply VirtualRedis::InfoCommand(const Command& argv) {
  std::string want = argv.size() >= 2 ? argv[1] : "default";
  for (char& c : want) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool all = want == "default" || want == "all" || want == "everything";
  std::string out;
  auto section = [&](const std::string& name, const std::string& title, const std::string& body) {
    if (!all && want != name) return;
    out += (out.empty() ? "" : "\r\n") + ("# " + title + "\r\n") + body;
  };
  section("server", "Server",
          "redis_version:7.0.15\r\nredis_mode:standalone\r\nexecutable:locksim\r\n");
  section("clients", "Clients", "connected_clients:" + std::to_string(conns_.size()) + "\r\n");
  const bool aof = persistence_ == Persistence::kAofAlways || persistence_ == Persistence::kAofEverySec;
  section("persistence", "Persistence",
          "loading:0\r\nasync_loading:0\r\nrdb_changes_since_last_save:" +
              std::to_string(dirty_ - dirty_at_last_save_) + "\r\naof_enabled:" + (aof ? "1" : "0") +
              "\r\n");
  section("replication", "Replication", std::string("role:") + (replica_ ? "slave" : "master") + "\r\n");
  section("keyspace", "Keyspace",
          db_.empty() ? std::string()
                      : "db0:keys=" + std::to_string(db_.size()) +
                            ",expires=" + std::to_string(expires_.size()) + ",avg_ttl=0\r\n");
  return Reply::String(out);
}

// timeCommand(): this node's clock, seconds and microseconds (the model
// keeps milliseconds).
Reply VirtualRedis::TimeCommand(const Command&) {
  return Reply::Array({Reply::String(std::to_string(now_ms_ / 1000)),
                       Reply::String(std::to_string(now_ms_ % 1000 * 1000))});
}

// commandCommand(): COUNT, and the table as name, arity and flags; key
// positions, ACL categories and the rest of Redis's entry are not modelled
// (0 and empty).
Reply VirtualRedis::CommandCommand(const Command& argv) {
  auto entry = [](const CommandSpec& c) {
    std::vector<Reply> flags;
    if (c.flags & kWrite) flags.push_back(Reply::Status("write"));
    if (c.flags & kReadOnly) flags.push_back(Reply::Status("readonly"));
    if (c.flags & kNoScript) flags.push_back(Reply::Status("noscript"));
    if (c.flags & kStale) flags.push_back(Reply::Status("stale"));
    return Reply::Array({Reply::String(std::string(c.name)), Reply::Integer(c.arity),
                         Reply::Array(std::move(flags)), Reply::Integer(0), Reply::Integer(0),
                         Reply::Integer(0), Reply::Array({}), Reply::Array({}), Reply::Array({}),
                         Reply::Array({})});
  };
  if (argv.size() == 1) {
    std::vector<Reply> all;
    for (const CommandSpec& c : Commands()) all.push_back(entry(c));
    return Reply::Array(std::move(all));
  }
  if (IsKeyword(argv[1], "COUNT") && argv.size() == 2) {
    return Reply::Integer(static_cast<int64_t>(Commands().size()));
  }
  if (IsKeyword(argv[1], "INFO")) {
    std::vector<Reply> found;
    for (size_t i = 2; i < argv.size(); ++i) {
      const CommandSpec* c = Lookup(argv[i]);
      found.push_back(c ? entry(*c) : Reply::Nil());
    }
    return Reply::Array(std::move(found));
  }
  return Reply::Error("ERR unknown subcommand '" + argv[1] + "'. Try COMMAND HELP.");
}

// configCommand() (config.c): GET answers nothing is configured (an empty
// list, as for an unknown parameter); SET is refused.
Reply VirtualRedis::ConfigCommand(const Command& argv) {
  if (IsKeyword(argv[1], "GET") && argv.size() >= 3) return Reply::Array({});
  if (IsKeyword(argv[1], "SET") || IsKeyword(argv[1], "RESETSTAT") || IsKeyword(argv[1], "REWRITE")) {
    return Reply::Error("ERR locksim does not model CONFIG " + argv[1]);
  }
  return Reply::Error("ERR unknown subcommand '" + argv[1] + "'. Try CONFIG HELP.");
}

// shutdownCommand(): a virtual node is stopped by a scenario's crash
// fault, not by a client; `locksim serve` answers SHUTDOWN itself.
Reply VirtualRedis::ShutdownCommand(const Command&) {
  return Reply::Error(
      "ERR locksim: a virtual Redis node is stopped by a scenario's crash fault, not by "
      "SHUTDOWN");
}

}  // namespace locksim
