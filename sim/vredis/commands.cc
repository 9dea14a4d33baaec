// The command table, as redis commands.def (7.0): name, arity, flags and
// the function that implements it. Arity follows Redis: a positive number
// is the exact argument count (command name included), a negative one the
// minimum. Flags are the subset of Redis's CMD_* flags the model acts on.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <iterator>
#include <span>

#include "sim/vredis/server.h"

namespace locksim {

std::span<const VirtualRedis::CommandSpec> VirtualRedis::Commands() {
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
      // What client libraries send as they connect (networking.cc,
      // db.cc, server.cc): enough for "any client library" to talk to
      // locksim serve.
      {"select", 2, kStale, &VirtualRedis::SelectCommand},
      {"flushdb", -1, kWrite, &VirtualRedis::FlushdbCommand},
      {"client", -2, kNoScript | kStale, &VirtualRedis::ClientCommand},
      {"hello", -1, kNoScript | kStale, &VirtualRedis::HelloCommand},
      {"info", -1, kStale, &VirtualRedis::InfoCommand},
      {"time", 1, kStale, &VirtualRedis::TimeCommand},
      {"command", -1, kStale, &VirtualRedis::CommandCommand},
      {"config", -2, kNoScript | kStale, &VirtualRedis::ConfigCommand},
      // A node does not stop itself (a scenario crashes it); locksim serve
      // answers SHUTDOWN outside MULTI. Here for its checks inside one.
      {"shutdown", -1, kNoScript | kNoMulti | kRejectInMulti | kStale,
       &VirtualRedis::ShutdownCommand},
  };
  return kCommands;
}

const VirtualRedis::CommandSpec* VirtualRedis::LookupRecent(std::string_view name) {
  const size_t n = name.size();
  for (const RecentName& r : recent_names_) {
    if (r.size != n || r.spec == nullptr || r.bytes[0] != name[0]) continue;
    size_t i = 1;
    while (i < n && r.bytes[i] == name[i]) ++i;
    if (i == n) return r.spec;
  }
  const CommandSpec* spec = Lookup(name);
  if (spec != nullptr) {  // so the name is no longer than bytes
    RecentName& r = recent_names_[recent_next_];
    recent_next_ = (recent_next_ + 1) % recent_names_.size();
    std::copy(name.begin(), name.end(), r.bytes.begin());
    r.size = name.size();
    r.spec = spec;
  }
  return spec;
}

const VirtualRedis::CommandSpec* VirtualRedis::Lookup(std::string_view name) {
  const std::span<const CommandSpec> kCommands = Commands();
  // Found by a hash of the lower-cased name in an index built once:
  // this runs for every command and every redis.call, and a scan of the
  // table (with ASCII case folding per character) was 8% of an EVAL
  // (callgrind). Case folding is inline, as tolower() in the C locale.
  constexpr size_t kMaxName = 16;
  constexpr size_t kSlots = 256;  // a power of two, over 4x the commands
  auto hash = [](std::string_view lower) {
    uint32_t h = 2166136261u;  // FNV-1a
    for (unsigned char c : lower) h = (h ^ c) * 16777619u;
    return h;
  };
  struct Index {
    std::array<int16_t, kSlots> slot;  // -1: empty, else into kCommands
  };
  static const Index kIndex = [&] {
    Index index;
    index.slot.fill(-1);
    for (size_t i = 0; i < std::size(kCommands); ++i) {
      size_t at = hash(kCommands[i].name) & (kSlots - 1);
      while (index.slot[at] >= 0) at = (at + 1) & (kSlots - 1);
      index.slot[at] = static_cast<int16_t>(i);
    }
    return index;
  }();
  if (name.size() > kMaxName) return nullptr;  // longer than any command
  // Folded and hashed in one pass.
  char buf[kMaxName];
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    buf[i] = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    h = (h ^ static_cast<unsigned char>(buf[i])) * 16777619u;
  }
  const std::string_view lower(buf, name.size());
  for (size_t at = h & (kSlots - 1);; at = (at + 1) & (kSlots - 1)) {
    const int16_t i = kIndex.slot[at];
    if (i < 0) return nullptr;
    if (kCommands[i].name == lower) return &kCommands[i];
  }
}

}  // namespace locksim
