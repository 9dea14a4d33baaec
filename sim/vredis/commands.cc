// The command table, as redis commands.def: name, arity, flags and the
// function that implements it. Arity follows Redis: a positive number is the
// exact argument count (command name included), a negative one the minimum.
#include <cctype>

#include "sim/vredis/server.h"

namespace locksim {

const VirtualRedis::CommandSpec* VirtualRedis::Lookup(std::string_view name) {
  static const CommandSpec kCommands[] = {
      // Generic key space (db.cc, expire.cc).
      {"del", -2, kWrite, &VirtualRedis::DelCommand},
      {"pttl", 2, kReadOnly | kStale, &VirtualRedis::PttlCommand},
      // Strings (t_string.cc).
      {"get", 2, kReadOnly | kStale, &VirtualRedis::GetCommand},
      {"set", -3, kWrite, &VirtualRedis::SetCommand},
      // Connection.
      {"ping", -1, kPubSubOk | kStale, &VirtualRedis::PingCommand},
      // Transactions (multi.cc).
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
  for (const CommandSpec& spec : kCommands) {
    if (spec.name.size() != name.size()) continue;
    bool same = true;
    for (size_t i = 0; i < name.size() && same; ++i) {
      same = std::tolower(static_cast<unsigned char>(name[i])) == spec.name[i];
    }
    if (same) return &spec;
  }
  return nullptr;
}

}  // namespace locksim
