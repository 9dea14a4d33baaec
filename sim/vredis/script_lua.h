// Scripting as Redis 7.0 does it (eval.c, script.c, script_lua.c): EVAL,
// EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT, run by a real Lua 5.1 (the
// version Redis embeds) inside Redis's sandbox, with Redis's redis.* API and
// its conversions between Lua values and replies.
//
// - Scripts are cached by the SHA-1 of their body; EVAL caches too, so
//   EVALSHA works after it. SCRIPT FLUSH drops the cache and the whole Lua
//   state, as scriptingReset().
// - The sandbox of redis-server 7.0.15 (Debian 12): only the base, table,
//   string and math libraries; no loadfile, dofile, print, getfenv, setfenv,
//   newproxy, os, io, package or require. Every table reachable from the
//   globals is read-only (writes fail with "Attempt to modify a readonly
//   table") and reading an undefined global fails with "Script attempted to
//   access nonexistent global variable". redis-server does this with a
//   patched Lua (lua_enablereadonlytable); the Debian interpreter we link
//   has no such patch, so each protected table is replaced by an empty proxy
//   whose metatable reads through to it and refuses writes, and the few base
//   functions that bypass metatables (rawset, rawget, next, pairs,
//   getmetatable, setmetatable, table.insert, table.foreach) are replaced by
//   versions that see through proxies. A script whose code assigns no
//   global reads the globals table itself (ScanScript, below): the
//   same answers, two table lookups fewer a read. Of the libraries Redis
//   loads, cjson and bit are (Debian's lua-cjson and lua-bitop, linked
//   statically); struct and cmsgpack, which Debian does not package, are
//   not. No bytecode: EVAL's body, loadstring and load parse every chunk
//   as text.
// - The rest of the redis.* API of 7.0: setresp (RESP3 replies where the
//   modelled commands differ: nil, HGETALL and CONFIG GET maps, INFO's
//   verbatim string), set_repl (targets of each write, VirtualRedis::
//   Propagate), acl_check_cmd (no ACLs: any existing command is allowed).
// - math.random and math.randomseed use Redis's own 48-bit PRNG
//   (rand.c redisLrand48). In 7.0 it is seeded once when the server starts
//   and never reseeded per script, so successive scripts continue one
//   sequence, across SCRIPT FLUSH too.
// - Time is frozen for the whole script: every redis.call sees the node
//   clock reading of the EVAL itself, and the script's write effects reach
//   replicas together (VirtualRedis::FlushEffects).
//
// Lua is the Debian C++ build (liblua5.1-c++): a Lua error unwinds C++ frames
// as an exception instead of a longjmp over destructors. Functions called by
// Lua must therefore never catch(...): that would swallow Lua's own errors.
#ifndef LOCKSIM_SIM_VREDIS_SCRIPT_LUA_H_
#define LOCKSIM_SIM_VREDIS_SCRIPT_LUA_H_

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/core/reply.h"

struct lua_State;
struct lua_Debug;

namespace locksim {

class VirtualRedis;

// What the compiled function at the top of L's stack, and every function
// nested in it, can do, read from its bytecode (true when it cannot be
// told, e.g. for a C function):
struct ScriptCode {
  // May assign a global (a SETGLOBAL instruction). That is the only way a
  // script's own code writes its environment: every table it can reach
  // through a global is a read-only proxy, and a chunk of loadstring or
  // load has the proxied globals as its environment. A script that cannot
  // reads its globals from the globals table itself (eval.cc).
  bool may_assign_globals = true;
  // May change the KEYS or ARGV table it runs with: it reads either table
  // other than as KEYS[x] or #KEYS at once (it keeps the table in a
  // register, passes it on), or it reads a global that can hand it the
  // globals table or code of its own (_G, loadstring, load: anything but
  // the sandbox's libraries and base functions). One that cannot leaves
  // both tables as they were filled, and they serve the next run unchecked
  // (LuaScripting::Eval), unless the count hook ran: its error can come
  // between the GETGLOBAL and the read.
  bool may_change_args = true;
  // May leave something in its Lua state that a later server given the
  // same state could see (ScriptStatePool): it reads a global other than
  // KEYS, ARGV, redis and the sandbox's libraries and base functions that
  // keep no state of their own. Not: collectgarbage and gcinfo (the
  // collector and the memory, which differ in a state that ran before),
  // setmetatable (a weak table shows when the collector ran), cjson (its
  // settings stay with the state), _G, loadstring and load (anything), and
  // any global it assigns.
  bool may_leave_trace = true;
};
ScriptCode ScanScript(lua_State* L);
// luaL_loadbuffer as redis-server's Lua does it: text only, a chunk that
// begins as bytecode is a syntax error at its first byte. 0 and the
// function on the stack, or an error code and the message.
int LoadText(lua_State* L, const char* chunk, size_t size, const char* chunkname);
// The chunk lua_dump writes for the function at the top of L's stack
// (empty for a C function).
std::string DumpChunk(lua_State* L);

// Thrown by a server whose Lua state came from a ScriptStatePool when a
// script that may leave a trace is compiled into it.
struct ScriptStateRefused {};

// Lua states handed on from the servers of one run to those of the next
// run on the same thread (explore's, search's and verify's workers, compare's
// seeds, the bench's sweep). Making
// a state (scriptingInit) was four tenths of explore's time: most of its
// runs are its shrinking's, short, each with servers of its own.
//
// A server gives its state back when every script compiled in it leaves no
// trace (ScriptCode::may_leave_trace), none is running, no memory limit is
// set, and the state never grew as only a Lua stack overflow grows it (the
// depth of the next overflow would depend on it). Its cache is forgotten
// (the functions are kept: LuaScripting::compiled_), its KEYS and ARGV
// tables are let go, and the next server's first script takes it. Such
// scripts see what a new state would show: what they reach is read-only,
// the server's own (math.random) or set anew before each run (KEYS, ARGV,
// the count hook). A script that may leave a trace, compiled into a state
// from the pool, throws ScriptStateRefused: RunScenario makes the run again
// without the pool, which lends no more. One pool per thread.
class ScriptStatePool {
 public:
  ScriptStatePool();
  ~ScriptStatePool();
  ScriptStatePool(const ScriptStatePool&) = delete;
  ScriptStatePool& operator=(const ScriptStatePool&) = delete;
  size_t idle() const { return idle_.size(); }  // states waiting for a server

 private:
  friend class LuaScripting;
  // A script's function, compiled in a state that went back to the pool.
  struct Compiled {
    int function_ref;
    bool may_change_args;
  };
  // A state and LuaScripting's references into it.
  struct Entry {
    lua_State* L;
    int globals_ref, handler_ref, keys_name_ref, argv_name_ref;
    int64_t bytes;
    std::unordered_map<std::string, Compiled> compiled;  // by body
  };
  static constexpr size_t kMaxIdle = 8;  // a run's nodes
  static constexpr size_t kMaxCompiled = 16;  // a state's kept functions
  std::vector<Entry> idle_;
  // A script refused a state from the pool (ScriptStateRefused): this
  // thread's runs send one, and each would be made twice. No more lending.
  bool refused_ = false;
  // The servers' SHA-1 memo (LuaScripting::sha_memo_), shared by the
  // thread's runs: each run's servers hash the same bodies.
  std::unordered_map<std::string, std::string> sha_memo_;
};

class LuaScripting {
 public:
  explicit LuaScripting(VirtualRedis* server);
  ~LuaScripting();
  LuaScripting(const LuaScripting&) = delete;
  LuaScripting& operator=(const LuaScripting&) = delete;

  // EVAL, EVALSHA, EVAL_RO and EVALSHA_RO (eval.c evalGenericCommand):
  // argv is "EVAL script numkeys key... arg..." or "EVALSHA sha1 numkeys...".
  Reply Eval(const Command& argv, bool by_sha, bool read_only);
  // SCRIPT LOAD | EXISTS | FLUSH | KILL | HELP (eval.c scriptCommand).
  Reply Script(const Command& argv);

 private:
  // Script flags (script.h SCRIPT_FLAG_*), from the "#!lua flags=" shebang.
  enum ScriptFlags : unsigned {
    kEvalCompatMode = 1 << 0,  // no shebang: the pre-7.0 behaviour
    kNoWrites = 1 << 1,
    kAllowOom = 1 << 2,
    kAllowStale = 1 << 3,
    kNoCluster = 1 << 4,
    kAllowCrossSlotKeys = 1 << 5,
  };
  struct CachedScript {
    std::string body;
    unsigned flags = 0;
    int function_ref = 0;  // the compiled function, in the registry
    bool may_change_args = true;  // ScriptCode::may_change_args
  };

  // scriptingInit(): a fresh Lua state with Redis's libraries, API and
  // sandbox, made by the first CreateFunction (or one from the server's
  // ScriptStatePool). Close() is lua_close(), or gives the state back.
  void Init();
  void Close();
  bool TakePooled();
  bool GivePooled();
  // luaCreateFunction(): compiles `body` unless cached and caches it under
  // its SHA-1 (written to *sha). On failure returns false and the error.
  bool CreateFunction(const std::string& body, std::string* sha, Reply* error);
  // Whether a KEYS or ARGV table a script ran with can serve the next run.
  bool Reusable(int ref, size_t count);

  // The scripting of a Lua state (or of one of its coroutines).
  static LuaScripting* Self(lua_State* L);
  // The redis.* functions (script_lua.c); each finds its scripting by Self.
  static int Call(lua_State* L);
  static int PCall(lua_State* L);
  // redis.setresp(), redis.set_repl(), redis.acl_check_cmd().
  static int SetResp(lua_State* L);
  static int SetRepl(lua_State* L);
  static int AclCheckCmd(lua_State* L);
  static int MathRandom(lua_State* L);
  static int MathRandomSeed(lua_State* L);
  int GenericCommand(lua_State* L, bool raise_error);

  // Reply -> Lua value on L's stack (redisProtocolToLuaType), and the Lua
  // value at the top of L_ -> Reply, popping it (luaReplyToRedisReply).
  // How a reply reads in RESP3 (redis.setresp(3)) where it differs from
  // RESP2: HGETALL and CONFIG GET answer maps, INFO a verbatim string.
  enum class Resp3Shape { kPlain, kMap, kVerbatim };
  static Resp3Shape ShapeOf(const Command& argv);
  static void PushReply(lua_State* L, const Reply& reply, int resp = 2,
                        Resp3Shape shape = Resp3Shape::kPlain);
  Reply PopReply();
  // A table being converted by PopReply, with the elements so far.
  struct OpenContainer {
    enum Kind { kArray, kMap, kSet } kind;
    std::vector<Reply> elements;
    int next;            // kArray: the next index to read
    bool value_pending;  // kMap: the key is done, the value is next
  };
  // Converts the value at the top of L_ if it is a leaf (into *leaf, popped,
  // returns true); a container is left open (*kind, returns false).
  bool ConvertTop(Reply* leaf, OpenContainer::Kind* kind);
  // ConvertTop once the stack has room for 4 more slots.
  bool ConvertValue(Reply* leaf, OpenContainer::Kind* kind);

  // rand.c: redisLrand48() / redisSrand48(), the 48-bit linear congruential
  // generator of drand48 with its standard multiplier and start state.
  int32_t Lrand48();
  void Srand48(int32_t seed);

  VirtualRedis* server_;
  lua_State* L_ = nullptr;  // null until a script is compiled, and after SCRIPT FLUSH
  // Whether L_ may go back to a ScriptStatePool: it was made whole, and no
  // script compiled in it may leave a trace.
  bool poolable_ = false;
  bool taken_ = false;  // L_ came from the pool
  // A state from the pool: the functions of the scripts it compiled for
  // earlier servers, by body, not in this server's cache. A script's
  // function has no upvalues and the globals for its environment (a script
  // that leaves no trace assigns none), so it is the function compiling
  // the body again would make; CreateFunction takes it instead.
  std::unordered_map<std::string, ScriptStatePool::Compiled> compiled_;
  int globals_ref_ = 0;  // the real globals table, behind its read-only proxy
  int handler_ref_ = 0;  // __redis__err__handler
  std::unordered_map<std::string, CachedScript> scripts_;  // by lower-case sha1
  using ScriptEntry = std::unordered_map<std::string, CachedScript>::value_type;
  // The script of the last EVAL (nodes of scripts_ do not move), or null.
  const ScriptEntry* last_eval_ = nullptr;
  int keys_name_ref_ = 0;  // the strings "KEYS" and "ARGV", in the registry
  int argv_name_ref_ = 0;
  Command call_argv_;      // redis.call's arguments, reused
  // KEYS and ARGV tables kept for reuse, by element count (registry refs,
  // or LUA_NOREF); see Eval and Reusable.
  using ArgTables = std::array<int, 8>;
  ArgTables keys_tables_{};
  ArgTables argv_tables_{};
  // The tables the globals KEYS and ARGV hold now: refs of the above, or
  // LUA_NOREF (none of them; Init sets both so).
  int keys_installed_ = 0;
  int argv_installed_ = 0;
  // SHA-1 of recent script bodies: EVAL sends the whole body every time,
  // and hashing it again cost a third of an EVAL (callgrind). A pure
  // memo of Sha1Hex, so it survives SCRIPT FLUSH; bounded by kShaMemoMax.
  static constexpr size_t kShaMemoMax = 1024;
  std::unordered_map<std::string, std::string> sha_memo_;
  bool read_only_run_ = false;  // the running script may not write
  int resp_ = 2;                // redis.setresp(): how redis.call replies read
  // A script that runs long (luaMaskCountHook): instructions counted in
  // steps of kHookEvery; what stopped it, if anything.
  static constexpr int kHookEvery = 100000;
  static void CountHook(lua_State* L, ::lua_Debug* ar);
  // The Lua state's allocator (ud: this): realloc, counting the bytes held,
  // refusing to grow past VirtualRedis::SetScriptMemoryLimit.
  static void* Alloc(void* ud, void* ptr, size_t old_size, size_t new_size);
  // 16 384 of Lua 5.1's 40-byte CallInfo (lstate.h; amd64): see Alloc.
  static constexpr size_t kLargestHandedOn = 16384 * 40;
  int64_t lua_bytes_ = 0;
  int64_t script_instructions_ = 0;
  int64_t script_dirty_at_start_ = 0;
  enum class Stop { kNone, kKilled, kRanAway } stop_ = Stop::kNone;
  bool running_ = false;

 public:
  // While a script is busy (`locksim serve`): SCRIPT KILL from another
  // client. OK and the script stops with an error at its next count hook,
  // or UNKILLABLE once it has written, as Redis 7.0 answers.
  // `force`: even one that wrote (the server is stopping).
  Reply KillRunningScript(bool force = false);
  bool running() const { return running_; }

 private:
  uint64_t rand48_;             // survives SCRIPT FLUSH, as in Redis
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_VREDIS_SCRIPT_LUA_H_
