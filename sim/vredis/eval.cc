// EVAL, EVALSHA, their _RO forms and SCRIPT: the script cache, the
// shebang, the run of a script (as Redis 7.0's eval.c; the Lua side, the
// sandbox and the redis.* API are in script_lua.cc, as its script_lua.c).
#include "sim/vredis/script_lua.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/vredis/server.h"
#include "sim/vredis/script_errors.h"
#include "sim/vredis/sha1.h"

namespace locksim {


namespace {

// ---------------------------------------------------------------------------
// The shebang line (eval.c evalExtractShebangFlags, sds.c sdssplitargs).
// ---------------------------------------------------------------------------

bool IsHexDigit(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  return std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
}

// sdssplitargs(): splits like a shell, with "double quotes" (and \n \r \t
// \b \a \xHH escapes) and 'single quotes'. Returns false on unbalanced
// quotes or a closing quote not followed by a space.
bool SplitArgs(const std::string& line, std::vector<std::string>* out) {
  const char* p = line.c_str();
  for (;;) {
    while (*p && std::isspace(static_cast<unsigned char>(*p))) ++p;
    if (!*p) return true;
    bool in_double = false, in_single = false, done = false;
    std::string current;
    while (!done) {
      if (in_double) {
        if (p[0] == '\\' && p[1] == 'x' && IsHexDigit(p[2]) && IsHexDigit(p[3])) {
          current.push_back(static_cast<char>(HexValue(p[2]) * 16 + HexValue(p[3])));
          p += 3;
        } else if (p[0] == '\\' && p[1]) {
          ++p;
          switch (*p) {
            case 'n': current.push_back('\n'); break;
            case 'r': current.push_back('\r'); break;
            case 't': current.push_back('\t'); break;
            case 'b': current.push_back('\b'); break;
            case 'a': current.push_back('\a'); break;
            default: current.push_back(*p); break;
          }
        } else if (*p == '"') {
          if (p[1] && !std::isspace(static_cast<unsigned char>(p[1]))) return false;
          done = true;
        } else if (!*p) {
          return false;
        } else {
          current.push_back(*p);
        }
      } else if (in_single) {
        if (p[0] == '\\' && p[1] == '\'') {
          ++p;
          current.push_back('\'');
        } else if (*p == '\'') {
          if (p[1] && !std::isspace(static_cast<unsigned char>(p[1]))) return false;
          done = true;
        } else if (!*p) {
          return false;
        } else {
          current.push_back(*p);
        }
      } else {
        switch (*p) {
          case ' ': case '\n': case '\r': case '\t': case '\0': done = true; break;
          case '"': in_double = true; break;
          case '\'': in_single = true; break;
          default: current.push_back(*p); break;
        }
      }
      if (*p) ++p;
    }
    out->push_back(std::move(current));
  }
}


// ScanScript: the chunk lua_dump writes, read in Lua 5.1's ldump.c layout
// with the sizes of Debian's amd64 build (which the chunk's header
// states), every function's instructions checked against its constants
// (lopcodes.h: an instruction is op:6 A:8 C:9 B:9 bits, or op:6 A:8
// Bx:18). A chunk not laid out as expected, or not read to its last byte,
// may do anything.
class ScriptScanner {
 public:
  explicit ScriptScanner(lua_State* L) : chunk_(DumpChunk(L)) {}

  ScriptCode Scan() {
    static constexpr char kHeader[] = {'\x1b', 'L', 'u', 'a', 0x51, 0, 1, 4, 8, 4, 8, 0};
    if (chunk_.size() < sizeof(kHeader) ||
        chunk_.compare(0, sizeof(kHeader), kHeader, sizeof(kHeader)) != 0) {
      return {};
    }
    at_ = sizeof(kHeader);
    Function(0);
    if (!ok_ || at_ != chunk_.size()) return {};
    return code_;
  }

 private:
  static constexpr uint32_t kGetGlobal = 5;  // lopcodes.h OP_GETGLOBAL
  static constexpr uint32_t kGetTable = 6;   // OP_GETTABLE
  static constexpr uint32_t kSetGlobal = 7;  // OP_SETGLOBAL
  static constexpr uint32_t kLen = 20;       // OP_LEN
  static constexpr int kMaxDepth = 200;      // LUAI_MAXCCALLS: the parser's own limit

  // Reads one function (DumpFunction) and the functions nested in it.
  void Function(int depth) {
    if (depth > kMaxDepth) ok_ = false;
    String();                                 // source
    Skip(4 + 4 + 4);                          // lines; upvalues, parameters, vararg, stack
    std::vector<uint32_t> code(Count());
    for (uint32_t& i : code) i = static_cast<uint32_t>(Int(4));
    std::vector<std::string_view> strings(Count());  // the constants; "" if not a string
    for (size_t i = 0; ok_ && i < strings.size(); ++i) {
      switch (Int(1)) {
        case LUA_TNIL: break;
        case LUA_TBOOLEAN: Skip(1); break;
        case LUA_TNUMBER: Skip(8); break;
        case LUA_TSTRING: strings[i] = String(); break;
        default: ok_ = false;
      }
    }
    if (ok_) Check(code, strings);
    for (size_t i = 0, n = Count(); ok_ && i < n; ++i) Function(depth + 1);
    Skip(4 * Count());                                    // line numbers
    for (size_t i = 0, n = Count(); ok_ && i < n; ++i) {  // locals
      String();
      Skip(4 + 4);
    }
    for (size_t i = 0, n = Count(); ok_ && i < n; ++i) String();  // upvalue names
  }

  // What one function's instructions do to the globals and to KEYS and
  // ARGV: see ScriptCode.
  void Check(const std::vector<uint32_t>& code, const std::vector<std::string_view>& strings) {
    auto op = [](uint32_t i) { return i & 0x3f; };
    auto a = [](uint32_t i) { return (i >> 6) & 0xff; };
    auto b = [](uint32_t i) { return i >> 23; };
    for (size_t pc = 0; pc < code.size(); ++pc) {
      const uint32_t i = code[pc];
      if (op(i) == kSetGlobal) code_.may_assign_globals = code_.may_leave_trace = true;
      if (op(i) != kGetGlobal) continue;
      const size_t k = i >> 14;  // Bx
      const std::string_view name = k < strings.size() ? strings[k] : std::string_view();
      if (!LeavesNoTrace(name)) code_.may_leave_trace = true;
      if (name == "KEYS" || name == "ARGV") {
        // Read at once, the table gone from its register: KEYS[x] or #KEYS.
        const uint32_t next = pc + 1 < code.size() ? code[pc + 1] : 0;
        const bool read = (op(next) == kGetTable || op(next) == kLen) && a(next) == a(i) &&
                          b(next) == a(i);
        if (!read) code_.may_change_args = true;
      } else if (!SharesNoArgs(name)) {
        code_.may_change_args = true;
      }
    }
  }

  // The globals of the sandbox (those of redis-server 7.0.15 but cmsgpack
  // and struct, which are not loaded) that cannot hand a script the globals
  // table or code of its own: not _G, loadstring, load or the error
  // handler, which can.
  static bool SharesNoArgs(std::string_view name) {
    static constexpr std::string_view kNames[] = {
        "_VERSION", "assert", "bit", "cjson", "collectgarbage", "coroutine", "error", "gcinfo",
        "getmetatable", "ipairs", "math", "next", "pairs", "pcall", "rawequal", "rawget",
        "rawset", "redis", "select", "setmetatable", "string", "table", "tonumber", "tostring",
        "type", "unpack", "xpcall"};
    for (std::string_view n : kNames) {
      if (n == name) return true;
    }
    return false;
  }

  // The globals through which a script reaches nothing of its Lua state
  // that a state that ran other scripts would show differently (see
  // ScriptCode::may_leave_trace): KEYS, ARGV and those above, but the
  // collector (collectgarbage, gcinfo), weak tables (setmetatable) and
  // cjson's settings.
  static bool LeavesNoTrace(std::string_view name) {
    if (name == "KEYS" || name == "ARGV") return true;
    return SharesNoArgs(name) && name != "collectgarbage" && name != "gcinfo" &&
           name != "setmetatable" && name != "cjson";
  }

  void Skip(size_t n) {
    if (chunk_.size() - at_ < n) ok_ = false;
    at_ = ok_ ? at_ + n : chunk_.size();
  }
  // A little-endian unsigned of `bytes` bytes (1, 4 or 8).
  uint64_t Int(size_t bytes) {
    uint64_t v = 0;
    const size_t from = at_;
    Skip(bytes);
    if (ok_) std::memcpy(&v, chunk_.data() + from, bytes);
    return v;
  }
  size_t Count() {
    const uint64_t n = Int(4);
    if (n > chunk_.size()) ok_ = false;  // more elements than bytes: not a chunk
    return ok_ ? static_cast<size_t>(n) : 0;
  }
  // A string (DumpString: its size with the terminating NUL, then its
  // bytes), without the NUL.
  std::string_view String() {
    const uint64_t n = Int(8);
    if (n > chunk_.size()) ok_ = false;
    const size_t from = at_;
    Skip(ok_ ? static_cast<size_t>(n) : 0);
    if (!ok_ || n == 0) return {};
    return std::string_view(chunk_).substr(from, static_cast<size_t>(n) - 1);
  }

  std::string chunk_;
  size_t at_ = 0;
  bool ok_ = true;
  ScriptCode code_{false, false, false};
};

}  // namespace

ScriptCode ScanScript(lua_State* L) { return ScriptScanner(L).Scan(); }

// ---------------------------------------------------------------------------
// Compiling and caching (eval.c luaCreateFunction).
// ---------------------------------------------------------------------------

bool LuaScripting::CreateFunction(const std::string& body, std::string* sha, Reply* error) {
  // With a pool, its memo: the bodies an earlier run's servers hashed.
  std::unordered_map<std::string, std::string>& shas =
      server_->script_pool_ != nullptr ? server_->script_pool_->sha_memo_ : sha_memo_;
  auto memo = shas.find(body);
  if (memo != shas.end()) {
    *sha = memo->second;
  } else {
    *sha = Sha1Hex(body);
    if (shas.size() >= kShaMemoMax) shas.clear();
    shas.emplace(body, *sha);
  }
  if (scripts_.count(*sha) != 0) return true;

  // evalExtractShebangFlags(): "#!lua [flags=a,b]" on the first line.
  unsigned flags = kEvalCompatMode;
  size_t shebang_len = 0;
  if (body.compare(0, 2, "#!") == 0) {
    const size_t end = CString(body).find('\n');
    if (end == std::string::npos) {
      *error = Reply::Error("ERR Invalid script shebang");
      return false;
    }
    shebang_len = end;
    std::vector<std::string> parts;
    if (!SplitArgs(body.substr(0, end), &parts) || parts.empty()) {
      *error = Reply::Error("ERR Invalid engine in script shebang");
      return false;
    }
    if (CString(parts[0]) != "#!lua") {
      *error = ErrorReplySds("Unexpected engine in script shebang: " + CString(parts[0]));
      return false;
    }
    flags &= ~kEvalCompatMode;
    static constexpr std::pair<std::string_view, unsigned> kFlagNames[] = {
        {"no-writes", kNoWrites},   {"allow-oom", kAllowOom},
        {"allow-stale", kAllowStale}, {"no-cluster", kNoCluster},
        {"allow-cross-slot-keys", kAllowCrossSlotKeys}};
    for (size_t j = 1; j < parts.size(); ++j) {
      if (parts[j].compare(0, 6, "flags=") != 0) {
        *error = ErrorReplySds("Unknown lua shebang option: " + CString(parts[j]));
        return false;
      }
      // sdssplitlen(",") of the rest: an empty rest has no elements.
      const std::string list = parts[j].substr(6);
      for (size_t start = 0; !list.empty() && start <= list.size();) {
        size_t comma = list.find(',', start);
        if (comma == std::string::npos) comma = list.size();
        const std::string name = CString(list.substr(start, comma - start));
        unsigned flag = 0;
        for (const auto& [flag_name, value] : kFlagNames) {
          if (name == flag_name) flag = value;
        }
        if (flag == 0) {
          *error = ErrorReplySds("Unexpected flag in script shebang: " + name);
          return false;
        }
        flags |= flag;
        start = comma + 1;
      }
    }
  }

  // The shebang line is skipped but its line feed kept, so that line
  // numbers in errors are the user's. Text only, as every chunk. Every
  // script runs from the cache, so the state made here serves them all.
  if (L_ == nullptr) Init();
  if (auto kept = compiled_.find(body); kept != compiled_.end()) {
    // Compiled for an earlier server of this state from the pool.
    const ScriptStatePool::Compiled c = kept->second;
    compiled_.erase(kept);
    lua_rawgeti(L_, LUA_REGISTRYINDEX, c.function_ref);
    lua_setfield(L_, LUA_REGISTRYINDEX, ("f_" + *sha).c_str());
    scripts_[*sha] = CachedScript{body, flags, c.function_ref, c.may_change_args};
    return true;
  }
  if (LoadText(L_, body.data() + shebang_len, body.size() - shebang_len, "@user_script") != 0) {
    *error = ErrorReplyFormat(std::string("Error compiling script (new function): ") +
                              lua_tostring(L_, -1));
    lua_pop(L_, 1);
    return false;
  }
  // A script that assigns no global reads its globals from the globals
  // table itself rather than through its read-only proxy, which cost two
  // more table lookups a read (the proxy's miss and its metatable's
  // __index): 6% of a compare-and-delete EVAL (callgrind). Nothing else
  // differs: a missing global still raises Redis's error from the globals'
  // metatable, every table a global holds is still a proxy, and no script
  // can see its environment (getfenv and debug are gone).
  const ScriptCode code = ScanScript(L_);
  if (code.may_leave_trace) {
    // It could tell a state that ran other servers' scripts from a new one.
    if (taken_) {
      lua_pop(L_, 1);
      server_->script_pool_->refused_ = true;
      throw ScriptStateRefused{};
    }
    poolable_ = false;
  }
  if (!code.may_assign_globals) {
    lua_rawgeti(L_, LUA_REGISTRYINDEX, globals_ref_);
    lua_setfenv(L_, -2);
  }
  lua_pushvalue(L_, -1);
  const int ref = luaL_ref(L_, LUA_REGISTRYINDEX);
  lua_setfield(L_, LUA_REGISTRYINDEX, ("f_" + *sha).c_str());
  scripts_[*sha] = CachedScript{body, flags, ref, code.may_change_args};
  return true;
}

// ---------------------------------------------------------------------------
// EVAL and friends (eval.c evalGenericCommand, script.c scriptPrepareForRun,
// script_lua.c luaCallFunction).
// ---------------------------------------------------------------------------

Reply LuaScripting::Eval(const Command& argv, bool by_sha, bool read_only) {
  // evalShaCommand(): a sha1 of the wrong length cannot match, whatever
  // the other arguments.
  if (by_sha && argv[1].size() != 40) return NoScriptError();
  int64_t numkeys;
  if (!StringToInt64(argv[2], &numkeys)) return Reply::Error(std::string(kNotIntegerErr));
  const int64_t available = static_cast<int64_t>(argv.size()) - 3;
  if (numkeys > available) {
    return Reply::Error("ERR Number of keys can't be greater than number of args");
  }
  if (numkeys < 0) return Reply::Error("ERR Number of keys can't be negative");

  // The script, and its SHA-1 (the key it is cached under). A client
  // sends the same body again and again: the last EVAL's script is
  // recognised by its body without hashing it (a hash lookup of the body
  // and two of its SHA-1 were 3% of an EVAL).
  const ScriptEntry* entry = nullptr;
  if (by_sha) {
    auto it = scripts_.find(ToLower(argv[1]));
    if (it == scripts_.end()) return NoScriptError();
    entry = &*it;
  } else if (last_eval_ != nullptr && last_eval_->second.body == argv[1]) {
    entry = last_eval_;
  } else {
    std::string sha;
    Reply error;
    if (!CreateFunction(argv[1], &sha, &error)) return error;
    entry = last_eval_ = &*scripts_.find(sha);
  }
  const std::string& sha = entry->first;
  const CachedScript& script = entry->second;
  const unsigned flags = script.flags;

  // scriptPrepareForRun(): a script declaring its flags (a shebang) may
  // write unless it says no-writes; such a script is refused up front
  // where writes are impossible.
  if (!(flags & kEvalCompatMode) && !(flags & kNoWrites)) {
    if (server_->replica_ && !server_->loading_) {
      return Reply::Error("READONLY Can not run script with write flag on readonly replica");
    }
    if (read_only) {
      return Reply::Error("ERR Can not execute a script with write flag using *_ro command.");
    }
  }
  read_only_run_ = read_only || (!(flags & kEvalCompatMode) && (flags & kNoWrites));

  lua_State* L = L_;
  lua_checkstack(L, 8);
  lua_rawgeti(L, LUA_REGISTRYINDEX, handler_ref_);
  lua_rawgeti(L, LUA_REGISTRYINDEX, script.function_ref);
  // KEYS and ARGV are globals of the run (luaCreateArray, set behind the
  // read-only protection). Redis creates both tables at every run; here a
  // table of each size is kept (in the registry) and refilled, as long as
  // the script left it as a new one would be: no metatable, and exactly
  // the keys 1..n (see Reusable). Two tables per EVAL and the collection
  // of them were an eighth of an EVAL (callgrind). The globals keep the
  // tables of the last run: a run with the same ones (the same numbers of
  // keys and arguments, left reusable) does not set them again.
  auto set_array = [&](ArgTables* cache, int* installed, int name_ref, size_t from,
                       size_t count) -> int {
    int ref = count < cache->size() ? (*cache)[count] : LUA_NOREF;
    if (ref != LUA_NOREF) {
      lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    } else {
      lua_createtable(L, static_cast<int>(count), 0);
      if (count < cache->size()) {
        lua_pushvalue(L, -1);
        ref = (*cache)[count] = luaL_ref(L, LUA_REGISTRYINDEX);
      }
    }
    for (size_t i = 0; i < count; ++i) {
      lua_pushlstring(L, argv[from + i].data(), argv[from + i].size());
      lua_rawseti(L, -2, static_cast<int>(i + 1));
    }
    if (ref == LUA_NOREF || ref != *installed) {
      lua_rawgeti(L, LUA_REGISTRYINDEX, globals_ref_);
      lua_rawgeti(L, LUA_REGISTRYINDEX, name_ref);
      lua_pushvalue(L, -3);
      lua_rawset(L, -3);
      lua_pop(L, 1);  // the globals
      *installed = ref;
    }
    lua_pop(L, 1);  // the table
    return ref;
  };
  const size_t key_count = static_cast<size_t>(numkeys);
  const size_t arg_count = static_cast<size_t>(available - numkeys);
  const int keys_ref = set_array(&keys_tables_, &keys_installed_, keys_name_ref_, 3, key_count);
  const int args_ref =
      set_array(&argv_tables_, &argv_installed_, argv_name_ref_, 3 + key_count, arg_count);

  // Time is frozen for the whole script (server_->now_ms_ does not move),
  // and its write effects reach replicas together (FlushEffects).
  const bool outer_script = server_->in_script_;
  server_->in_script_ = true;
  server_->script_propagate_ = VirtualRedis::kPropagateAll;  // scriptResetRun
  resp_ = 2;
  ++server_->effects_depth_;
  running_ = true;
  script_instructions_ = 0;
  script_dirty_at_start_ = server_->dirty_;
  stop_ = Stop::kNone;
  // Under a memory limit, garbage of earlier scripts must not count against
  // this one (Lua 5.1 does not collect when an allocation fails).
  const int64_t memory_limit = server_->script_memory_limit_;
  if (memory_limit > 0 && lua_bytes_ > memory_limit / 2) lua_gc(L, LUA_GCCOLLECT, 0);
  // The count hook is set anew for each run, as luaCallFunction does: it
  // first fires after kHookEvery instructions of this script. (Redis also
  // removes it after the run; here no Lua code runs between scripts, and
  // the hook ignores what runs outside one.)
  lua_sethook(L, CountHook, LUA_MASKCOUNT, kHookEvery);
  const int status = lua_pcall(L, 0, 1, -2);
  running_ = false;
  if (stop_ == Stop::kRanAway) {
    server_->runaway_script_ =
        "script " + sha + " (" + script.body.substr(0, script.body.find('\n')).substr(0, 80) + ")";
  }
  --server_->effects_depth_;
  server_->in_script_ = outer_script;
  server_->FlushEffects();
  read_only_run_ = false;
  // A script whose code cannot change either table (ScanScript) left both
  // as they were filled: no check, unless the count hook ran. Its error
  // (SCRIPT KILL, the instruction limit) can land between a GETGLOBAL of
  // KEYS and the read after it, leaving the table in a local a closure
  // holds, for a pcall to hand back.
  const bool check = script.may_change_args || script_instructions_ > 0;
  if (check && keys_ref != LUA_NOREF && !Reusable(keys_ref, key_count)) {
    luaL_unref(L, LUA_REGISTRYINDEX, keys_ref);  // its number may be given to another table
    keys_tables_[key_count] = LUA_NOREF;
    keys_installed_ = LUA_NOREF;
  }
  if (check && args_ref != LUA_NOREF && !Reusable(args_ref, arg_count)) {
    luaL_unref(L, LUA_REGISTRYINDEX, args_ref);
    argv_tables_[arg_count] = LUA_NOREF;
    argv_installed_ = LUA_NOREF;
  }

  Reply reply;
  if (status == 0) {
    reply = PopReply();
  } else if (!lua_istable(L, -1)) {
    // Only when the error handler itself failed for good.
    const char* msg = lua_isstring(L, -1) ? lua_tostring(L, -1) : "execution failure";
    reply = ErrorReplyFormat("Error running script " + sha + ", " +
                             std::string(msg).substr(0, 100));
    lua_pop(L, 1);
  } else {
    // luaExtractErrorInformation(): {err=, source=, line=} from the handler.
    auto field = [&](const char* name, std::string* out) {
      lua_getfield(L, -1, name);
      const bool present = lua_isstring(L, -1);
      if (present) *out = lua_tostring(L, -1);
      lua_pop(L, 1);
      return present;
    };
    std::string msg, source, line;
    if (!field("err", &msg)) {
      // redis-server 7.0.15 crashes here (sdscatfmt of a NULL message),
      // e.g. on error({}); an error reply is the closest sane outcome.
      msg = "ERR the script raised an error object without an 'err' field";
    }
    std::string text = "-" + msg;
    if (field("source", &source) && field("line", &line)) {
      text += " script: " + sha + ", on " + source + ":" + line + ".";
    }
    reply = ErrorReplySds(text);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);  // the error handler
  return reply;
}

// Whether the KEYS or ARGV table `ref` of `count` elements is as a new one
// would be after it is filled again: no metatable, and no keys but 1..count
// (the values are overwritten). A script cannot keep a reference to it past
// its run (every table it could store it in is read-only), so no one sees
// it between runs.
bool LuaScripting::Reusable(int ref, size_t count) {
  lua_State* L = L_;
  lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
  if (lua_getmetatable(L, -1)) {
    lua_pop(L, 2);
    return false;
  }
  size_t entries = 0;
  bool ok = true;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);  // the value
    const lua_Number k = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : 0;
    if (!(k >= 1 && k <= static_cast<lua_Number>(count) && k == std::floor(k))) {
      lua_pop(L, 1);  // the key
      ok = false;
      break;
    }
    ++entries;
  }
  lua_pop(L, 1);  // the table
  return ok && entries == count;
}

// ---------------------------------------------------------------------------
// SCRIPT (eval.c scriptCommand). Redis 7.0 resolves SCRIPT's subcommands in
// processCommand(), with their own arity; the command table here has no
// subcommands, so that resolution is done here with the same wording.
// ---------------------------------------------------------------------------

Reply LuaScripting::Script(const Command& argv) {
  static constexpr std::pair<std::string_view, int> kSubcommands[] = {
      {"debug", 3}, {"exists", -3}, {"flush", -2}, {"help", 2}, {"kill", 2}, {"load", 3}};
  const std::string sub = ToLower(argv[1]);
  int arity = 0;
  for (const auto& [name, a] : kSubcommands) {
    if (sub == name) arity = a;
  }
  if (arity == 0) {
    return ErrorReplyFormat("unknown subcommand '" + CString(argv[1]).substr(0, 128) +
                            "'. Try " + ToUpper(argv[0]) + " HELP.");
  }
  const int argc = static_cast<int>(argv.size());
  if ((arity > 0 && argc != arity) || argc < -arity) {
    return Reply::Error("ERR wrong number of arguments for 'script|" + sub + "' command");
  }

  if (sub == "help") {
    std::vector<Reply> lines;
    for (const char* line : {
             "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
             "DEBUG (YES|SYNC|NO)",
             "    Set the debug mode for subsequent scripts executed.",
             "EXISTS <sha1> [<sha1> ...]",
             "    Return information about the existence of the scripts in the script cache.",
             "FLUSH [ASYNC|SYNC]",
             "    Flush the Lua scripts cache. Very dangerous on replicas.",
             "    When called without the optional mode argument, the behavior is determined by"
             " the",
             "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
             "    * ASYNC: Asynchronously flush the scripts cache.",
             "    * SYNC: Synchronously flush the scripts cache.",
             "KILL",
             "    Kill the currently executing Lua script.",
             "LOAD <script>",
             "    Load a script into the scripts cache without executing it.",
             "HELP",
             "    Prints this help."}) {
      lines.push_back(Reply::Status(line));
    }
    return Reply::Array(std::move(lines));
  }
  if (sub == "flush") {
    if (argc == 3 && !IsKeyword(argv[2], "SYNC") && !IsKeyword(argv[2], "ASYNC")) {
      return Reply::Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
    }
    if (argc > 3) return Reply::Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
    // scriptingReset(): a new Lua state and an empty cache. The PRNG is a
    // process global in Redis and keeps its state. The new state is made
    // when the next script is compiled, as at the start.
    Close();  // before the cache is emptied: it forgets the state's scripts
    scripts_.clear();
    last_eval_ = nullptr;
    return Reply::Ok();
  }
  if (sub == "exists") {
    // The cache's dict compares sha1s case-insensitively.
    std::vector<Reply> found;
    for (size_t j = 2; j < argv.size(); ++j) {
      found.push_back(Reply::Integer(scripts_.count(ToLower(argv[j])) != 0 ? 1 : 0));
    }
    return Reply::Array(std::move(found));
  }
  if (sub == "load") {
    std::string sha;
    Reply error;
    if (!CreateFunction(argv[2], &sha, &error)) return error;
    return Reply::String(sha);
  }
  if (sub == "kill") {
    // A command runs only when no script does: a busy script is killed
    // from its count hook (locksim serve, KillRunningScript).
    return Reply::Error("NOTBUSY No scripts in execution right now.");
  }
  // SCRIPT DEBUG starts Redis's interactive Lua debugger: not modelled.
  return Reply::Error("ERR SCRIPT DEBUG is not supported by the virtual Redis");
}

// luaMaskCountHook(): every kHookEvery instructions of a running script.
void LuaScripting::CountHook(lua_State* L, lua_Debug*) {
  LuaScripting* self = Self(L);
  if (!self->running_) return;
  self->script_instructions_ += kHookEvery;
  VirtualRedis* server = self->server_;
  const int64_t limit = server->script_instruction_limit_;
  if (limit > 0 && self->script_instructions_ >= limit) {
    self->stop_ = Stop::kRanAway;
    lua_pushfstring(L,
                    "locksim: the script ran %d million Lua instructions without ending "
                    "(redis-server would stay busy until SCRIPT KILL; a simulation must end)",
                    static_cast<int>(limit / 1000000));
    lua_error(L);
  }
  if (server->busy_handler_) server->busy_handler_(self->script_instructions_);
  if (self->stop_ == Stop::kKilled) {
    lua_pushstring(L, "Script killed by user with SCRIPT KILL...");
    lua_error(L);
  }
}

Reply LuaScripting::KillRunningScript(bool force) {
  if (!running_) return Reply::Error("NOTBUSY No scripts in execution right now.");
  if (!force && server_->dirty_ != script_dirty_at_start_) {
    return Reply::Error(
        "UNKILLABLE Sorry the script already executed write commands against the dataset. You "
        "can either wait the script termination or kill the server in a hard way using the "
        "SHUTDOWN NOSAVE command.");
  }
  stop_ = Stop::kKilled;
  return Reply::Ok();
}

// ---------------------------------------------------------------------------
// The command handlers.
// ---------------------------------------------------------------------------

Reply VirtualRedis::KillRunningScript(bool force) { return lua_->KillRunningScript(force); }
bool VirtualRedis::ScriptRunning() const { return lua_->running(); }

Reply VirtualRedis::EvalCommand(const Command& argv) { return lua_->Eval(argv, false, false); }
Reply VirtualRedis::EvalShaCommand(const Command& argv) { return lua_->Eval(argv, true, false); }
Reply VirtualRedis::EvalRoCommand(const Command& argv) { return lua_->Eval(argv, false, true); }
Reply VirtualRedis::EvalShaRoCommand(const Command& argv) { return lua_->Eval(argv, true, true); }
Reply VirtualRedis::ScriptCommand(const Command& argv) { return lua_->Script(argv); }

}  // namespace locksim

