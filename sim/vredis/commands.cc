// The command table, as redis commands.def (7.0): name, arity, flags and
// the function that implements it. Arity follows Redis: a positive number
// is the exact argument count (command name included), a negative one the
// minimum. Flags are the subset of Redis's CMD_* flags the model acts on.
#include <cctype>

#include "sim/vredis/server.h"

namespace locksim {

const VirtualRedis::CommandSpec* VirtualRedis::Lookup(std::string_view name) {
  static const CommandSpec kCommands[] = {
      // Generic key space (db.cc).
      {"del", -2, kWrite, &VirtualRedis::DelCommand},
      {"unlink", -2, kWrite, &VirtualRedis::UnlinkCommand},
      {"exists", -2, kReadOnly | kStale, &VirtualRedis::ExistsCommand},
      {"type", 2, kReadOnly | kStale, &VirtualRedis::TypeCommand},
      {"dbsize", 1, kReadOnly | kStale, &VirtualRedis::DbsizeCommand},
      {"flushall", -1, kWrite, &VirtualRedis::FlushallCommand},
      // Expiry (expire.cc).
      {"expire", -3, kWrite, &VirtualRedis::ExpireCommand},
      {"pexpire", -3, kWrite, &VirtualRedis::PexpireCommand},
      {"expireat", -3, kWrite, &VirtualRedis::ExpireatCommand},
      {"pexpireat", -3, kWrite, &VirtualRedis::PexpireatCommand},
      {"ttl", 2, kReadOnly | kStale, &VirtualRedis::TtlCommand},
      {"pttl", 2, kReadOnly | kStale, &VirtualRedis::PttlCommand},
      {"persist", 2, kWrite, &VirtualRedis::PersistCommand},
      // Strings (t_string.cc).
      {"get", 2, kReadOnly | kStale, &VirtualRedis::GetCommand},
      {"set", -3, kWrite, &VirtualRedis::SetCommand},
      {"setnx", 3, kWrite, &VirtualRedis::SetnxCommand},
      {"getset", 3, kWrite, &VirtualRedis::GetsetCommand},
      {"getdel", 2, kWrite, &VirtualRedis::GetdelCommand},
      {"incr", 2, kWrite, &VirtualRedis::IncrCommand},
      {"incrby", 3, kWrite, &VirtualRedis::IncrbyCommand},
      {"decr", 2, kWrite, &VirtualRedis::DecrCommand},
      // Hashes (t_hash.cc).
      {"hset", -4, kWrite, &VirtualRedis::HsetCommand},
      {"hget", 3, kReadOnly | kStale, &VirtualRedis::HgetCommand},
      {"hdel", -3, kWrite, &VirtualRedis::HdelCommand},
      {"hexists", 3, kReadOnly | kStale, &VirtualRedis::HexistsCommand},
      {"hincrby", 4, kWrite, &VirtualRedis::HincrbyCommand},
      {"hgetall", 2, kReadOnly | kStale, &VirtualRedis::HgetallCommand},
      {"hlen", 2, kReadOnly | kStale, &VirtualRedis::HlenCommand},
      // Connection (server.cc).
      {"ping", -1, kPubSubOk | kStale, &VirtualRedis::PingCommand},
      {"echo", 2, kStale, &VirtualRedis::EchoCommand},
      // Transactions (multi.cc). UNWATCH, unlike WATCH, is queued by MULTI.
      {"multi", 1, kNoScript | kNoMulti | kStale, &VirtualRedis::MultiCommand},
      {"exec", 1, kNoScript | kNoMulti | kStale, &VirtualRedis::ExecCommand},
      {"discard", 1, kNoScript | kNoMulti | kStale, &VirtualRedis::DiscardCommand},
      {"watch", -2, kNoScript | kNoMulti | kStale, &VirtualRedis::WatchCommand},
      {"unwatch", 1, kNoScript | kStale, &VirtualRedis::UnwatchCommand},
      // Pub/sub (pubsub.cc).
      {"subscribe", -2, kNoScript | kPubSubOk | kStale, &VirtualRedis::SubscribeCommand},
      {"unsubscribe", -1, kNoScript | kPubSubOk | kStale, &VirtualRedis::UnsubscribeCommand},
      {"publish", 3, kStale, &VirtualRedis::PublishCommand},
      // Scripting (script_lua.cc). SCRIPT is a container command in Redis:
      // its subcommands (load, exists, flush, kill, help, debug) and their
      // arities are resolved by LuaScripting::Script.
      {"eval", -3, kNoScript | kStale, &VirtualRedis::EvalCommand},
      {"evalsha", -3, kNoScript | kStale, &VirtualRedis::EvalShaCommand},
      {"eval_ro", -3, kNoScript | kStale | kReadOnly, &VirtualRedis::EvalRoCommand},
      {"evalsha_ro", -3, kNoScript | kStale | kReadOnly, &VirtualRedis::EvalShaRoCommand},
      {"script", -2, kNoScript, &VirtualRedis::ScriptCommand},
  };
  // ASCII case folding inline (what tolower() does in the C locale): this
  // runs for every command and every redis.call, and a libc call per
  // character showed in the profile.
  for (const CommandSpec& spec : kCommands) {
    if (spec.name.size() != name.size()) continue;
    bool same = true;
    for (size_t i = 0; i < name.size() && same; ++i) {
      const char c = name[i];
      same = (c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c) == spec.name[i];
    }
    if (same) return &spec;
  }
  return nullptr;
}

}  // namespace locksim
