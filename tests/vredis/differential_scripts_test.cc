// Scripting in the virtual Redis against a real redis-server 7.0, script for
// script: EVAL / EVALSHA / EVAL_RO / SCRIPT, the redis.* API, conversions
// both ways, error texts (with their " script: <sha1>, on
// @user_script:<line>." suffix), the sandbox, sha1hex and math.random.
//
// Each command goes to both servers at the same frozen time and the replies
// must be identical. redis.call is used with GET, SET, DEL, PTTL and PING
// only. Redis's cjson and bit libraries are loaded (Debian's); struct and
// cmsgpack, which Debian does not package, are not modelled.
#include <gtest/gtest.h>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/vredis/script_lua.h"
#include "sim/vredis/server.h"
#include "tests/testing/redis_oracle.h"

namespace locksim {
namespace {

Command Eval(std::string body, std::vector<std::string> keys = {},
             std::vector<std::string> args = {}) {
  Command cmd = {"EVAL", std::move(body), std::to_string(keys.size())};
  cmd.insert(cmd.end(), keys.begin(), keys.end());
  cmd.insert(cmd.end(), args.begin(), args.end());
  return cmd;
}

// The bytecode lua_dump writes for `source` (Lua 5.1, the format of the
// interpreter redis-server embeds too).
std::string Bytecode(const std::string& source) {
  lua_State* L = luaL_newstate();
  std::string chunk;
  if (L != nullptr && luaL_loadstring(L, source.c_str()) == 0) chunk = DumpChunk(L);
  if (L != nullptr) lua_close(L);
  return chunk;
}

class DifferentialScripts : public ::testing::Test {
 protected:
  void SetUp() override { conn_ = oracle_.Connect(); }

  // Sends every command to both servers; counts and reports divergences
  // without stopping, so that one run shows all of them.
  void RunAll(const std::vector<Command>& corpus) {
    for (const Command& cmd : corpus) {
      Reply real = oracle_.Send(conn_, cmd);
      Reply virt = vredis_.Execute(cmd, oracle_.now_ms());
      ++compared_;
      if (std::getenv("LOCKSIM_SHOW_REPLIES") != nullptr) {
        std::printf("%s\n  -> %s\n", FormatCommand(cmd).c_str(), real.ToString().c_str());
      }
      EXPECT_TRUE(virt == real) << "command " << compared_ << ": " << FormatCommand(cmd)
                            << "\n  real:    " << real.ToString()
                            << "\n  virtual: " << virt.ToString();
    }
  }

  void TearDown() override {
    std::printf("[ compared ] %d commands against redis-server\n", compared_);
  }

  RedisOracle oracle_{1704067200000};
  int conn_ = 0;
  VirtualRedis vredis_;
  int compared_ = 0;
};

// Lua values returned by a script, as replies.
TEST_F(DifferentialScripts, LuaValuesConvertToRepliesAsInRedis) {
  RunAll({
      Eval("return 1"),
      Eval("return 0"),
      Eval("return -1"),
      Eval("return 3.7"),
      Eval("return -3.7"),
      Eval("return 0.5"),
      Eval("return 1e15"),
      Eval("return 9007199254740993"),
      Eval("return 2^62"),
      Eval("return 2^63"),
      Eval("return -2^63"),
      Eval("return 1e100"),
      Eval("return -1e100"),
      Eval("return 1/0"),
      Eval("return -1/0"),
      Eval("return 0/0"),
      Eval("return 'hello'"),
      Eval("return ''"),
      Eval("return 'a\\0b'"),
      Eval("return 'line\\r\\nbreak'"),
      Eval("return true"),
      Eval("return false"),
      Eval("return nil"),
      Eval(""),
      Eval("return"),
      Eval("return 1, 2"),
      Eval("return {}"),
      Eval("return {1, 2, 3}"),
      Eval("return {1, 'two', 3.9, true, false}"),
      Eval("return {1, 2, nil, 4}"),
      Eval("return {nil, 2}"),
      Eval("return {1, {2, {3, {4}}}, 5}"),
      Eval("return {{}, {{}}}"),
      Eval("return {a = 1, b = 2}"),
      Eval("return {1, 2, a = 3}"),
      Eval("local t = {}; t[1] = 'x'; t[2] = 'y'; t[4] = 'z'; return t"),
      Eval("return {err = 'My Error'}"),
      Eval("return {err = 'x'}"),
      Eval("return {err = ''}"),
      Eval("return {err = '-x'}"),
      Eval("return {err = 'a\\nb'}"),
      Eval("return {err = 'x\\r\\n'}"),
      Eval("return {err = 5}"),
      Eval("return {err = 1, 5}"),
      Eval("return {ok = 'FINE'}"),
      Eval("return {ok = ''}"),
      Eval("return {ok = 'a\\r\\nb'}"),
      Eval("return {ok = 1}"),
      Eval("return {ok = 'x', err = 'y'}"),
      Eval("return {ok = 'y', 1}"),
      Eval("return {err = 'x', 1, 2}"),
      Eval("return {double = 3.5}"),
      Eval("return {double = 0.1}"),
      Eval("return {double = 3}"),
      Eval("return {double = 1/0}"),
      Eval("return {double = -1/0}"),
      Eval("return {double = '3.5'}"),
      Eval("return {big_number = '123456789012345678901234567890'}"),
      Eval("return {big_number = '1\\r\\n2'}"),
      Eval("return {verbatim_string = {format = 'txt', string = 'hello'}}"),
      Eval("return {verbatim_string = {format = 'txt'}}"),
      Eval("return {map = {a = 1}}"),
      Eval("return {map = {a = 1, b = {1, 2}, c = 'x'}}"),
      Eval("return {map = {}}"),
      Eval("return {set = {a = true}}"),
      Eval("return {set = {}}"),
      Eval("return {ok = 'x', double = 1}"),
      Eval("return {double = 1, big_number = '5'}"),
      Eval("return {{ok = 'inner'}, {err = 'inner error'}}"),
      Eval("return function() end"),
      Eval("return coroutine.create(function() end)"),
      Eval("return {function() end, 1}"),
      Eval("return setmetatable({}, {__index = function() return 1 end})"),
      Eval("return setmetatable({}, {__index = {err = 'via index'}})"),
  });
}

// Replies of redis.call as Lua values, with GET / SET / DEL / PTTL / PING.
TEST_F(DifferentialScripts, RepliesConvertToLuaValuesAsInRedis) {
  RunAll({
      {"SET", "k", "v"},
      {"SET", "n", "42"},
      Eval("return redis.call('get', 'k')"),
      Eval("return redis.call('GET', 'missing')"),
      Eval("return type(redis.call('get', 'missing'))"),
      Eval("return tostring(redis.call('get', 'missing'))"),
      Eval("return redis.call('set', 'k', 'v2')"),
      Eval("local r = redis.call('set', 'k', 'v3'); return type(r)"),
      Eval("local r = redis.call('set', 'k', 'v3'); return r.ok"),
      Eval("return redis.call('set', 'k', 'v4', 'NX')"),
      Eval("return tostring(redis.call('set', 'k', 'v4', 'NX'))"),
      Eval("return redis.call('set', 'k', 'v5', 'GET')"),
      Eval("return redis.call('del', 'k', 'nope')"),
      Eval("return type(redis.call('del', 'k'))"),
      Eval("return redis.call('pttl', 'n')"),
      Eval("return redis.call('pttl', 'missing')"),
      Eval("redis.call('set', 'p', 'v', 'PX', 1500); return redis.call('pttl', 'p')"),
      Eval("redis.call('set', 'p', 'v', 'EX', 7); return redis.call('pttl', 'p')"),
      Eval("return redis.call('ping')"),
      Eval("return redis.call('ping').ok"),
      Eval("return redis.call('ping', 'hello')"),
      Eval("return redis.call('get', 'n') + 1"),
      Eval("return redis.call('get', 'n') .. '!'"),
      Eval("return redis.pcall('get', 'n')"),
      Eval("local e = redis.pcall('set', 'k', 'v', 'PX', '0'); return e.err"),
      Eval("local e = redis.pcall('set', 'k', 'v', 'PX', '0'); return e"),
      Eval("local e = redis.pcall('nosuch'); return tostring(e.ignore_error_stats_update)"),
      Eval("local e = redis.pcall(); return tostring(e.ignore_error_stats_update)"),
      Eval("return {redis.call('ping'), redis.call('get', 'n'), redis.call('get', 'zz')}"),
      // Numbers as arguments are sent as "%.17g".
      Eval("redis.call('set', 'f', 3.5); return redis.call('get', 'f')"),
      Eval("redis.call('set', 'f', 0.1); return redis.call('get', 'f')"),
      Eval("redis.call('set', 'f', 1e20); return redis.call('get', 'f')"),
      Eval("redis.call('set', 'f', -0); return redis.call('get', 'f')"),
      Eval("redis.call('set', 'f', 1/0); return redis.call('get', 'f')"),
      Eval("redis.call('set', 'f', 12345678901234567890); return redis.call('get', 'f')"),
      Eval("redis.call('set', 'f', 7); return redis.call('get', 'f')"),
      Eval("return redis.call('set', 'f', 'v', 'PX', 100.0)"),
      Eval("return redis.call('set', 'f', 'v', 'PX', 100.5)"),
      {"PTTL", "f"},
      {"GET", "f"},
  });
}

// redis.call / redis.pcall argument checks and the errors they raise.
TEST_F(DifferentialScripts, RedisCallErrorsReadAsInRedis) {
  RunAll({
      Eval("return redis.call()"),
      Eval("return redis.pcall()"),
      Eval("return redis.call('set', 'k', true)"),
      Eval("return redis.call('set', 'k', nil)"),
      Eval("return redis.call('set', 'k', {})"),
      Eval("return redis.pcall('set', 'k', {})"),
      Eval("return redis.call(1)"),
      Eval("return redis.call('nosuch')"),
      Eval("return redis.pcall('nosuch', 'a')"),
      Eval("return redis.call('get')"),
      Eval("return redis.call('GET', 'a', 'b')"),
      Eval("return redis.pcall('get')"),
      Eval("return redis.call('eval', 'return 1', '0')"),
      Eval("return redis.call('multi')"),
      Eval("return redis.call('script', 'load', 'return 1')"),
      Eval("return redis.call('evalsha', 'x', '0')"),
      Eval("return redis.call('set', 'k', 'v', 'px', '0')"),
      Eval("return redis.pcall('set', 'k', 'v', 'px', '0')"),
      Eval("return redis.call('set', 'k', 'v', 'bogus')"),
      Eval("\n\nreturn redis.call('set', 'k', 'v', 'ex', 'x')"),
      Eval("local ok = redis.pcall('get'); return 'survived'"),
      Eval("local ok, e = pcall(redis.call, 'nosuch'); return {tostring(ok), e}"),
      Eval("local ok, e = pcall(redis.call, 'nosuch'); return type(e)"),
      Eval("return {pcall(redis.call, 'set', 'k', 'v', 'px', '0')}"),
      Eval("local function f() return redis.call('get') end\nreturn f()"),
      Eval("local t = redis.pcall('get'); t.err = 'changed'; return t"),
  });
}

// redis.error_reply / redis.status_reply and how their tables reply.
TEST_F(DifferentialScripts, ErrorAndStatusRepliesAsInRedis) {
  RunAll({
      Eval("return redis.error_reply('boom')"),
      Eval("return redis.error_reply('MYCODE x')"),
      Eval("return redis.error_reply('MYCODE')"),
      Eval("return redis.error_reply('-x')"),
      Eval("return redis.error_reply('-MYCODE x y')"),
      Eval("return redis.error_reply('-')"),
      Eval("return redis.error_reply('')"),
      Eval("return redis.error_reply('- x')"),
      Eval("return redis.error_reply(' x')"),
      Eval("return redis.error_reply('x\\r\\n')"),
      Eval("return redis.error_reply('\\r\\nx')"),
      Eval("return redis.error_reply('a\\nb c')"),
      Eval("return redis.error_reply('ERR already')"),
      Eval("return redis.error_reply('MYCODE x').err"),
      Eval("return redis.error_reply('x').err"),
      Eval("return redis.error_reply(' x').err"),
      Eval("return redis.error_reply(5)"),
      Eval("return redis.error_reply()"),
      Eval("return redis.error_reply('a', 'b')"),
      Eval("return redis.error_reply(nil)"),
      Eval("return type(redis.error_reply(5))"),
      Eval("return redis.status_reply('FINE')"),
      Eval("return redis.status_reply('')"),
      Eval("return redis.status_reply('a\\nb')"),
      Eval("return redis.status_reply('x').ok"),
      Eval("return redis.status_reply(5)"),
      Eval("return redis.status_reply()"),
      Eval("return redis.status_reply('a', 'b')"),
      Eval("return {redis.status_reply('one'), redis.error_reply('two')}"),
      Eval("error(redis.error_reply('MY raised'))"),
  });
}

// Runtime errors get " script: <sha1>, on @user_script:<line>."; compile
// errors and argument errors of EVAL itself do not.
TEST_F(DifferentialScripts, ScriptErrorsReadAsInRedis) {
  RunAll({
      Eval("error('boom')"),
      Eval("\n\nerror('on line three')"),
      Eval("error('a\\nb')"),
      Eval("error({err = 'x'})"),
      Eval("error({err = 'MY x'})"),
      Eval("error({err = 'x\\n'})"),
      Eval("error({err = 5})"),
      Eval("error(nil)"),
      Eval("error()"),
      Eval("error(12)"),
      Eval("error(true)"),
      Eval("error('a', 0)"),
      Eval("error('a', 2)"),
      Eval("local function f() error('deep', 2) end\nlocal x = 1\nf()"),
      Eval("local function f()\n  error('inner')\nend\nf()"),
      Eval("return nil + 1"),
      Eval("local t = nil; return t.x"),
      Eval("return #nil"),
      Eval("local x; x()"),
      Eval("return ('x'):nosuch()"),
      Eval("return 1 < 'x'"),
      Eval("return {} .. 'x'"),
      Eval("return assert(false, 'assert msg')"),
      Eval("return assert(nil)"),
      Eval("return assert(1, 2)"),
      Eval("return string.rep()"),
      Eval("return ('x'):rep(1, 2, 3)"),
      Eval("return tonumber()"),
      Eval("return {xpcall(function() error('q') end, function(e) return 'handled: ' .. e end)}"),
      Eval("return {pcall(error, 'x')}"),
      Eval("return {pcall(error, {err = 'x'})}"),
      Eval("return {pcall(error, {err = 5})}"),
      Eval("return {pcall(function() return 1, 2 end)}"),
      Eval("return {pcall()}"),
      Eval("return {pcall(error)}"),
      Eval("return select('#', pcall(error, {}))"),
      Eval("return coroutine.wrap(function() coroutine.yield(5) end)()"),
      Eval("coroutine.yield(1)"),
      Eval("return syntax error here"),
      Eval("return 1 end"),
      Eval("return 1 +"),
      Eval("x ="),
      Eval("\n\nlocal = 3"),
      Eval("return 'unfinished"),
      Eval("return [[unfinished"),
      Eval("return ..."),
      Eval("return select('#', ...)"),
      Eval("#\nreturn 1"),
      Eval("for i = 1 do end"),
      Eval("return 1 .. "),
  });
}

// Redis's sandbox: the libraries, the removed functions, read-only tables
// and undefined globals.
TEST_F(DifferentialScripts, TheSandboxBehavesAsRedis) {
  const std::string globals =
      "local t = {}\n"
      "for k in pairs(_G) do\n"
      "  if k ~= 'cmsgpack' and k ~= 'struct' then\n"
      "    t[#t + 1] = k\n"
      "  end\n"
      "end\n"
      "table.sort(t)\n"
      "return t";
  RunAll({
      Eval(globals),
      Eval("local t = {}; for k in pairs(redis) do t[#t+1] = k end; table.sort(t); return t"),
      Eval("local t = {}; for k in pairs(string) do t[#t+1] = k end; table.sort(t); return t"),
      Eval("local t = {}; for k in pairs(math) do t[#t+1] = k end; table.sort(t); return t"),
      Eval("local t = {}; for k in pairs(table) do t[#t+1] = k end; table.sort(t); return t"),
      Eval("local t = {}; for k in pairs(coroutine) do t[#t+1] = k end; table.sort(t); return t"),
      Eval("local n = 0; for k in next, string do n = n + 1 end; return n"),
      Eval("local n = 0; table.foreach(math, function() n = n + 1 end); return n"),
      // cjson and bit, as Redis loads them (cmsgpack and struct: not modelled).
      Eval("return cjson.encode({a = 1})"),
      Eval("return cjson.encode({1, 2, 'x', true})"),
      Eval("local t = cjson.decode('{\"a\": [1, 2.5, \"s\", null, false]}'); "
           "return {t.a[1], tostring(t.a[2]), t.a[3], tostring(t.a[4] == cjson.null), tostring(t.a[5])}"),
      Eval("return cjson.decode('{')"),
      Eval("return cjson.encode(function() end)"),
      Eval("local t = {}; for k in pairs(cjson) do t[#t + 1] = k end; table.sort(t); return t"),
      Eval("return {bit.band(0xff, 0x0f), bit.bor(1, 2), bit.bxor(5, 3), bit.lshift(1, 10), "
           "bit.rshift(-1, 28), bit.tohex(255), bit.bnot(0)}"),
      Eval("local t = {}; for k in pairs(bit) do t[#t + 1] = k end; table.sort(t); return t"),
      Eval("cjson.encode = nil"),
      // Bytecode is refused: a dumped function parses as text and fails,
      // as an EVAL's body as much as loadstring's chunk.
      Eval(Bytecode("return 42")),
      Eval(Bytecode("x = 1; return 1")),
      Eval(std::string("\x1b", 1)),
      Eval("#!lua\n" + Bytecode("return 42")),
      Eval("return loadstring(string.dump(function() return 1 end))()"),
      Eval("local f, e = loadstring(string.dump(function() return 1 end)); "
           "return {tostring(f), e}"),
      Eval("local f = loadstring('return 2'); return f()"),
      Eval("local f, e = loadstring('return +'); return {tostring(f), e}"),
      Eval("return load(string.dump(function() return 1 end))"),
      Eval("local s = string.dump(function() return 1 end); local done = false; "
           "local f, e = load(function() if done then return nil end; done = true; return s end); "
           "return {tostring(f), e}"),
      Eval("local done = false; local f = load(function() if done then return nil end; "
           "done = true; return 'return 3' end); return f()"),
      Eval("return x"),
      Eval("return undefined_fn()"),
      // A script that assigns no global reads the globals table directly
      // (eval.cc): the same answers and errors, in nested functions too.
      Eval("local f = function() return nothing_here end; return f()"),
      Eval("local t = {}; for i = 1, 3 do t[i] = tostring(i) .. type(redis.call) end; return t"),
      Eval("local g = function() return function() return math.max(1, #KEYS) end end\n"
           "return g()()", {"a", "b"}),
      // What a script does to KEYS and ARGV never reaches the next run,
      // whether or not its code reads them only as KEYS[x] (ScanScript).
      Eval("local k = KEYS; k[3] = 'x'; setmetatable(ARGV, {})", {"a", "b"}, {"c"}),
      Eval("return {#KEYS, tostring(KEYS[3]), tostring(getmetatable(ARGV))}", {"a", "b"}, {"c"}),
      Eval("if redis.call('get', KEYS[1]) == ARGV[1] then return 1 end; return #KEYS + #ARGV",
           {"a", "b"}, {"c"}),
      Eval("x = 5"),
      Eval("x = nil"),
      Eval("local f = function() y = 1 end; f()"),
      Eval("redis = nil; return 1"),
      Eval("redis.call = nil; return 1"),
      Eval("math.pi = 3; return math.pi"),
      Eval("string.upper = nil"),
      Eval("table.newfield = 1"),
      Eval("_G.x = 1"),
      Eval("_G['redis'] = 1"),
      Eval("rawset(_G, 'y', 1); return y"),
      Eval("rawset(math, 'y', 1)"),
      Eval("return rawget(_G, 'nothing')"),
      Eval("return rawget(math, 'pi') * 1000"),
      Eval("return rawget(_G, 'debug')"),
      Eval("return _G[1]"),
      Eval("return _G[1.5]"),
      Eval("return _G[true]"),
      Eval("return _G._G == _G"),
      Eval("return tostring(_G.redis == redis)"),
      Eval("setmetatable(math, {})"),
      Eval("setmetatable(_G, nil)"),
      Eval("setmetatable(_G, 5)"),
      Eval("return getmetatable(math)"),
      Eval("return tostring(getmetatable(math))"),
      Eval("return type(getmetatable(_G))"),
      Eval("return type(getmetatable(_G).__index)"),
      Eval("return tostring(getmetatable(_G).__newindex)"),
      Eval("getmetatable(_G).__index = nil"),
      Eval("return getmetatable(_G).__index(_G, 'redis')"),
      Eval("return getmetatable(_G).__index(_G)"),
      Eval("return tostring(getmetatable('').__index == string)"),
      Eval("getmetatable('').x = 1; return 1"),
      Eval("getmetatable('').__index.upper = 1; return 1"),
      Eval("return ('abc'):upper()"),
      Eval("table.insert(math, 1)"),
      Eval("table.insert(math, 1, 2)"),
      Eval("table.insert(math)"),
      Eval("table.remove(math)"),
      Eval("table.sort(math)"),
      Eval("return table.maxn(math)"),
      Eval("return #math"),
      Eval("local t = {3, 1, 2}; table.sort(t); table.insert(t, 4); table.insert(t, 1, 0)\n"
           "return t"),
      Eval("return table.concat({1, 'a', 2.5}, ',')"),
      Eval("KEYS[1] = 'z'; return KEYS[1]", {"a"}),
      Eval("ARGV[5] = 'z'; return #ARGV", {}, {"a"}),
      Eval("local t = {}\n"
           "setmetatable(t, {__index = function(t, k) return k .. '!' end}); return t.hi"),
      Eval("local t = setmetatable({}, {__metatable = 'locked'}); return getmetatable(t)"),
      Eval("local t = setmetatable({}, {__metatable = 'locked'}); setmetatable(t, {})"),
      Eval("return type(loadfile)"),
      Eval("return type(dofile)"),
      Eval("return type(print)"),
      Eval("return type(require)"),
      Eval("return type(module)"),
      Eval("return type(package)"),
      Eval("return type(os)"),
      Eval("return type(io)"),
      Eval("return type(debug)"),
      Eval("return type(getfenv)"),
      Eval("return type(setfenv)"),
      Eval("return type(newproxy)"),
      Eval("return type(loadstring)"),
      Eval("return type(load)"),
      Eval("return type(string.dump)"),
      Eval("return type(__redis__err__handler)"),
      Eval("return loadstring('return 1 + 1')()"),
      Eval("return loadstring('x = 1')()"),
      Eval("return {loadstring('syntax error')}"),
      Eval("return _VERSION"),
      Eval("return tostring(collectgarbage('count') > 0)"),
      Eval("return type(gcinfo())"),
      Eval("error(math)"),
      Eval("local co = coroutine.create(function() return redis.call('ping') end)\n"
           "local ok, v = coroutine.resume(co); return {tostring(ok), v}"),
      Eval("local co = coroutine.create(function() return undefined_global end)\n"
           "return {coroutine.resume(co)}"),
      Eval("return string.format('%d %s %5.2f', 3, 'x', 1.5)"),
      Eval("return string.gsub('hello world', 'o', '0')"),
      Eval("return tostring(0.1) .. ' ' .. tostring(1e15) .. ' ' .. 1.5"),
      Eval("return {math.floor(-3.5), math.ceil(3.2), math.fmod(7, 3), math.max(1, 9, 3)}"),
      Eval("return math.huge"),
      Eval("return {tonumber('0x10'), tonumber('  12  '), tonumber('z', 36), tonumber('x')}"),
      Eval("return {select('#', 1, nil, 3), unpack({1, 2, 3})}"),
      Eval("return redis.REDIS_VERSION"),
      Eval("return redis.REDIS_VERSION_NUM"),
      Eval("return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}"),
      Eval("return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, "
           "redis.REPL_ALL}"),
      Eval("return redis.log(redis.LOG_WARNING, 'hello', 'from', 'a', 'test')"),
      Eval("return redis.log()"),
      Eval("return redis.log(redis.LOG_NOTICE)"),
      Eval("return redis.log('x', 'y')"),
      Eval("return redis.log(99, 'y')"),
      Eval("return redis.log(-1, 'y')"),
      Eval("return redis.log('3', 'numeric string level')"),
      // The replaced base functions keep their argument errors.
      Eval("return next({}, 'nokey')"),
      Eval("return next(math, 'nokey')"),
      Eval("return next()"),
      Eval("return pairs(nil)"),
      Eval("return rawget(nil)"),
      Eval("return rawget({})"),
      Eval("rawset({}, nil, 1)"),
      Eval("return rawset({}, 1)"),
      Eval("return rawset(5, 1, 2)"),
      Eval("local t = {}; rawset(t, 'a', 'b'); return t.a"),
      Eval("return getmetatable()"),
      Eval("return setmetatable()"),
      Eval("return setmetatable({})"),
      Eval("return table.foreach(math, 5)"),
      Eval("return table.foreach({10, 20}, function(k, v) if k == 2 then return v end end)"),
      Eval("table.insert({}, 1, 2, 3)"),
      Eval("table.insert({}, 'x', 2)"),
      Eval("table.insert(_G, 'x')"),
      Eval("table.insert(5, 'x')"),
      Eval("return {ipairs(_G)} ~= nil"),
      Eval("local n = 0; for i, v in ipairs(math) do n = n + 1 end; return n"),
      Eval("return #_G + #string"),
      Eval("return {unpack(math)}"),
      Eval("return rawequal(string, getmetatable('').__index)"),
      Eval("return type(next) .. type(pairs(math))"),
      Eval("local k, v = next(redis, nil); return type(k)"),
      Eval("error(setmetatable({}, {__index = function() return 'dynamic err' end}))"),
      Eval("return loadstring('return zz')()"),
      Eval("return string.gsub('$a $b', '%$(%w+)', {a = 'A'})"),
      Eval("return ('%d items'):format(3)"),
      Eval("return tostring(coroutine.running())"),
      Eval("return collectgarbage('collect')"),
      Eval("local t = setmetatable({}, math); return tostring(t.pi)"),
      // redis.setresp: how redis.call's replies read as Lua values.
      Eval("return redis.setresp()"),
      Eval("return redis.setresp(2, 3)"),
      Eval("return redis.setresp(4)"),
      Eval("return redis.setresp('x')"),
      Eval("redis.setresp(3); return type(redis.call('get', 'resp:missing'))"),
      Eval("redis.setresp(2); return type(redis.call('get', 'resp:missing'))"),
      Eval("redis.setresp(3); redis.setresp(2); return type(redis.call('get', 'resp:missing'))"),
      Eval("return type(redis.call('get', 'resp:missing'))"),  // each script starts at 2
      Eval("redis.call('hset', 'resp:h', 'a', '1', 'b', '2'); redis.setresp(3); "
           "local r = redis.call('hgetall', 'resp:h'); return {type(r.map), r.map.a, r.map.b}"),
      Eval("redis.setresp(3); local r = redis.call('hgetall', 'resp:none'); "
           "local n = 0; for _ in pairs(r.map) do n = n + 1 end; return {type(r.map), n}"),
      Eval("redis.setresp(3); local r = redis.call('info', 'server'); "
           "return {r.verbatim_string.format, "
           "string.sub(r.verbatim_string.string, 1, 8)}"),
      Eval("redis.setresp(3); return {redis.call('set', 'resp:k', 'v', 'NX', 'GET'), "
           "redis.call('pttl', 'resp:k'), redis.call('ping')}"),
      Eval("redis.setresp(3); return redis.pcall('get')"),
      Eval("redis.setresp(3); return redis.call('hgetall', 'resp:h')"),
      // redis.set_repl: the flags are checked (their effect on replicas and
      // the AOF is tested against the model's streams, vredis_test).
      Eval("return redis.set_repl()"),
      Eval("return redis.set_repl(1, 2)"),
      Eval("return redis.set_repl(4)"),
      Eval("return redis.set_repl(-1)"),
      Eval("redis.set_repl(redis.REPL_NONE); redis.set_repl(redis.REPL_AOF); "
           "redis.set_repl(redis.REPL_REPLICA); redis.set_repl(redis.REPL_ALL); "
           "return redis.set_repl(redis.REPL_SLAVE)"),
      // redis.acl_check_cmd: the default user may run any command.
      Eval("return redis.acl_check_cmd('get', 'k')"),
      Eval("return redis.acl_check_cmd('SET', 'k', 'v')"),
      Eval("return redis.acl_check_cmd('nosuchcommand')"),
      Eval("return redis.acl_check_cmd()"),
      Eval("return redis.acl_check_cmd({})"),
      Eval("return redis.acl_check_cmd('get', 1)"),
      Eval("return redis.replicate_commands()"),
      Eval("return redis.breakpoint()"),
      Eval("return redis.debug('x')"),
  });
}

TEST_F(DifferentialScripts, Sha1hexMatchesRedis) {
  RunAll({
      Eval("return redis.sha1hex('')"),
      Eval("return redis.sha1hex('abc')"),
      Eval("return redis.sha1hex(ARGV[1])", {}, {std::string(1000, 'z')}),
      Eval("return redis.sha1hex('a\\0b')"),
      Eval("return redis.sha1hex(123)"),
      Eval("return redis.sha1hex(1.5)"),
      Eval("return redis.sha1hex(nil)"),
      Eval("return redis.sha1hex({})"),
      Eval("return redis.sha1hex()"),
      Eval("return redis.sha1hex('a', 'b')"),
      Eval("return redis.sha1hex('return 1')"),
  });
}

// math.random draws on one PRNG seeded when the server starts; scripts
// continue its sequence, math.randomseed moves it, SCRIPT FLUSH does not.
TEST_F(DifferentialScripts, MathRandomFollowsRedisSequence) {
  RunAll({
      Eval("return math.random(1000)"),
      Eval("return math.random(1000)"),
      Eval("return {math.random(10), math.random(10), math.random(10), math.random(10)}"),
      Eval("return {math.random(5, 10), math.random(-3, 3), math.random(7, 7)}"),
      Eval("return tostring(math.random())"),
      Eval("return math.random() * 1000000"),
      Eval("local t = {} for i = 1, 20 do t[i] = math.random(100) end return t"),
      Eval("return math.random(0)"),
      Eval("return math.random(3, 1)"),
      Eval("return math.random(1, 2, 3)"),
      Eval("return math.random('x')"),
      Eval("return math.random(2.9)"),
      Eval("return math.random(2147483647)"),
      Eval("math.randomseed(7); return math.random(1000)"),
      Eval("return math.random(1000)"),
      Eval("math.randomseed(7); return {math.random(1000), math.random(1000)}"),
      Eval("math.randomseed(0); return math.random(1000000)"),
      Eval("math.randomseed(-1); return math.random(1000000)"),
      Eval("math.randomseed(2.7); return math.random(1000000)"),
      Eval("math.randomseed(2^40 + 5); return math.random(1000000)"),
      Eval("math.randomseed(123456789); return tostring(math.random())"),
      Eval("math.randomseed('x'); return 1"),
      Eval("math.randomseed(); return 1"),
      {"SCRIPT", "FLUSH"},
      Eval("return math.random(1000)"),
      Eval("local t = {} for i = 1, 10 do t[i] = math.random(1, 6) end return t"),
  });
}

// EVAL's own arguments, KEYS and ARGV.
TEST_F(DifferentialScripts, KeysArgvAndEvalArgumentsAsInRedis) {
  RunAll({
      Eval("return {KEYS, ARGV}", {"a", "b"}, {"c"}),
      Eval("return #KEYS", {"a", "b"}, {"c", "d", "e"}),
      Eval("return #ARGV", {"a", "b"}, {"c", "d", "e"}),
      Eval("return KEYS[1] .. ARGV[1]", {"k"}, {"v"}),
      Eval("return ARGV[1] + 1", {}, {"41"}),
      Eval("return ARGV[1]", {}, {std::string("bin\0ary", 7)}),
      Eval("return KEYS[3]", {"a"}),
      Eval("return {KEYS[1], ARGV[1]}"),
      Eval("return redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])", {"k1"}, {"v", "100"}),
      Eval("return redis.call('pttl', KEYS[1])", {"k1"}),
      Eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) "
           "else return 0 end",
           {"k1"}, {"other"}),
      Eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) "
           "else return 0 end",
           {"k1"}, {"v"}),
      {"EVAL", "return 1", "abc"},
      {"EVAL", "return 1", "1.5"},
      {"EVAL", "return 1", "-0"},
      {"EVAL", "return 1", " 1", "a"},
      {"EVAL", "return 1", "-1"},
      {"EVAL", "return 1", "2", "a"},
      {"EVAL", "return 1", "99999999999999999999"},
      {"EVAL", "return 1"},
      {"EVAL"},
      {"eval", "return 'lower case'", "0"},
      {"EvAl", "return 'mixed case'", "0"},
  });
}

// The script cache: EVALSHA, NOSCRIPT, SCRIPT LOAD / EXISTS / FLUSH and the
// other SCRIPT subcommands.
TEST_F(DifferentialScripts, ScriptCacheAndScriptCommandAsInRedis) {
  RunAll({
      {"EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"},
      {"EVAL", "return 1", "0"},
      {"EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"},
      {"EVALSHA", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", "0"},
      {"EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "1"},
      {"EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "x"},
      {"EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"},
      {"EVALSHA", "abc", "0"},
      {"EVALSHA", "abc", "x"},
      {"EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8dbXX", "0"},
      {"EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"},
      {"SCRIPT", "LOAD", "return {KEYS[1], ARGV[1]}"},
      {"EVALSHA", "d006f1a90249474274c76f5be725b8f5804a346b", "1", "k", "a"},
      {"SCRIPT", "LOAD", "return 2"},
      {"EVALSHA", "7f923f79fe76194c868d7e1d0820de36700eb649", "0"},
      {"SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db",
       "7f923f79fe76194c868d7e1d0820de36700eb649", "x",
       "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", "ffffffffffffffffffffffffffffffffffffffff"},
      {"script", "load", "return 2 +"},
      {"SCRIPT", "LOAD", "return redis.call('get', KEYS[1])"},
      {"SET", "cached", "value"},
      {"EVALSHA", "4e6d8fc8bb01276962cce5371fa795a7763657ae", "1", "cached"},
      {"SCRIPT", "LOAD", "error('from a loaded script')"},
      {"EVALSHA", "5f503c69b8cd947be1492ec93d72b3670bb412d6", "0"},
      {"SCRIPT", "FLUSH"},
      {"SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db",
       "7f923f79fe76194c868d7e1d0820de36700eb649"},
      {"EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"},
      {"EVAL", "return 1", "0"},
      {"SCRIPT", "FLUSH", "ASYNC"},
      {"SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"},
      {"SCRIPT", "FLUSH", "sync"},
      {"SCRIPT", "FLUSH", "bogus"},
      {"SCRIPT", "FLUSH", "async", "sync"},
      {"SCRIPT", "LOAD"},
      {"SCRIPT", "LOAD", "a", "b"},
      {"SCRIPT", "EXISTS"},
      {"SCRIPT", "KILL"},
      {"SCRIPT", "KILL", "x"},
      {"SCRIPT", "HELP"},
      {"SCRIPT", "help", "x"},
      {"SCRIPT", "BOGUS"},
      {"SCRIPT", "bogus", "x"},
      {"SCRIPT", std::string(200, 'z')},
      {"script"},
      {"EVAL", "return 'after flush'", "0"},
  });
}

// "#!lua" shebangs with flags, EVAL_RO and EVALSHA_RO.
TEST_F(DifferentialScripts, ShebangsAndReadOnlyScriptsAsInRedis) {
  RunAll({
      Eval("#!lua\nreturn 1"),
      Eval("#!lua\nreturn x"),
      Eval("#!lua\n\nreturn x"),
      Eval("#!lua\nreturn 1 +"),
      Eval("#!lua\r\nreturn 1"),
      Eval("#!lua flags=no-writes\nreturn redis.call('set', 'a', 'b')"),
      Eval("#!lua flags=no-writes\nreturn redis.pcall('del', 'a')"),
      Eval("#!lua flags=no-writes\nreturn redis.call('get', 'a')"),
      Eval("#!lua flags=no-writes\nreturn redis.call('ping')"),
      Eval("#!lua flags=no-writes\nreturn redis.call('set', 'a')"),
      Eval("#!lua flags=no-writes,allow-stale\nreturn redis.call('get', 'a')"),
      Eval("#!lua flags=allow-oom,allow-stale,no-cluster,allow-cross-slot-keys\nreturn 1"),
      Eval("#!lua flags=\nreturn 1"),
      Eval("#!lua  flags=no-writes  \nreturn 1"),
      Eval("#!lua \"flags=no-writes\"\nreturn redis.call('set', 'a', 'b')"),
      Eval("#!lua flags=no-writes,,\nreturn 1"),
      Eval("#!lua flags=bogus\nreturn 1"),
      Eval("#!lua flags=NO-WRITES\nreturn 1"),
      Eval("#!lua name=x\nreturn 1"),
      Eval("#!lua 'unterminated\nreturn 1"),
      Eval("#!lua \"closing\"x\nreturn 1"),
      Eval("#!foo\nreturn 1"),
      Eval("#!LUA\nreturn 1"),
      Eval("#! lua\nreturn 1"),
      Eval("#!luax\nreturn 1"),
      Eval("#!lua"),
      Eval("#!"),
      {"SCRIPT", "LOAD", "#!lua flags=no-writes\nreturn 1"},
      {"SCRIPT", "LOAD", "#!lua flags=bad\nreturn 1"},
      {"EVAL_RO", "#!lua\nreturn 1", "0"},
      {"EVAL_RO", "#!lua flags=no-writes\nreturn 1", "0"},
      {"EVAL_RO", "return redis.call('set', 'a', 'b')", "0"},
      {"EVAL_RO", "return redis.call('get', 'a')", "0"},
      {"EVAL_RO", "return redis.call('del', 'a')", "0"},
      {"EVAL_RO", "return redis.pcall('set', 'a', 'b')", "0"},
      {"EVAL_RO", "return redis.call('nosuch')", "0"},
      {"EVAL_RO", "return redis.call('set', 'a')", "0"},
      {"EVAL_RO", "return redis.call('ping')", "0"},
      {"EVAL_RO", "return 1"},
      {"SCRIPT", "LOAD", "return redis.call('set', KEYS[1], 'ro')"},
      {"EVALSHA_RO", "6d64de44b7fe505bdbd8b91b457d25e790b256d4", "1", "ro"},
      {"EVALSHA_RO", "x", "0"},
      {"EVAL", "return redis.call('get', 'a')", "0"},
  });
}

// Scripts queued in MULTI, writes kept when a script fails afterwards,
// binary data and large replies.
TEST_F(DifferentialScripts, TransactionsPartialEffectsAndBinaryDataAsInRedis) {
  RunAll({
      {"MULTI"},
      Eval("return redis.call('set', 'm', 'in multi')"),
      {"SCRIPT", "LOAD", "return 'queued load'"},
      Eval("error('fails inside EXEC')"),
      {"EVALSHA", "0000000000000000000000000000000000000000", "0"},
      Eval("return redis.call('get', 'm')"),
      {"EXEC"},
      {"MULTI"},
      {"EVAL", "return 1"},
      {"EXEC"},
      Eval("redis.call('set', 'partial', 'written'); error('then failed')"),
      {"GET", "partial"},
      Eval("redis.call('del', 'partial'); return redis.call('nosuch')"),
      {"GET", "partial"},
      Eval("redis.call('set', 'partial', 'again'); local ok = redis.pcall('nosuch')\n"
           "return 'done'"),
      {"GET", "partial"},
      Eval("return {ok = 'a\\0b'}"),
      Eval("return {err = 'a\\0b c'}"),
      Eval("return redis.error_reply('MY a\\0b')"),
      Eval("return redis.status_reply('a\\0b')"),
      Eval("return 'a\\0b\\255\\1'"),
      Eval("redis.call('set', 'bin', ARGV[1]); return redis.call('get', 'bin')", {},
           {std::string("\0\r\n\xff", 4)}),
      Eval("return redis.call('set', ARGV[1], 'v')", {}, {std::string("k\0ey", 4)}),
      Eval("local t = {} for i = 1, 1000 do t[i] = i end return t"),
      Eval("local t = {} for i = 1, 100 do t[i] = {i, tostring(i), {i * 2}} end return t"),
      Eval("return string.rep('x', 100000)"),
      Eval("local s = '' for i = 1, 300 do s = s .. 'e' end error(s)"),
      Eval("return redis.error_reply(string.rep('E', 300))"),
      Eval("local t = {} t[1] = t return t[1][1][1][1][1][1] == t"),
  });
}

// Time is frozen for the whole script and moves between scripts.
TEST_F(DifferentialScripts, ExpiryInsideScriptsFollowsTheFrozenClock) {
  std::vector<Command> corpus = {
      {"SET", "t", "v", "PX", "10"},
      Eval("return {redis.call('pttl', 't'), redis.call('get', 't')}"),
  };
  RunAll(corpus);
  oracle_.Advance(10);
  RunAll({Eval("return {redis.call('pttl', 't'), redis.call('get', 't'), "
               "redis.call('pttl', 't')}")});
  oracle_.Advance(1);
  RunAll({
      Eval("return {redis.call('pttl', 't'), redis.call('get', 't')}"),
      Eval("redis.call('set', 't', 'w', 'PX', 5); return redis.call('pttl', 't')"),
  });
  oracle_.Advance(3);
  RunAll({{"PTTL", "t"}, Eval("return redis.call('pttl', KEYS[1])", {"t"})});
}

}  // namespace
}  // namespace locksim
