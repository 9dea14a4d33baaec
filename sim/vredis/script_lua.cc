#include "sim/vredis/script_lua.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

// Debian's lua-cjson-dev and lua-bitop-dev, C functions.
int luaopen_cjson(lua_State* L);
int luaopen_bit(lua_State* L);
}

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/errors.h"
#include "sim/vredis/server.h"
#include "sim/vredis/script_errors.h"
#include "sim/vredis/sha1.h"

namespace locksim {
namespace {


// ---------------------------------------------------------------------------
// Read-only tables.
//
// redis-server marks every table reachable from the globals read-only in its
// patched Lua. Here each such table T is hidden behind an empty proxy P whose
// metatable is {__index = T, __newindex = ReadonlyNewIndex}: reads see T,
// every write lands in __newindex (P has no keys of its own). The registry
// maps P -> T (kBackingKey), T -> P (kProxyKey) and P -> the metatable a
// script should see for P (kApparentMetatableKey).
// ---------------------------------------------------------------------------

// Registry keys: the addresses of these constant bytes, as light userdata.
constexpr char kRegistryKeys[3] = {};
constexpr const char* kBackingKey = &kRegistryKeys[0];
constexpr const char* kProxyKey = &kRegistryKeys[1];
constexpr const char* kApparentMetatableKey = &kRegistryKeys[2];

constexpr char kReadonlyError[] = "Attempt to modify a readonly table";

void PushRegistryTable(lua_State* L, const char* key) {
  lua_pushlightuserdata(L, const_cast<char*>(key));
  lua_rawget(L, LUA_REGISTRYINDEX);
}

// Looks the value at `idx` up in the registry table `map`; pushes the
// result (nil when absent).
void PushMapped(lua_State* L, const char* map, int idx) {
  if (idx < 0 && idx > LUA_REGISTRYINDEX) idx = lua_gettop(L) + idx + 1;
  PushRegistryTable(L, map);
  lua_pushvalue(L, idx);
  lua_rawget(L, -2);
  lua_remove(L, -2);
}

// If the table at `idx` is a read-only proxy, pushes the table behind it.
bool PushBacking(lua_State* L, int idx) {
  PushMapped(L, kBackingKey, idx);
  if (lua_istable(L, -1)) return true;
  lua_pop(L, 1);
  return false;
}

bool IsReadonly(lua_State* L, int idx) {
  if (!PushBacking(L, idx)) return false;
  lua_pop(L, 1);
  return true;
}

// A write refused inside a C function (lua_rawset and friends in Redis's
// Lua): luaG_runerror() gives no position when the running function is C.
int RaiseReadonly(lua_State* L) {
  lua_pushstring(L, kReadonlyError);
  return lua_error(L);
}

// __newindex of a proxy: luaV_settable()'s error, positioned at the Lua code
// that assigned (luaL_error's level 1 is the caller of this metamethod).
int ReadonlyNewIndex(lua_State* L) { return luaL_error(L, kReadonlyError); }

// luaProtectedTableError(), the __index of the globals' metatable: reading
// an undefined global is an error.
int ProtectedTableError(lua_State* L) {
  if (lua_gettop(L) != 2) {
    luaL_error(L, "Wrong number of arguments to luaProtectedTableError");
  }
  if (!lua_isstring(L, -1) && !lua_isnumber(L, -1)) {
    luaL_error(L, "Second argument to luaProtectedTableError must be a string or number");
  }
  const char* name = lua_tostring(L, -1);
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'", name);
}

// luaSetTableProtectionRecursively(): makes the table at `idx` read-only,
// with every table reachable from it (values and metatables), and pushes
// its proxy.
void Protect(lua_State* L, int idx) {
  if (idx < 0) idx = lua_gettop(L) + idx + 1;
  if (IsReadonly(L, idx)) {  // a proxy already
    lua_pushvalue(L, idx);
    return;
  }
  PushMapped(L, kProxyKey, idx);
  if (lua_istable(L, -1)) return;  // already protected (e.g. _G._G)
  lua_pop(L, 1);
  lua_checkstack(L, 8);

  lua_newtable(L);  // the proxy
  const int proxy = lua_gettop(L);
  PushRegistryTable(L, kProxyKey);
  lua_pushvalue(L, idx);
  lua_pushvalue(L, proxy);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  PushRegistryTable(L, kBackingKey);
  lua_pushvalue(L, proxy);
  lua_pushvalue(L, idx);
  lua_rawset(L, -3);
  lua_pop(L, 1);

  // Table values are replaced by their proxies (assigning existing fields
  // during a traversal is allowed).
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (lua_istable(L, -1)) {
      Protect(L, -1);           // key, value, proxy
      lua_pushvalue(L, -3);     // key
      lua_pushvalue(L, -2);     // proxy
      lua_rawset(L, idx);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }

  // A script asking for the proxy's metatable sees the protected metatable
  // of the real table (the globals' error metatable), or nothing.
  if (lua_getmetatable(L, idx)) {
    Protect(L, -1);
    PushRegistryTable(L, kApparentMetatableKey);
    lua_pushvalue(L, proxy);
    lua_pushvalue(L, -3);
    lua_rawset(L, -3);
    lua_pop(L, 3);
  }

  lua_newtable(L);  // the proxy's own metatable
  lua_pushvalue(L, idx);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, ReadonlyNewIndex);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, proxy);
}

// ---------------------------------------------------------------------------
// Base and table library functions that bypass metatables, rewritten to see
// through proxies. Argument checks are those of lbaselib.c / ltablib.c, so
// error messages are unchanged.
// ---------------------------------------------------------------------------

// loadstring and load: nil and the message where the chunk does not load.
int LoadChunk(lua_State* L, const std::string& chunk, const char* chunkname) {
  if (LoadText(L, chunk.data(), chunk.size(), chunkname) == 0) return 1;
  lua_pushnil(L);
  lua_insert(L, -2);  // nil, message
  return 2;
}

int LoadString(lua_State* L) {
  size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  const char* chunkname = luaL_optstring(L, 2, s);
  return LoadChunk(L, std::string(s, len), chunkname);
}

// load(f [, chunkname]): the pieces f returns, joined, then as loadstring.
int Load(lua_State* L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  const char* chunkname = luaL_optstring(L, 2, "=(load)");
  std::string chunk;
  for (;;) {
    lua_pushvalue(L, 1);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      break;
    }
    if (!lua_isstring(L, -1)) return luaL_error(L, "reader function must return a string");
    size_t len = 0;
    const char* piece = lua_tolstring(L, -1, &len);
    if (len == 0) {
      lua_pop(L, 1);
      break;
    }
    chunk.append(piece, len);
    lua_pop(L, 1);
  }
  return LoadChunk(L, chunk, chunkname);
}

int Next(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 2);
  if (PushBacking(L, 1)) lua_replace(L, 1);
  if (lua_next(L, 1)) return 2;
  lua_pushnil(L);
  return 1;
}

int Pairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushvalue(L, lua_upvalueindex(1));  // Next
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

int RawGet(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  lua_settop(L, 2);
  if (PushBacking(L, 1)) lua_replace(L, 1);
  lua_rawget(L, 1);
  return 1;
}

int RawSet(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  lua_settop(L, 3);
  if (IsReadonly(L, 1)) return RaiseReadonly(L);
  lua_rawset(L, 1);
  return 1;
}

int GetMetatable(lua_State* L) {
  luaL_checkany(L, 1);
  if (lua_type(L, 1) == LUA_TTABLE && IsReadonly(L, 1)) {
    PushMapped(L, kApparentMetatableKey, 1);
    return 1;
  }
  if (!lua_getmetatable(L, 1)) {
    lua_pushnil(L);
    return 1;
  }
  luaL_getmetafield(L, 1, "__metatable");
  // A protected metatable (the strings' one) is shown as its proxy.
  if (lua_istable(L, -1)) {
    PushMapped(L, kProxyKey, -1);
    if (lua_istable(L, -1)) return 1;
    lua_pop(L, 1);
  }
  return 1;
}

int SetMetatable(lua_State* L) {
  const int t = lua_type(L, 2);
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_argcheck(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table expected");
  if (IsReadonly(L, 1)) return RaiseReadonly(L);
  if (luaL_getmetafield(L, 1, "__metatable")) {
    luaL_error(L, "cannot change a protected metatable");
  }
  lua_settop(L, 2);
  lua_setmetatable(L, 1);
  return 1;
}

// ltablib.c tinsert(): every path ends in lua_rawseti, which Redis refuses
// on a read-only table.
int TableInsert(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  int e = static_cast<int>(lua_objlen(L, 1)) + 1;
  int pos;
  switch (lua_gettop(L)) {
    case 2:
      pos = e;
      break;
    case 3:
      pos = luaL_checkint(L, 2);
      if (pos > e) e = pos;
      if (IsReadonly(L, 1)) return RaiseReadonly(L);
      for (int i = e; i > pos; --i) {
        lua_rawgeti(L, 1, i - 1);
        lua_rawseti(L, 1, i);
      }
      break;
    default:
      return luaL_error(L, "wrong number of arguments to 'insert'");
  }
  if (IsReadonly(L, 1)) return RaiseReadonly(L);
  lua_rawseti(L, 1, pos);
  return 0;
}

// ltablib.c foreach().
int TableForeach(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  if (PushBacking(L, 1)) lua_replace(L, 1);
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    lua_pushvalue(L, 2);
    lua_pushvalue(L, -3);
    lua_pushvalue(L, -3);
    lua_call(L, 2, 1);
    if (!lua_isnil(L, -1)) return 1;
    lua_pop(L, 2);
  }
  return 0;
}

// ---------------------------------------------------------------------------
// The redis.* functions that need no server state (script_lua.c).
// ---------------------------------------------------------------------------

// luaPushErrorBuff(): "-CODE msg" keeps its code, "msg" gets "ERR"; the
// message loses surrounding newlines. Pushes {err = "CODE msg"}.
void PushErrorBuff(lua_State* L, std::string err_buffer) {
  err_buffer = CString(err_buffer);
  std::string code = "ERR";
  std::string msg;
  if (!err_buffer.empty() && err_buffer[0] == '-') {
    const size_t space = err_buffer.find(' ');
    if (space == std::string::npos) {
      msg = err_buffer.substr(1);
    } else {
      code = err_buffer.substr(1, space - 1);
      msg = err_buffer.substr(space + 1);
    }
  } else {
    msg = std::move(err_buffer);
  }
  const std::string final_msg = code + " " + TrimNewlines(std::move(msg));
  lua_newtable(L);
  lua_pushstring(L, "err");
  lua_pushstring(L, final_msg.c_str());
  lua_settable(L, -3);
}

// luaPushError(): an error text of our own, without a code.
void PushError(lua_State* L, const std::string& error) { PushErrorBuff(L, error); }

// The error table of a refused or failed command also says that the error
// statistics were already updated (script_lua.c luaRedisGenericCommand).
void MarkIgnoreErrorStats(lua_State* L) {
  lua_pushstring(L, "ignore_error_stats_update");
  lua_pushboolean(L, 1);
  lua_settable(L, -3);
}

// redis.pcall's sibling, the global pcall (luaRedisPcall): as Lua's, but an
// error table {err=...} is returned as its message, as Redis 6 scripts saw.
int RedisPcall(lua_State* L) {
  const int argc = lua_gettop(L);
  lua_pushboolean(L, 1);  // result place holder
  lua_insert(L, 1);
  if (argc == 0) {
    // Redis calls lua_pcall(lua, -1, ...), which calls the place holder
    // itself; Lua then fails with this message.
    lua_settop(L, 0);
    lua_pushboolean(L, 0);
    lua_pushstring(L, "attempt to call a boolean value");
    return 2;
  }
  if (lua_pcall(L, argc - 1, LUA_MULTRET, 0)) {
    lua_remove(L, 1);
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      if (lua_isstring(L, -1)) lua_replace(L, -2);
    }
    lua_pushboolean(L, 0);
    lua_insert(L, 1);
  }
  return lua_gettop(L);
}

// redis.error_reply(): wrong arguments return (not raise) an error table.
int ErrorReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    PushError(L, "wrong number or type of arguments");
    return 1;
  }
  std::string err = lua_tostring(L, -1);
  if (err.empty() || err[0] != '-') err = "-" + err;
  PushErrorBuff(L, std::move(err));
  return 1;
}

// redis.status_reply() (luaRedisReturnSingleFieldTable).
int StatusReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    PushError(L, "wrong number or type of arguments");
    return 1;
  }
  lua_newtable(L);
  lua_pushstring(L, "ok");
  lua_pushvalue(L, -3);
  lua_settable(L, -3);
  return 1;
}

// redis.sha1hex(): a non-string argument hashes as "".
int Sha1HexCommand(lua_State* L) {
  if (lua_gettop(L) != 1) {
    PushError(L, "wrong number of arguments");
    return lua_error(L);
  }
  size_t len = 0;
  const char* s = lua_tolstring(L, 1, &len);
  const std::string digest = Sha1Hex(s == nullptr ? std::string_view() : std::string_view(s, len));
  lua_pushstring(L, digest.c_str());
  return 1;
}

// redis.log(): the arguments are checked as Redis does; nothing is logged.
int LogCommand(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc < 2) {
    PushError(L, "redis.log() requires two arguments or more.");
    return lua_error(L);
  }
  if (!lua_isnumber(L, -argc)) {
    PushError(L, "First argument must be a number (log level).");
    return lua_error(L);
  }
  const int level = static_cast<int>(lua_tonumber(L, -argc));
  if (level < 0 || level > 3) {  // LL_DEBUG .. LL_WARNING
    PushError(L, "Invalid debug level.");
    return lua_error(L);
  }
  return 0;
}

// redis.replicate_commands(): scripts always replicate their effects in 7.0.
int ReplicateCommands(lua_State* L) {
  lua_pushboolean(L, 1);
  return 1;
}

// redis.breakpoint() and redis.debug(): no-ops outside a debugging session
// (SCRIPT DEBUG is not modelled, so there never is one).
int Breakpoint(lua_State* L) {
  lua_pushboolean(L, 0);
  return 1;
}
int DebugCommand(lua_State* L) { return 0; }

// Converts a Lua number to a reply integer as Redis's (long long) cast does
// on x86-64: out of range and NaN become INT64_MIN (cvttsd2si).
int64_t NumberToInteger(lua_Number n) {
  if (!(n >= -9223372036854775808.0 && n < 9223372036854775808.0)) return INT64_MIN;
  return static_cast<int64_t>(n);
}

// addReplyDouble() for a RESP2 client: a bulk string.
std::string FormatDouble(double d) {
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[64];
  const int n = std::snprintf(buf, sizeof(buf), "%.17g", d);
  return std::string(buf, static_cast<size_t>(n));
}

// The error handler of every script run (eval.c scriptingInit), byte for
// byte: its line numbers show in some replies ("on @err_handler_def:10.").
constexpr char kErrorHandlerDef[] =
    "local dbg = debug\n"
    "debug = nil\n"
    "function __redis__err__handler(err)\n"
    "  local i = dbg.getinfo(2,'nSl')\n"
    "  if i and i.what == 'C' then\n"
    "    i = dbg.getinfo(3,'nSl')\n"
    "  end\n"
    "  if type(err) ~= 'table' then\n"
    "    err = {err='ERR ' .. tostring(err)}"
    "  end"
    "  if i then\n"
    "    err['source'] = i.source\n"
    "    err['line'] = i.currentline\n"
    "  end"
    "  return err\n"
    "end\n";

constexpr int64_t kLrand48Max = INT32_MAX;  // REDIS_LRAND48_MAX

}  // namespace

// Redis's Lua parses every chunk as text: loading precompiled bytecode was
// a known way out of its sandbox (Lua 5.1 does not verify hand-made
// bytecode), so a dumped function reads as a syntax error at its first
// byte (ESC), as redis-server 7.0 answers: loadstring(string.dump(f)) is
// nil, "[string \"\x1bLuaQ\"]:1: unexpected symbol near 'char(27)'", and
// an EVAL of one "user_script:1: unexpected symbol near 'char(27)'".
int LoadText(lua_State* L, const char* chunk, size_t size, const char* chunkname) {
  if (size > 0 && chunk[0] == LUA_SIGNATURE[0]) {
    // luaO_chunkid: "=name" is shown as name, "@file" as file, a string
    // source as [string "its first line"] (up to a NUL).
    const std::string name(chunkname);
    std::string id;
    if (!name.empty() && (name[0] == '=' || name[0] == '@')) {
      id = name.substr(1);
    } else {
      id = "[string \"" + std::string(name.substr(0, name.find_first_of("\n\r")).c_str()) + "\"]";
    }
    lua_pushfstring(L, "%s:1: unexpected symbol near 'char(27)'", id.c_str());
    return LUA_ERRSYNTAX;
  }
  return luaL_loadbuffer(L, chunk, size, chunkname);
}

std::string DumpChunk(lua_State* L) {
  std::string chunk;
  lua_dump(
      L,
      [](lua_State*, const void* p, size_t n, void* out) {
        static_cast<std::string*>(out)->append(static_cast<const char*>(p), n);
        return 0;
      },
      &chunk);
  return chunk;
}

// ---------------------------------------------------------------------------
// Lua state set-up (eval.c scriptingInit, script_lua.c luaRegisterRedisAPI).
// ---------------------------------------------------------------------------

// The Lua state is made when the first script is compiled (CreateFunction),
// not with the server: a run whose lock sends no script (SETNX, WATCH/MULTI,
// a replica that is sent only effects) never pays for it. The state is the
// same either way, since nothing reaches it before a script does.
LuaScripting::LuaScripting(VirtualRedis* server)
    : server_(server), rand48_(0x1234ABCD330Eull) {}  // rand.c X2:X1:X0

LuaScripting::~LuaScripting() { Close(); }

namespace {
// A pooled state's allocator: no server to count its bytes for. Nothing
// runs in it while it waits, but lua_close may.
void* PooledAlloc(void*, void* ptr, size_t, size_t new_size) {
  if (new_size == 0) {
    std::free(ptr);
    return nullptr;
  }
  return std::realloc(ptr, new_size);
}
}  // namespace

ScriptStatePool::ScriptStatePool() { idle_.reserve(kMaxIdle); }

ScriptStatePool::~ScriptStatePool() {
  for (const Entry& e : idle_) lua_close(e.L);
}

void LuaScripting::Close() {
  if (L_ != nullptr && !GivePooled()) lua_close(L_);
  L_ = nullptr;
  poolable_ = false;
  compiled_.clear();
}

bool LuaScripting::GivePooled() {
  ScriptStatePool* pool = server_->script_pool_;
  if (pool == nullptr || pool->refused_ || !poolable_ || running_ || lua_gettop(L_) != 0 ||
      server_->script_memory_limit_ > 0 || pool->idle_.size() >= ScriptStatePool::kMaxIdle) {
    return false;
  }
  ScriptStatePool::Entry e{L_, globals_ref_, handler_ref_, keys_name_ref_, argv_name_ref_,
                           lua_bytes_, {}};
  try {
    // A new server's cache is empty; the functions are kept, up to
    // kMaxCompiled of them.
    e.compiled = std::move(compiled_);
    for (const auto& [sha, script] : scripts_) {
      lua_pushnil(L_);
      lua_setfield(L_, LUA_REGISTRYINDEX, ("f_" + sha).c_str());
      if (e.compiled.size() < ScriptStatePool::kMaxCompiled) {
        e.compiled.emplace(script.body, ScriptStatePool::Compiled{script.function_ref,
                                                                  script.may_change_args});
      }
    }
  } catch (...) {  // out of memory: the state is closed instead
    return false;
  }
  // The KEYS and ARGV tables kept for reuse go: what a script did to one
  // (keys removed and put back) can leave it laid out otherwise than a new
  // one, which pairs() would show. The next server makes its own.
  for (ArgTables* tables : {&keys_tables_, &argv_tables_}) {
    for (int& ref : *tables) {
      luaL_unref(L_, LUA_REGISTRYINDEX, ref);
      ref = LUA_NOREF;
    }
  }
  lua_setallocf(L_, &PooledAlloc, nullptr);
  pool->idle_.push_back(std::move(e));  // no allocation: reserved
  return true;
}

bool LuaScripting::TakePooled() {
  ScriptStatePool* pool = server_->script_pool_;
  if (pool == nullptr || pool->idle_.empty() || pool->refused_ ||
      server_->script_memory_limit_ > 0) {
    return false;
  }
  ScriptStatePool::Entry e = std::move(pool->idle_.back());
  pool->idle_.pop_back();
  L_ = e.L;
  lua_setallocf(L_, &LuaScripting::Alloc, this);
  globals_ref_ = e.globals_ref;
  handler_ref_ = e.handler_ref;
  keys_name_ref_ = e.keys_name_ref;
  argv_name_ref_ = e.argv_name_ref;
  keys_tables_.fill(LUA_NOREF);  // as a new state's: see GivePooled
  argv_tables_.fill(LUA_NOREF);
  keys_installed_ = argv_installed_ = LUA_NOREF;
  lua_bytes_ = e.bytes;
  compiled_ = std::move(e.compiled);
  poolable_ = true;
  taken_ = true;
  return true;
}

void* LuaScripting::Alloc(void* ud, void* ptr, size_t old_size, size_t new_size) {
  auto* self = static_cast<LuaScripting*>(ud);
  if (new_size == 0) {
    std::free(ptr);
    self->lua_bytes_ -= static_cast<int64_t>(old_size);
    return nullptr;
  }
  // Only a stack overflow grows Lua's call-info array past 16 384 entries
  // (it doubles from 8, and fails past 20 000); after one, the array's size
  // and so the depth of the next overflow depend on what ran before. A
  // state that made so large an allocation is not handed on.
  if (new_size > kLargestHandedOn) self->poolable_ = false;
  const int64_t limit = self->server_->script_memory_limit_;
  const int64_t growth = static_cast<int64_t>(new_size) - static_cast<int64_t>(old_size);
  if (growth > 0 && limit > 0 && self->lua_bytes_ + growth > limit) return nullptr;
  void* p = std::realloc(ptr, new_size);
  if (p != nullptr) self->lua_bytes_ += growth;
  return p;
}

// The state's allocator has its scripting as user data (Init): found so
// by every C function and the count hook, without an upvalue or a lookup.
LuaScripting* LuaScripting::Self(lua_State* L) {
  void* self = nullptr;
  lua_getallocf(L, &self);
  return static_cast<LuaScripting*>(self);
}

void LuaScripting::Init() {
  if (TakePooled()) return;
  L_ = lua_newstate(&LuaScripting::Alloc, this);
  if (L_ == nullptr) throw HarnessError("lua_newstate(): out of memory");
  lua_State* L = L_;
  lua_atpanic(L, [](lua_State* L) -> int {  // as luaL_newstate's panic
    throw HarnessError(std::string("Lua panic: ") +
                       (lua_isstring(L, -1) ? lua_tostring(L, -1) : "(no message)"));
  });
  // luaLoadLibraries(): base, table, string, math, and debug for the error
  // handler (removed right after). No package, os or io.
  const struct {
    const char* name;
    lua_CFunction open;
  } libs[] = {{"", luaopen_base},
              {LUA_TABLIBNAME, luaopen_table},
              {LUA_STRLIBNAME, luaopen_string},
              {LUA_MATHLIBNAME, luaopen_math},
              {LUA_DBLIBNAME, luaopen_debug}};
  for (const auto& lib : libs) {
    lua_pushcfunction(L, lib.open);
    lua_pushstring(L, lib.name);
    lua_call(L, 1, 0);
  }
  // cjson and bit, as Redis 7.0 loads them (Debian's lua-cjson 2.1.0, the
  // version Redis vendors, and LuaBitOp). cmsgpack and struct, which
  // Debian does not package, stay absent.
  lua_pushcfunction(L, luaopen_cjson);
  lua_call(L, 0, 1);
  lua_setglobal(L, "cjson");
  lua_pushcfunction(L, luaopen_bit);
  lua_pushstring(L, "bit");
  lua_call(L, 1, 0);
  for (const char* name : {"dofile", "loadfile", "print", "getfenv", "setfenv", "newproxy"}) {
    lua_pushnil(L);
    lua_setglobal(L, name);
  }
  lua_register(L, "pcall", RedisPcall);
  lua_register(L, "loadstring", LoadString);
  lua_register(L, "load", Load);
  lua_register(L, "next", Next);
  lua_pushcfunction(L, Next);
  lua_pushcclosure(L, Pairs, 1);
  lua_setglobal(L, "pairs");
  lua_register(L, "rawget", RawGet);
  lua_register(L, "rawset", RawSet);
  lua_register(L, "getmetatable", GetMetatable);
  lua_register(L, "setmetatable", SetMetatable);
  lua_getglobal(L, LUA_TABLIBNAME);
  lua_pushcfunction(L, TableInsert);
  lua_setfield(L, -2, "insert");
  lua_pushcfunction(L, TableForeach);
  lua_setfield(L, -2, "foreach");
  lua_pop(L, 1);

  // The redis table, as Redis 7.0's.
  lua_newtable(L);
  const struct {
    const char* name;
    lua_CFunction fn;
  } api[] = {{"call", &LuaScripting::Call},
             {"pcall", &LuaScripting::PCall},
             {"log", LogCommand},
             {"sha1hex", Sha1HexCommand},
             {"error_reply", ErrorReply},
             {"status_reply", StatusReply},
             {"replicate_commands", ReplicateCommands},
             {"breakpoint", Breakpoint},
             {"debug", DebugCommand},
             {"setresp", &LuaScripting::SetResp},
             {"set_repl", &LuaScripting::SetRepl},
             {"acl_check_cmd", &LuaScripting::AclCheckCmd}};
  for (const auto& f : api) {
    lua_pushcfunction(L, f.fn);
    lua_setfield(L, -2, f.name);
  }
  const struct {
    const char* name;
    lua_Number value;
  } constants[] = {{"LOG_DEBUG", 0},  {"LOG_VERBOSE", 1},  {"LOG_NOTICE", 2},
                   {"LOG_WARNING", 3}, {"REPL_NONE", 0},   {"REPL_AOF", 1},
                   {"REPL_SLAVE", 2},  {"REPL_REPLICA", 2}, {"REPL_ALL", 3},
                   {"REDIS_VERSION_NUM", 0x07000f}};
  for (const auto& c : constants) {
    lua_pushnumber(L, c.value);
    lua_setfield(L, -2, c.name);
  }
  lua_pushstring(L, "7.0.15");
  lua_setfield(L, -2, "REDIS_VERSION");
  lua_setglobal(L, "redis");

  // math.random / math.randomseed on Redis's PRNG.
  lua_getglobal(L, LUA_MATHLIBNAME);
  lua_pushcfunction(L, &LuaScripting::MathRandom);
  lua_setfield(L, -2, "random");
  lua_pushcfunction(L, &LuaScripting::MathRandomSeed);
  lua_setfield(L, -2, "randomseed");
  lua_pop(L, 1);

  luaL_loadbuffer(L, kErrorHandlerDef, sizeof(kErrorHandlerDef) - 1, "@err_handler_def");
  lua_call(L, 0, 0);
  lua_getglobal(L, "__redis__err__handler");
  handler_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);
  keys_tables_.fill(LUA_NOREF);  // refs of the state closed before, if any
  argv_tables_.fill(LUA_NOREF);
  keys_installed_ = argv_installed_ = LUA_NOREF;
  // The names of KEYS and ARGV, interned once: pushed at every EVAL.
  lua_pushliteral(L, "KEYS");
  keys_name_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pushliteral(L, "ARGV");
  argv_name_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);

  // The registry maps behind read-only proxies.
  for (const char* key : {kBackingKey, kProxyKey, kApparentMetatableKey}) {
    lua_pushlightuserdata(L, const_cast<char*>(key));
    lua_newtable(L);
    lua_rawset(L, LUA_REGISTRYINDEX);
  }

  // Lock the globals: reading an undefined one is an error
  // (luaSetErrorMetatable), and every reachable table is read-only.
  lua_pushvalue(L, LUA_GLOBALSINDEX);
  lua_pushvalue(L, -1);
  globals_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_newtable(L);
  lua_pushcfunction(L, ProtectedTableError);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  Protect(L, -1);  // globals, proxy
  // The strings' metatable is protected too (its __index is `string`).
  lua_pushstring(L, "");
  lua_getmetatable(L, -1);
  Protect(L, -1);
  lua_pop(L, 3);
  // From now on code sees the proxy as its globals (chunks, coroutines).
  lua_replace(L, LUA_GLOBALSINDEX);
  lua_pop(L, 1);
  poolable_ = true;
  taken_ = false;
}

// ---------------------------------------------------------------------------
// redis.call / redis.pcall (script_lua.c luaRedisGenericCommand, script.c
// scriptCall).
// ---------------------------------------------------------------------------

int LuaScripting::Call(lua_State* L) { return Self(L)->GenericCommand(L, true); }

// luaSetResp(): 2 or 3, for the rest of this script.
int LuaScripting::SetResp(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc != 1) {
    PushError(L, "redis.setresp() requires one argument.");
    return lua_error(L);
  }
  const int resp = static_cast<int>(lua_tonumber(L, -argc));
  if (resp != 2 && resp != 3) {
    PushError(L, "RESP version must be 2 or 3.");
    return lua_error(L);
  }
  Self(L)->resp_ = resp;
  return 0;
}

// luaRedisSetReplCommand(): where the script's next writes propagate
// (REPL_NONE 0, REPL_AOF 1, REPL_REPLICA 2, REPL_ALL 3). Redis 7.0's
// message says "two arguments" for the one it wants.
int LuaScripting::SetRepl(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc != 1) {
    PushError(L, "redis.set_repl() requires two arguments.");
    return lua_error(L);
  }
  const int flags = static_cast<int>(lua_tonumber(L, -1));
  if ((flags & ~static_cast<int>(VirtualRedis::kPropagateAll)) != 0) {
    PushError(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
    return lua_error(L);
  }
  Self(L)->server_->script_propagate_ = static_cast<unsigned>(flags);
  return 0;
}

// luaRedisAclCheckCmdPermissionsCommand(): the arguments as redis.call
// takes them; an unknown command is an error; the one user (default, no
// ACL rules: the model has no ACLs) may run every command there is.
int LuaScripting::AclCheckCmd(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc == 0) {
    PushError(L, "Please specify at least one argument for this redis lib call");
    return lua_error(L);
  }
  for (int j = 1; j <= argc; ++j) {
    if (lua_type(L, j) != LUA_TNUMBER && lua_type(L, j) != LUA_TSTRING) {
      PushError(L, "Lua redis lib command arguments must be strings or integers");
      return lua_error(L);
    }
  }
  size_t len;
  const char* name = lua_tolstring(L, 1, &len);
  if (VirtualRedis::Lookup(std::string_view(name, len)) == nullptr) {
    PushError(L, "Invalid command passed to redis.acl_check_cmd()");
    return lua_error(L);
  }
  lua_pushboolean(L, 1);
  return 1;
}
int LuaScripting::PCall(lua_State* L) { return Self(L)->GenericCommand(L, false); }

int LuaScripting::GenericCommand(lua_State* L, bool raise_error) {
  // luaArgsToRedisArgv(): strings as they are, numbers as "%.17g" (Lua's
  // own conversion would lose precision), anything else is refused.
  const int argc = lua_gettop(L);
  if (argc == 0) {
    PushError(L, "Please specify at least one argument for this redis lib call");
    return raise_error ? lua_error(L) : 1;
  }
  // Into a buffer kept between calls (its strings keep their capacity):
  // no allocation per argument. A command cannot run a script, so no
  // redis.call is ever inside another. An argument of the length the last
  // call's had there (a command name, a key, a token) is copied over it:
  // assign()'s general path was 3% of an EVAL (callgrind).
  Command& argv = call_argv_;
  size_t converted = 0;
  auto put = [&](const char* s, size_t len) {
    if (converted < argv.size()) {
      std::string& to = argv[converted];
      if (to.size() == len) {
        std::memcpy(to.data(), s, len);
      } else {
        to.assign(s, len);
      }
    } else {
      argv.emplace_back(s, len);
    }
    ++converted;
  };
  for (int j = 1; j <= argc; ++j) {
    if (lua_type(L, j) == LUA_TNUMBER) {
      char buf[64];
      const double number = lua_tonumber(L, j);
      const int n = std::snprintf(buf, sizeof(buf), "%.17g", number);
      put(buf, static_cast<size_t>(n));
    } else {
      size_t len;
      const char* s = lua_tolstring(L, j, &len);
      if (s == nullptr) break;
      put(s, len);
    }
  }
  argv.resize(converted);
  lua_pop(L, argc);
  if (static_cast<int>(argv.size()) != argc) {
    PushError(L, "Lua redis lib command arguments must be strings or integers");
    return raise_error ? lua_error(L) : 1;
  }

  // scriptVerifyWriteCommandAllow(): a read-only script (EVAL_RO, or a
  // "no-writes" shebang) may not call a write command. It is checked after
  // the command's existence, arity and script permission.
  const VirtualRedis::CommandSpec* spec = server_->LookupRecent(argv[0]);
  Reply reply;
  if (read_only_run_ && spec != nullptr && (spec->flags & VirtualRedis::kWrite) &&
      !(spec->flags & VirtualRedis::kNoScript) &&
      !((spec->arity > 0 && argc != spec->arity) || argc < -spec->arity)) {
    reply = Reply::Error("ERR Write commands are not allowed from read-only scripts.");
  } else {
    reply = server_->Dispatch(argv, /*from_script=*/true, spec);
  }
  // L: the running coroutine's stack, not L_'s.
  PushReply(L, reply, resp_, resp_ == 3 ? ShapeOf(argv) : Resp3Shape::kPlain);
  if (reply.IsError() && raise_error) return lua_error(L);
  return 1;
}

// redisProtocolToLuaType() for a RESP2 reply: integer -> number, bulk ->
// string, nil -> false, status -> {ok=}, error -> {err=} (re-parsed by
// luaPushErrorBuff, marked as already counted), array -> table.
LuaScripting::Resp3Shape LuaScripting::ShapeOf(const Command& argv) {
  if (IsKeyword(argv[0], "HGETALL")) return Resp3Shape::kMap;
  if (IsKeyword(argv[0], "CONFIG") && argv.size() > 1 && IsKeyword(argv[1], "GET")) {
    return Resp3Shape::kMap;
  }
  if (IsKeyword(argv[0], "INFO")) return Resp3Shape::kVerbatim;
  return Resp3Shape::kPlain;
}

// With redis.setresp(3), redisProtocolToLuaType() reads the RESP3 reply:
// a null is nil (not false), a map {map = {k = v}}, a verbatim string
// {verbatim_string = {format = "txt", string = s}}; the rest as in RESP2.
void LuaScripting::PushReply(lua_State* L, const Reply& r, int resp, Resp3Shape shape) {
  // A number, a string or nil takes the one slot a C function always has
  // room for (LUA_MINSTACK); a table and its elements take more.
  const bool leaf = r.type == Reply::Type::kInteger || r.type == Reply::Type::kNil ||
                    (r.type == Reply::Type::kString && shape != Resp3Shape::kVerbatim);
  if (!leaf) lua_checkstack(L, 5);
  if (resp == 3 && !r.IsError()) {
    if (r.type == Reply::Type::kNil) {
      lua_pushnil(L);
      return;
    }
    if (shape == Resp3Shape::kMap && r.type == Reply::Type::kArray) {
      lua_newtable(L);
      lua_pushstring(L, "map");
      lua_newtable(L);
      for (size_t i = 0; i + 1 < r.elements.size(); i += 2) {
        PushReply(L, r.elements[i], resp);
        PushReply(L, r.elements[i + 1], resp);
        lua_settable(L, -3);
      }
      lua_settable(L, -3);
      return;
    }
    if (shape == Resp3Shape::kVerbatim && r.type == Reply::Type::kString) {
      lua_newtable(L);
      lua_pushstring(L, "verbatim_string");
      lua_newtable(L);
      lua_pushstring(L, "format");
      lua_pushstring(L, "txt");
      lua_settable(L, -3);
      lua_pushstring(L, "string");
      lua_pushlstring(L, r.str.data(), r.str.size());
      lua_settable(L, -3);
      lua_settable(L, -3);
      return;
    }
  }
  switch (r.type) {
    case Reply::Type::kInteger:
      lua_pushnumber(L, static_cast<lua_Number>(r.integer));
      break;
    case Reply::Type::kString:
      lua_pushlstring(L, r.str.data(), r.str.size());
      break;
    case Reply::Type::kNil:
      lua_pushboolean(L, 0);
      break;
    case Reply::Type::kStatus:
      lua_newtable(L);
      lua_pushstring(L, "ok");
      lua_pushlstring(L, r.str.data(), r.str.size());
      lua_settable(L, -3);
      break;
    case Reply::Type::kError:
      PushErrorBuff(L, "-" + r.str);
      MarkIgnoreErrorStats(L);
      break;
    case Reply::Type::kArray:
      lua_newtable(L);
      for (size_t i = 0; i < r.elements.size(); ++i) {
        lua_pushnumber(L, static_cast<lua_Number>(i + 1));
        PushReply(L, r.elements[i], resp);
        lua_settable(L, -3);
      }
      break;
  }
}

// luaReplyToRedisReply(), for a RESP2 client and the script client in RESP2:
// string -> bulk, true -> 1, false -> nil, number -> integer (truncated),
// table: {err=} -> error, {ok=} -> status, {double=}, {big_number=},
// {verbatim_string=} -> bulk, {map=} -> flat array of pairs, {set=} ->
// array of members, otherwise an array up to the first nil; anything else
// (nil, functions, coroutines) -> nil. Fields are read raw.
//
// Redis recurses into nested tables; this walks them with an explicit stack
// of open containers instead (a self-referencing table nests ~8000 deep
// before Lua's stack limit, too deep for C++ frames under sanitizers). The
// Lua stack holds exactly what Redis's recursion holds, so lua_checkstack
// fails at the same depth and "reached lua stack limit" lands in the same
// place.
Reply LuaScripting::PopReply() {
  lua_State* L = L_;
  // Most scripts answer a number, a string or nil: a leaf, converted at
  // once (the walk below cost a tenth of a short EVAL).
  // Eval made room for it (lua_checkstack(L, 8) before the call).
  if (lua_type(L, -1) != LUA_TTABLE) {
    Reply leaf;
    OpenContainer::Kind unused;
    ConvertValue(&leaf, &unused);
    return leaf;
  }
  std::vector<OpenContainer> open;
  Reply result;
  bool finished = false;
  auto deliver = [&](Reply r) {
    if (open.empty()) {
      result = std::move(r);
      finished = true;
    } else {
      open.back().elements.push_back(std::move(r));
    }
  };
  // Converts the value at the top: a leaf is delivered (and popped), a
  // container stays on the Lua stack and is opened.
  auto convert = [&]() {
    Reply leaf;
    OpenContainer::Kind kind;
    if (ConvertTop(&leaf, &kind)) {
      deliver(std::move(leaf));
    } else {
      open.push_back(OpenContainer{kind, {}, 1, false});
    }
  };
  auto close = [&]() {
    Reply array = Reply::Array(std::move(open.back().elements));
    open.pop_back();
    deliver(std::move(array));
  };

  convert();
  while (!finished) {
    OpenContainer& c = open.back();  // invalidated by convert(): not used after it
    switch (c.kind) {
      case OpenContainer::kArray:  // Lua stack: table
        lua_pushnumber(L, c.next++);
        lua_rawget(L, -2);
        if (lua_isnil(L, -1)) {
          lua_pop(L, 2);
          close();
        } else {
          convert();
        }
        break;
      case OpenContainer::kMap:  // table, map, key [, value]
        if (c.value_pending) {
          c.value_pending = false;
          convert();  // the value
        } else if (!lua_next(L, -2)) {
          lua_pop(L, 2);
          close();
        } else {
          lua_pushvalue(L, -2);
          c.value_pending = true;
          convert();  // a copy of the key
        }
        break;
      case OpenContainer::kSet:  // table, set, key
        if (!lua_next(L, -2)) {
          lua_pop(L, 2);
          close();
        } else {
          lua_pop(L, 1);  // the boolean value
          lua_pushvalue(L, -1);
          convert();  // a copy of the member
        }
        break;
    }
  }
  return result;
}

bool LuaScripting::ConvertTop(Reply* leaf, OpenContainer::Kind* kind) {
  if (!lua_checkstack(L_, 4)) {
    lua_pop(L_, 1);
    *leaf = Reply::Error("ERR reached lua stack limit");
    return true;
  }
  return ConvertValue(leaf, kind);
}

bool LuaScripting::ConvertValue(Reply* leaf, OpenContainer::Kind* kind) {
  lua_State* L = L_;
  switch (lua_type(L, -1)) {
    case LUA_TSTRING: {
      size_t len;
      const char* s = lua_tolstring(L, -1, &len);
      *leaf = Reply::String(std::string(s, len));
      break;
    }
    case LUA_TBOOLEAN:
      *leaf = lua_toboolean(L, -1) ? Reply::Integer(1) : Reply::Nil();
      break;
    case LUA_TNUMBER:
      *leaf = Reply::Integer(NumberToInteger(lua_tonumber(L, -1)));
      break;
    case LUA_TTABLE: {
      auto raw_field = [&](const char* name) {
        lua_pushstring(L, name);
        lua_rawget(L, -2);
        return lua_type(L, -1);
      };
      if (raw_field("err") == LUA_TSTRING) {
        lua_pop(L, 1);
        lua_getfield(L, -1, "err");
        const std::string msg = lua_tostring(L, -1);
        lua_pop(L, 1);
        *leaf = ErrorReplyFormat("-" + msg);
        break;
      }
      lua_pop(L, 1);
      if (raw_field("ok") == LUA_TSTRING) {
        *leaf = Reply::Status(MapNewlines(lua_tostring(L, -1)));
        lua_pop(L, 1);
        break;
      }
      lua_pop(L, 1);
      if (raw_field("double") == LUA_TNUMBER) {
        *leaf = Reply::String(FormatDouble(lua_tonumber(L, -1)));
        lua_pop(L, 1);
        break;
      }
      lua_pop(L, 1);
      if (raw_field("big_number") == LUA_TSTRING) {
        size_t len;
        const char* s = lua_tolstring(L, -1, &len);
        *leaf = Reply::String(MapNewlines(std::string(s, len)));
        lua_pop(L, 1);
        break;
      }
      lua_pop(L, 1);
      if (raw_field("verbatim_string") == LUA_TTABLE) {
        lua_pushstring(L, "format");
        lua_rawget(L, -2);
        if (lua_type(L, -1) == LUA_TSTRING) {
          lua_pushstring(L, "string");
          lua_rawget(L, -3);
          if (lua_type(L, -1) == LUA_TSTRING) {
            size_t len;
            const char* s = lua_tolstring(L, -1, &len);
            *leaf = Reply::String(std::string(s, len));
            lua_pop(L, 3);
            break;
          }
          lua_pop(L, 1);
        }
        lua_pop(L, 1);
      }
      lua_pop(L, 1);
      if (raw_field("map") == LUA_TTABLE) {
        lua_pushnil(L);  // table, map, nil: ready for lua_next
        *kind = OpenContainer::kMap;
        return false;
      }
      lua_pop(L, 1);
      if (raw_field("set") == LUA_TTABLE) {
        lua_pushnil(L);
        *kind = OpenContainer::kSet;
        return false;
      }
      lua_pop(L, 1);
      *kind = OpenContainer::kArray;
      return false;
    }
    default:
      *leaf = Reply::Nil();
  }
  lua_pop(L, 1);
  return true;
}

// ---------------------------------------------------------------------------
// math.random / math.randomseed (script_lua.c redis_math_random): Lua 5.1's
// math_random with rand() replaced by redisLrand48().
// ---------------------------------------------------------------------------

int32_t LuaScripting::Lrand48() {
  constexpr uint64_t kMask = (uint64_t{1} << 48) - 1;
  rand48_ = (0x5DEECE66Dull * rand48_ + 0xB) & kMask;
  return static_cast<int32_t>(rand48_ >> 17);
}

void LuaScripting::Srand48(int32_t seed) {
  rand48_ = (uint64_t{static_cast<uint32_t>(seed)} << 16) | 0x330E;
}

int LuaScripting::MathRandom(lua_State* L) {
  LuaScripting* self = Self(L);
  // The number is drawn before the arguments are checked, as in Redis.
  const lua_Number r = static_cast<lua_Number>(self->Lrand48() % kLrand48Max) /
                       static_cast<lua_Number>(kLrand48Max);
  switch (lua_gettop(L)) {
    case 0:
      lua_pushnumber(L, r);
      break;
    case 1: {
      const int u = luaL_checkint(L, 1);
      luaL_argcheck(L, 1 <= u, 1, "interval is empty");
      lua_pushnumber(L, std::floor(r * u) + 1);
      break;
    }
    case 2: {
      const int l = luaL_checkint(L, 1);
      const int u = luaL_checkint(L, 2);
      luaL_argcheck(L, l <= u, 2, "interval is empty");
      lua_pushnumber(L, std::floor(r * (u - l + 1)) + l);
      break;
    }
    default:
      return luaL_error(L, "wrong number of arguments");
  }
  return 1;
}

int LuaScripting::MathRandomSeed(lua_State* L) {
  Self(L)->Srand48(luaL_checkint(L, 1));
  return 0;
}

}  // namespace locksim
