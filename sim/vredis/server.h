// VirtualRedis: an in-process model of one Redis 7.0 node, for the commands
// locksim's lock variants use. It answers with the same replies, reply types
// and error strings as redis-server 7.0 (Debian 12's), which the differential
// tests check against a real server.
//
// The node has no clock of its own: every command is executed at a unix
// millisecond reading supplied by the caller (the node's own, possibly
// skewed, clock), and a key is expired when now > when, as in redis
// db.c keyIsExpired(). Expiry is lazy, on access; an expired key that is
// never touched again is invisible to every command here.
//
// Files mirror Redis's: db.cc (keyspace, DEL), t_string.cc (GET, SET),
// expire.cc (PTTL), script_lua.cc (EVAL and the redis.* Lua API).
#ifndef LOCKSIM_SIM_VREDIS_SERVER_H_
#define LOCKSIM_SIM_VREDIS_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "sim/reply.h"

namespace locksim {

class LuaScripting;

class VirtualRedis {
 public:
  VirtualRedis();
  ~VirtualRedis();
  VirtualRedis(const VirtualRedis&) = delete;
  VirtualRedis& operator=(const VirtualRedis&) = delete;

  // Executes one command at unix time `now_ms` (the node's clock).
  Reply Execute(const Command& argv, int64_t now_ms);

  // Number of keys, including expired keys not yet reclaimed (as DBSIZE).
  size_t KeyCount() const { return dict_.size(); }

 private:
  friend class LuaScripting;

  struct Entry {
    std::string value;
    int64_t expire_ms = -1;  // absolute unix ms; -1: no TTL
  };

  using Handler = Reply (VirtualRedis::*)(const Command&);
  struct CommandSpec {
    std::string_view name;  // lower case, as Redis's "fullname"
    int arity;              // Redis convention: > 0 exact, < 0 at least -arity
    Handler handler;
  };
  static const CommandSpec* Lookup(std::string_view name);

  // Dispatch shared by clients and scripts; `from_script` selects the error
  // wording Redis uses for scripts.
  Reply Dispatch(const Command& argv, bool from_script);

  // db.cc
  Entry* LookupKey(const std::string& key);  // expires lazily
  bool KeyIsExpired(const Entry& e) const {
    return e.expire_ms >= 0 && now_ms_ > e.expire_ms;
  }
  Reply DelCommand(const Command& argv);
  Reply PingCommand(const Command& argv);
  // t_string.cc
  Reply GetCommand(const Command& argv);
  Reply SetCommand(const Command& argv);
  // expire.cc
  Reply PttlCommand(const Command& argv);
  // script_lua.cc
  Reply EvalCommand(const Command& argv);

  std::unordered_map<std::string, Entry> dict_;
  int64_t now_ms_ = 0;  // the time of the command being executed
  std::unique_ptr<LuaScripting> lua_;
};

// Shared reply texts, as in Redis's server.c shared objects.
inline constexpr std::string_view kSyntaxErr = "ERR syntax error";
inline constexpr std::string_view kNotIntegerErr =
    "ERR value is not an integer or out of range";

// string2ll() from Redis util.c: strict base-10 int64, no spaces, no '+'.
bool StringToInt64(std::string_view s, int64_t* out);

}  // namespace locksim

#endif  // LOCKSIM_SIM_VREDIS_SERVER_H_
