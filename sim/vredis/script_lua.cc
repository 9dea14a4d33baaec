#include "sim/vredis/script_lua.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

#include "sim/vredis/server.h"

namespace locksim {
namespace {

// Turns an error text into Redis's error form: "-CODE msg" keeps its code,
// text without a code gets the generic "ERR" (script_lua.c luaPushErrorBuff).
std::string NormalizeError(std::string s) {
  if (!s.empty() && s[0] == '-') s.erase(0, 1);
  if (s.find(' ') == std::string::npos) s = "ERR " + s;
  return s;
}

void PushErrorTable(lua_State* L, const std::string& err) {
  lua_newtable(L);
  lua_pushstring(L, "err");
  lua_pushlstring(L, err.data(), err.size());
  lua_settable(L, -3);
}

LuaScripting* Self(lua_State* L) {
  return static_cast<LuaScripting*>(lua_touserdata(L, lua_upvalueindex(1)));
}

}  // namespace

LuaScripting::LuaScripting(VirtualRedis* server)
    : server_(server), L_(luaL_newstate()) {
  // The libraries Redis loads (scriptingInit): base, table, string, math.
  const lua_CFunction libs[] = {luaopen_base, luaopen_table, luaopen_string,
                                luaopen_math};
  for (lua_CFunction open : libs) {
    lua_pushcfunction(L_, open);
    lua_call(L_, 0, 0);
  }
  lua_newtable(L_);
  const struct {
    const char* name;
    lua_CFunction fn;
  } api[] = {{"call", &LuaScripting::Call},
             {"pcall", &LuaScripting::PCall},
             {"error_reply", &LuaScripting::ErrorReply},
             {"status_reply", &LuaScripting::StatusReply}};
  for (const auto& f : api) {
    lua_pushstring(L_, f.name);
    lua_pushlightuserdata(L_, this);
    lua_pushcclosure(L_, f.fn, 1);
    lua_settable(L_, -3);
  }
  lua_setglobal(L_, "redis");
}

LuaScripting::~LuaScripting() { lua_close(L_); }

int LuaScripting::Call(lua_State* L) { return Self(L)->CallImpl(L, false); }
int LuaScripting::PCall(lua_State* L) { return Self(L)->CallImpl(L, true); }

int LuaScripting::ErrorReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, 1) != LUA_TSTRING) {
    return luaL_error(L, "wrong number or type of arguments");
  }
  PushErrorTable(L, NormalizeError(lua_tostring(L, 1)));
  return 1;
}

int LuaScripting::StatusReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, 1) != LUA_TSTRING) {
    return luaL_error(L, "wrong number or type of arguments");
  }
  lua_newtable(L);
  lua_pushstring(L, "ok");
  lua_pushvalue(L, 1);
  lua_settable(L, -3);
  return 1;
}

// redis.call / redis.pcall (script_lua.c luaRedisGenericCommand).
int LuaScripting::CallImpl(lua_State* L, bool protected_call) {
  const int argc = lua_gettop(L);
  std::string error;
  Reply reply;
  if (argc == 0) {
    error = "ERR Please specify at least one argument for this redis lib call";
  } else {
    Command argv;
    argv.reserve(argc);
    for (int i = 1; i <= argc && error.empty(); ++i) {
      const int t = lua_type(L, i);
      if (t != LUA_TSTRING && t != LUA_TNUMBER) {
        error = "ERR Lua redis lib command arguments must be strings or integers";
        break;
      }
      size_t len;
      const char* s = lua_tolstring(L, i, &len);
      argv.emplace_back(s, len);
    }
    if (error.empty()) {
      reply = server_->Dispatch(argv, /*from_script=*/true);
      if (reply.IsError() && !protected_call) error = reply.str;
    }
  }
  if (!error.empty()) {
    if (protected_call) {
      PushErrorTable(L, error);
      return 1;
    }
    PushErrorTable(L, error);
    return lua_error(L);  // raises the {err=...} table, as Redis 7 does
  }
  PushReply(reply);
  return 1;
}

// redisProtocolToLuaType(): integer -> number, bulk -> string, nil -> false,
// status -> {ok=...}, error -> {err=...}, array -> table.
void LuaScripting::PushReply(const Reply& r) {
  switch (r.type) {
    case Reply::Type::kInteger:
      lua_pushnumber(L_, static_cast<lua_Number>(r.integer));
      break;
    case Reply::Type::kString:
      lua_pushlstring(L_, r.str.data(), r.str.size());
      break;
    case Reply::Type::kNil:
      lua_pushboolean(L_, 0);
      break;
    case Reply::Type::kStatus:
      lua_newtable(L_);
      lua_pushstring(L_, "ok");
      lua_pushlstring(L_, r.str.data(), r.str.size());
      lua_settable(L_, -3);
      break;
    case Reply::Type::kError:
      PushErrorTable(L_, r.str);
      break;
    case Reply::Type::kArray:
      lua_newtable(L_);
      for (size_t i = 0; i < r.elements.size(); ++i) {
        lua_pushnumber(L_, static_cast<lua_Number>(i + 1));
        PushReply(r.elements[i]);
        lua_settable(L_, -3);
      }
      break;
  }
}

// luaReplyToRedisReply(): string -> bulk, true -> 1, false -> nil, number ->
// integer (truncated), {err=} -> error, {ok=} -> status, other table -> array
// up to the first nil. Pops the value.
Reply LuaScripting::PopReply() {
  Reply out;
  switch (lua_type(L_, -1)) {
    case LUA_TSTRING: {
      size_t len;
      const char* s = lua_tolstring(L_, -1, &len);
      out = Reply::String(std::string(s, len));
      break;
    }
    case LUA_TBOOLEAN:
      out = lua_toboolean(L_, -1) ? Reply::Integer(1) : Reply::Nil();
      break;
    case LUA_TNUMBER:
      out = Reply::Integer(static_cast<int64_t>(lua_tonumber(L_, -1)));
      break;
    case LUA_TTABLE: {
      lua_pushstring(L_, "err");
      lua_gettable(L_, -2);
      if (lua_type(L_, -1) == LUA_TSTRING) {
        out = Reply::Error(lua_tostring(L_, -1));
        lua_pop(L_, 1);
        break;
      }
      lua_pop(L_, 1);
      lua_pushstring(L_, "ok");
      lua_gettable(L_, -2);
      if (lua_type(L_, -1) == LUA_TSTRING) {
        out = Reply::Status(lua_tostring(L_, -1));
        lua_pop(L_, 1);
        break;
      }
      lua_pop(L_, 1);
      std::vector<Reply> elements;
      for (int j = 1;; ++j) {
        lua_pushnumber(L_, j);
        lua_gettable(L_, -2);
        if (lua_isnil(L_, -1)) {
          lua_pop(L_, 1);
          break;
        }
        elements.push_back(PopReply());
      }
      out = Reply::Array(std::move(elements));
      break;
    }
    default:
      out = Reply::Nil();
  }
  lua_pop(L_, 1);
  return out;
}

// EVAL (eval.c evalGenericCommand).
Reply LuaScripting::Eval(const Command& argv) {
  int64_t numkeys;
  if (!StringToInt64(argv[2], &numkeys)) {
    return Reply::Error(std::string(kNotIntegerErr));
  }
  const int64_t available = static_cast<int64_t>(argv.size()) - 3;
  if (numkeys > available) {
    return Reply::Error("ERR Number of keys can't be greater than number of args");
  }
  if (numkeys < 0) return Reply::Error("ERR Number of keys can't be negative");

  const std::string& body = argv[1];
  auto it = compiled_.find(body);
  if (it == compiled_.end()) {
    if (luaL_loadbuffer(L_, body.data(), body.size(), "@user_script") != 0) {
      std::string msg = lua_tostring(L_, -1);
      lua_pop(L_, 1);
      return Reply::Error("ERR Error compiling script (new function): " + msg);
    }
    it = compiled_.emplace(body, luaL_ref(L_, LUA_REGISTRYINDEX)).first;
  }

  auto set_array = [&](const char* name, size_t from, size_t count) {
    lua_newtable(L_);
    for (size_t i = 0; i < count; ++i) {
      lua_pushnumber(L_, static_cast<lua_Number>(i + 1));
      lua_pushlstring(L_, argv[from + i].data(), argv[from + i].size());
      lua_settable(L_, -3);
    }
    lua_setglobal(L_, name);
  };
  set_array("KEYS", 3, static_cast<size_t>(numkeys));
  set_array("ARGV", 3 + numkeys, static_cast<size_t>(available - numkeys));

  lua_rawgeti(L_, LUA_REGISTRYINDEX, it->second);
  // Time is frozen for the whole script (server_->now_ms_ does not move),
  // and its write effects reach replicas together (FlushEffects).
  const bool outer_script = server_->in_script_;
  server_->in_script_ = true;
  ++server_->effects_depth_;
  const int status = lua_pcall(L_, 0, 1, 0);
  --server_->effects_depth_;
  server_->in_script_ = outer_script;
  server_->FlushEffects();
  if (status != 0) {
    // TODO(issue 3): Redis appends " script: <sha1>, on @user_script:<line>."
    Reply err;
    if (lua_istable(L_, -1)) {
      lua_pushstring(L_, "err");
      lua_gettable(L_, -2);
      err = Reply::Error(lua_isstring(L_, -1) ? lua_tostring(L_, -1)
                                              : "ERR unknown error");
      lua_pop(L_, 2);
    } else {
      err = Reply::Error(std::string("ERR ") +
                         (lua_isstring(L_, -1) ? lua_tostring(L_, -1)
                                               : "unknown error"));
      lua_pop(L_, 1);
    }
    return err;
  }
  return PopReply();
}

Reply VirtualRedis::EvalCommand(const Command& argv) { return lua_->Eval(argv); }

}  // namespace locksim
