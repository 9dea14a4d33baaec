// EVAL with a real Lua 5.1 interpreter (the version Redis embeds), as redis
// eval.c and script_lua.c: KEYS and ARGV, redis.call / redis.pcall /
// redis.error_reply / redis.status_reply, and Redis's conversions between
// Lua values and replies. Time is frozen for the whole script: every
// redis.call sees the node clock reading of the EVAL itself ("in the context
// of scripts, where we pretend that time freezes").
//
// Lua is the Debian C++ build (liblua5.1-c++), so a Lua error unwinds C++
// frames as an exception instead of a longjmp over destructors.
#ifndef LOCKSIM_SIM_VREDIS_SCRIPT_LUA_H_
#define LOCKSIM_SIM_VREDIS_SCRIPT_LUA_H_

#include <string>
#include <unordered_map>

#include "sim/reply.h"

struct lua_State;

namespace locksim {

class VirtualRedis;

class LuaScripting {
 public:
  explicit LuaScripting(VirtualRedis* server);
  ~LuaScripting();
  LuaScripting(const LuaScripting&) = delete;
  LuaScripting& operator=(const LuaScripting&) = delete;

  // EVAL script numkeys key... arg...
  Reply Eval(const Command& argv);

 private:
  static int Call(lua_State* L);
  static int PCall(lua_State* L);
  static int ErrorReply(lua_State* L);
  static int StatusReply(lua_State* L);
  int CallImpl(lua_State* L, bool protected_call);

  void PushReply(const Reply& reply);  // Redis reply -> Lua value
  Reply PopReply();                    // Lua value (top) -> Redis reply

  VirtualRedis* server_;
  lua_State* L_;
  std::unordered_map<std::string, int> compiled_;  // body -> registry ref
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_VREDIS_SCRIPT_LUA_H_
