#include "sim/vredis/server.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "lockimpls/set_nx_px/set_nx_px.h"
#include "sim/core/random.h"

namespace locksim {
namespace {

constexpr int64_t kT0 = 1704067200000;  // unix ms

class VirtualRedisTest : public ::testing::Test {
 protected:
  Reply Do(Command argv, int64_t at = kT0) { return redis_.Execute(argv, at); }
  Reply On(VirtualRedis::ConnId conn, Command argv, int64_t at = kT0) {
    return redis_.Execute(conn, argv, at);
  }
  static Reply Err(std::string text) { return Reply::Error(std::move(text)); }
  static Reply Int(int64_t v) { return Reply::Integer(v); }
  static Reply Str(std::string s) { return Reply::String(std::move(s)); }
  static Reply Arr(std::vector<Reply> e) { return Reply::Array(std::move(e)); }

  VirtualRedis redis_;
};

const Reply kWrongType =
    Reply::Error("WRONGTYPE Operation against a key holding the wrong kind of value");
const Reply kNotInteger = Reply::Error("ERR value is not an integer or out of range");
const Reply kQueued = Reply::Status("QUEUED");

// The commands a client library sends as it connects (ioredis's ready
// check reads INFO's "loading:0"), with what the model leaves out said.
TEST_F(VirtualRedisTest, ConnectionCommandsOfClientLibraries) {
  const VirtualRedis::ConnId a = redis_.Connect();
  const VirtualRedis::ConnId b = redis_.Connect();
  EXPECT_EQ(On(a, {"CLIENT", "ID"}), Int(a));
  EXPECT_EQ(On(b, {"CLIENT", "ID"}), Int(b));
  EXPECT_TRUE(On(a, {"CLIENT", "SETNAME", "worker-1"}).IsOk());
  EXPECT_EQ(On(a, {"CLIENT", "GETNAME"}), Str("worker-1"));
  EXPECT_TRUE(On(b, {"CLIENT", "GETNAME"}).IsNil());  // per connection
  const Reply hello = On(a, {"HELLO", "2", "SETNAME", "w"});
  ASSERT_EQ(hello.elements.size(), 14u);
  EXPECT_EQ(hello.elements[3], Str("7.0.15"));
  EXPECT_EQ(hello.elements[7], Int(a));
  EXPECT_EQ(On(a, {"CLIENT", "GETNAME"}), Str("w"));
  EXPECT_EQ(On(a, {"SELECT", "1"}), Err("ERR locksim models database 0 only"));
  Do({"SET", "k", "v", "PX", "5000"});
  const std::string info = Do({"INFO"}).str;
  EXPECT_NE(info.find("# Server\r\nredis_version:7.0.15\r\n"), std::string::npos) << info;
  EXPECT_NE(info.find("loading:0\r\n"), std::string::npos) << info;
  EXPECT_NE(info.find("role:master\r\n"), std::string::npos) << info;
  EXPECT_NE(info.find("db0:keys=1,expires=1,avg_ttl=0\r\n"), std::string::npos) << info;
  EXPECT_EQ(Do({"INFO", "replication"}), Str("# Replication\r\nrole:master\r\n"));
  EXPECT_EQ(Do({"INFO", "nosuch"}), Str(""));
  EXPECT_EQ(Do({"TIME"}, kT0 + 1234), Arr({Str("1704067201"), Str("234000")}));
  EXPECT_EQ(Do({"COMMAND", "COUNT"}), Int(static_cast<int64_t>(Do({"COMMAND"}).elements.size())));
  const Reply get = Do({"COMMAND", "INFO", "get", "nosuch"});
  ASSERT_EQ(get.elements.size(), 2u);
  EXPECT_EQ(get.elements[0].elements[0], Str("get"));
  EXPECT_EQ(get.elements[0].elements[1], Int(2));
  EXPECT_TRUE(get.elements[1].IsNil());
  EXPECT_EQ(Do({"CONFIG", "GET", "maxmemory"}), Arr({}));
  EXPECT_EQ(Do({"CONFIG", "SET", "maxmemory", "1"}), Err("ERR locksim does not model CONFIG SET"));
}

// A script that does not end is stopped after the instruction limit with an
// error reply: a simulation must end (redis-server would stay busy).
TEST_F(VirtualRedisTest, AScriptThatNeverEndsIsStoppedAtTheLimit) {
  redis_.SetScriptInstructionLimit(1'000'000);
  const Reply r = Do({"EVAL", "while true do end", "0"});
  ASSERT_TRUE(r.IsError());
  EXPECT_EQ(r.str.rfind("ERR locksim: the script ran 1 million Lua instructions without ending", 0), 0u)
      << r.str;
  EXPECT_TRUE(Do({"PING"}).type == Reply::Type::kStatus);  // and the node goes on
  EXPECT_EQ(Do({"SCRIPT", "KILL"}), Err("NOTBUSY No scripts in execution right now."));
  // A script that ends is not disturbed by the count hook.
  EXPECT_EQ(Do({"EVAL", "local n = 0 for i = 1, 300000 do n = n + 1 end return n", "0"}), Int(300000));
}

// Redis puts no bound on a script's memory, nor does the virtual Redis by
// default; with one (the fuzzers set 64 MB) a script that asks for more ends
// with Lua's memory error and the node goes on.
TEST_F(VirtualRedisTest, AScriptMemoryLimitEndsTheScriptThatPassesIt) {
  const std::string big = "return #string.rep('x', 100 * 1024 * 1024)";
  EXPECT_EQ(Do({"EVAL", big, "0"}), Int(100 * 1024 * 1024));
  redis_.SetScriptMemoryLimit(int64_t{64} << 20);
  const Reply r = Do({"EVAL", big, "0"});
  ASSERT_TRUE(r.IsError());
  EXPECT_NE(r.str.find("not enough memory"), std::string::npos) << r.str;
  EXPECT_EQ(Do({"EVAL", "return #string.rep('x', 1024 * 1024)", "0"}), Int(1024 * 1024));
  EXPECT_EQ(Do({"EVAL", "local s = 'x' while true do s = s .. s end", "0"}).IsError(), true);
  EXPECT_TRUE(Do({"PING"}).type == Reply::Type::kStatus);
}

// A node keeps the last few command names it looked up (LookupRecent):
// more names than it keeps, in any case, of one length, and names that are
// no command, each answer as itself every time.
TEST_F(VirtualRedisTest, CommandNamesAnswerAsThemselvesWhateverCameBefore) {
  Do({"SET", "k", "v"});
  const std::string unknown = "ERR unknown command";
  const std::vector<std::pair<std::string, Reply>> calls = {
      {"get", Str("v")},      {"GET", Str("v")},     {"gEt", Str("v")},
      {"ttl", Int(-1)},       {"type", Reply::Status("string")},
      {"pttl", Int(-1)},      {"PTTL", Int(-1)},     {"ping", Str("k")},
      {"exists", Int(1)},     {"gets", Err("")},     {"ge", Err("")},
      {"", Err("")},          {std::string("get\0", 4), Err("")},
      {std::string(40, 'g'), Err("")}};
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < calls.size(); ++i) {
      // The same names again and again, in a changing order.
      const auto& [name, want] = calls[(i * (round + 1) + round) % calls.size()];
      const Reply got = Do({name, "k"});
      if (want.IsError()) {
        EXPECT_EQ(got.str.substr(0, unknown.size()), unknown) << name;
      } else {
        EXPECT_EQ(got, want) << name;
      }
    }
  }
}

// Redis's string2ll (util.c): the integers a command argument may hold,
// exactly; what Redis refuses, refused.
TEST(StringToInt64Test, AcceptsAndRefusesAsRedisDoes) {
  const std::pair<const char*, int64_t> good[] = {
      {"0", 0},
      {"7", 7},
      {"9", 9},
      {"5000", 5000},
      {"-1", -1},
      {"1234567890123456789", 1234567890123456789},     // 19 digits
      {"9223372036854775807", INT64_MAX},               // 19 digits
      {"-9223372036854775808", INT64_MIN},              // 19 digits and '-'
  };
  for (const auto& [text, value] : good) {
    int64_t out = 42;
    EXPECT_TRUE(StringToInt64(text, &out)) << text;
    EXPECT_EQ(out, value) << text;
  }
  for (const char* text : {"", "-", "+", " ", "x", "/", ":", "-0", "00", "01", "+1", " 1", "1 ",
                           "1x", "0x10", "9223372036854775808", "-9223372036854775809",
                           "18446744073709551615", "18446744073709551616",
                           "99999999999999999999", "100000000000000000000"}) {
    int64_t out = 42;
    EXPECT_FALSE(StringToInt64(text, &out)) << text;
  }
}

TEST_F(VirtualRedisTest, SetNxOnlySetsAMissingKey) {
  EXPECT_TRUE(Do({"SET", "k", "a", "NX"}).IsOk());
  EXPECT_TRUE(Do({"SET", "k", "b", "NX"}).IsNil());
  EXPECT_EQ(Do({"GET", "k"}), Reply::String("a"));
}

TEST_F(VirtualRedisTest, SetXxOnlySetsAnExistingKey) {
  EXPECT_TRUE(Do({"SET", "k", "a", "XX"}).IsNil());
  EXPECT_TRUE(Do({"GET", "k"}).IsNil());
  Do({"SET", "k", "a"});
  EXPECT_TRUE(Do({"set", "k", "b", "xx"}).IsOk());
  EXPECT_EQ(Do({"GET", "k"}), Reply::String("b"));
}

TEST_F(VirtualRedisTest, KeyExpiresOnlyWhenNowIsPastItsExpiry) {
  // As redis db.c keyIsExpired(): gone when now > when, not at now == when.
  EXPECT_TRUE(Do({"SET", "k", "v", "PX", "100"}, kT0).IsOk());
  EXPECT_EQ(Do({"PTTL", "k"}, kT0 + 40), Reply::Integer(60));
  EXPECT_EQ(Do({"GET", "k"}, kT0 + 100), Reply::String("v"));
  EXPECT_TRUE(Do({"GET", "k"}, kT0 + 101).IsNil());
  EXPECT_EQ(Do({"PTTL", "k"}, kT0 + 101), Reply::Integer(-2));
  EXPECT_TRUE(Do({"SET", "k", "w", "NX", "EX", "1"}, kT0 + 101).IsOk());
  EXPECT_EQ(Do({"PTTL", "k"}, kT0 + 101), Reply::Integer(1000));
}

TEST_F(VirtualRedisTest, PlainSetClearsTheTtl) {
  Do({"SET", "k", "v", "PX", "100"});
  Do({"SET", "k", "v2"});
  EXPECT_EQ(Do({"PTTL", "k"}), Reply::Integer(-1));
}

TEST_F(VirtualRedisTest, DelCountsTheKeysItRemoved) {
  Do({"SET", "a", "1"});
  Do({"SET", "b", "1", "PX", "5"}, kT0);
  EXPECT_EQ(Do({"DEL", "a", "b", "c", "a"}, kT0 + 10), Reply::Integer(1));
}

TEST_F(VirtualRedisTest, ErrorsReadAsRedis7WritesThem) {
  EXPECT_EQ(Do({"SET", "k", "v", "PX", "0"}),
            Reply::Error("ERR invalid expire time in 'set' command"));
  EXPECT_EQ(Do({"SET", "k", "v", "PX", "abc", "NX", "XX"}), Reply::Error("ERR syntax error"));
  EXPECT_EQ(Do({"SET", "k", "v", "PX", "1.5"}),
            Reply::Error("ERR value is not an integer or out of range"));
  EXPECT_EQ(Do({"GET"}), Reply::Error("ERR wrong number of arguments for 'get' command"));
  EXPECT_EQ(Do({"FOO", "a", "b"}),
            Reply::Error("ERR unknown command 'FOO', with args beginning with: 'a' 'b' "));
}

TEST_F(VirtualRedisTest, CompareAndDeleteOnlyDeletesTheOwnersKey) {
  const std::string script(kCompareAndDeleteScript);
  Do({"SET", "lock", "mine", "NX", "PX", "1000"});
  EXPECT_EQ(Do({"EVAL", script, "1", "lock", "theirs"}), Reply::Integer(0));
  EXPECT_EQ(Do({"GET", "lock"}), Reply::String("mine"));
  EXPECT_EQ(Do({"EVAL", script, "1", "lock", "mine"}), Reply::Integer(1));
  EXPECT_TRUE(Do({"GET", "lock"}).IsNil());
}

TEST_F(VirtualRedisTest, LuaRepliesConvertAsInRedis) {
  EXPECT_EQ(Do({"EVAL", "return 3.7", "0"}), Reply::Integer(3));
  EXPECT_EQ(Do({"EVAL", "return -3.9", "0"}), Reply::Integer(-3));
  EXPECT_EQ(Do({"EVAL", "return true", "0"}), Reply::Integer(1));
  EXPECT_TRUE(Do({"EVAL", "return false", "0"}).IsNil());
  EXPECT_EQ(Do({"EVAL", "return {1,'a',nil,3}", "0"}),
            Reply::Array({Reply::Integer(1), Reply::String("a")}));
  EXPECT_EQ(Do({"EVAL", "return {err='My Error'}", "0"}), Reply::Error("My Error"));
  EXPECT_EQ(Do({"EVAL", "return {ok='FINE'}", "0"}), Reply::Status("FINE"));
  EXPECT_EQ(Do({"EVAL", "return redis.error_reply('boom')", "0"}), Reply::Error("ERR boom"));
  EXPECT_EQ(Do({"EVAL", "return redis.call('set','q','1','PX','100')['ok']", "0"}),
            Reply::String("OK"));
  EXPECT_EQ(Do({"EVAL", "return redis.pcall('get')", "0"}),
            Reply::Error("ERR Wrong number of args calling Redis command from script"));
  EXPECT_EQ(Do({"EVAL", "return 1", "-1"}), Reply::Error("ERR Number of keys can't be negative"));
  EXPECT_EQ(Do({"EVAL", "return 1", "2", "a"}),
            Reply::Error("ERR Number of keys can't be greater than number of args"));
  EXPECT_EQ(Do({"EVAL", "syntax error here", "0"}),
            Reply::Error("ERR Error compiling script (new function): user_script:1: '=' "
                         "expected near 'error'"));
}

TEST_F(VirtualRedisTest, TimeIsFrozenForTheWholeScript) {
  Do({"SET", "k", "v", "PX", "10"}, kT0);
  // At kT0 + 10 the key is still there (now == when); the script sees it
  // twice because its clock does not move between the calls.
  EXPECT_EQ(Do({"EVAL",
                "local a = redis.call('get', KEYS[1]); local b = redis.call('get', KEYS[1]); "
                "return {a, b}",
                "1", "k"},
               kT0 + 10),
            Reply::Array({Reply::String("v"), Reply::String("v")}));
}

// ---- Strings (t_string.cc) ----

TEST_F(VirtualRedisTest, SetGetAnswersTheOldValueEvenWhenNxStopsTheSet) {
  EXPECT_TRUE(Do({"SET", "k", "a", "NX", "GET"}).IsNil());
  EXPECT_EQ(Do({"SET", "k", "b", "NX", "GET"}), Str("a"));
  EXPECT_EQ(Do({"GET", "k"}), Str("a"));
  Do({"HSET", "h", "f", "v"});
  EXPECT_EQ(Do({"SET", "h", "x", "GET"}), kWrongType);
  EXPECT_EQ(Do({"SET", "h", "x"}), Reply::Ok());  // a plain SET replaces any type
}

TEST_F(VirtualRedisTest, SetKeepTtlKeepsTheExpiry) {
  Do({"SET", "k", "a", "PX", "500"});
  Do({"SET", "k", "b", "KEEPTTL"}, kT0 + 100);
  EXPECT_EQ(Do({"PTTL", "k"}, kT0 + 100), Int(400));
  EXPECT_EQ(Do({"SET", "k", "c", "KEEPTTL", "PX", "5"}), Err("ERR syntax error"));
}

TEST_F(VirtualRedisTest, SetExpiryOptionsTakeAbsoluteAndRelativeTimes) {
  EXPECT_TRUE(Do({"SET", "a", "v", "EXAT", std::to_string(kT0 / 1000 + 2)}).IsOk());
  EXPECT_EQ(Do({"PTTL", "a"}), Int(2000));
  EXPECT_TRUE(Do({"SET", "b", "v", "PXAT", std::to_string(kT0 + 250)}).IsOk());
  EXPECT_EQ(Do({"PTTL", "b"}), Int(250));
  EXPECT_EQ(Do({"SET", "c", "v", "EX", "0"}),
            Err("ERR invalid expire time in 'set' command"));
  EXPECT_EQ(Do({"SET", "c", "v", "EX", "9223372036854775"}),
            Err("ERR invalid expire time in 'set' command"));
  EXPECT_EQ(Do({"SET", "c", "v", "EX", "1", "EX", "2"}), Reply::Ok());  // the last one counts
  EXPECT_EQ(Do({"TTL", "c"}), Int(2));
}

TEST_F(VirtualRedisTest, SetnxAnswersOneOrZero) {
  EXPECT_EQ(Do({"SETNX", "k", "a"}), Int(1));
  EXPECT_EQ(Do({"SETNX", "k", "b"}), Int(0));
  EXPECT_EQ(Do({"GET", "k"}), Str("a"));
}

TEST_F(VirtualRedisTest, GetsetAnswersTheOldValueAndDropsTheTtl) {
  EXPECT_TRUE(Do({"GETSET", "k", "a"}).IsNil());
  Do({"PEXPIRE", "k", "100"});
  EXPECT_EQ(Do({"GETSET", "k", "b"}), Str("a"));
  EXPECT_EQ(Do({"PTTL", "k"}), Int(-1));
  Do({"HSET", "h", "f", "v"});
  EXPECT_EQ(Do({"GETSET", "h", "x"}), kWrongType);
}

TEST_F(VirtualRedisTest, GetdelAnswersTheValueAndDeletesTheKey) {
  Do({"SET", "k", "a"});
  EXPECT_EQ(Do({"GETDEL", "k"}), Str("a"));
  EXPECT_TRUE(Do({"GETDEL", "k"}).IsNil());
  EXPECT_EQ(Do({"EXISTS", "k"}), Int(0));
}

TEST_F(VirtualRedisTest, IncrCountsFromZeroAndKeepsTheTtl) {
  EXPECT_EQ(Do({"INCR", "n"}), Int(1));
  EXPECT_EQ(Do({"INCRBY", "n", "41"}), Int(42));
  EXPECT_EQ(Do({"DECR", "n"}), Int(41));
  Do({"PEXPIRE", "n", "100"});
  EXPECT_EQ(Do({"INCR", "n"}, kT0 + 10), Int(42));
  EXPECT_EQ(Do({"PTTL", "n"}, kT0 + 10), Int(90));
  EXPECT_EQ(Do({"GET", "n"}, kT0 + 10), Str("42"));
}

TEST_F(VirtualRedisTest, IncrAcceptsOnlyCanonicalInt64Values) {
  for (const char* bad : {"007", " 1", "1.5", "+1", "-0", "", "9223372036854775808"}) {
    Do({"SET", "n", bad});
    EXPECT_EQ(Do({"INCR", "n"}), kNotInteger) << '"' << bad << '"';
  }
  Do({"SET", "n", "9223372036854775807"});
  EXPECT_EQ(Do({"INCR", "n"}), Err("ERR increment or decrement would overflow"));
  Do({"SET", "n", "-9223372036854775808"});
  EXPECT_EQ(Do({"DECR", "n"}), Err("ERR increment or decrement would overflow"));
}

TEST_F(VirtualRedisTest, IncrbyChecksTheIncrementBeforeTheKey) {
  Do({"HSET", "h", "f", "v"});
  EXPECT_EQ(Do({"INCRBY", "h", "x"}), kNotInteger);
  EXPECT_EQ(Do({"INCRBY", "h", "1"}), kWrongType);
}

// ---- Keys (db.cc) ----

TEST_F(VirtualRedisTest, ExistsCountsARepeatedKeyEveryTime) {
  Do({"SET", "a", "1"});
  EXPECT_EQ(Do({"EXISTS", "a", "a", "b"}), Int(2));
}

TEST_F(VirtualRedisTest, TypeNamesStringHashOrNone) {
  Do({"SET", "s", "1"});
  Do({"HSET", "h", "f", "v"});
  EXPECT_EQ(Do({"TYPE", "s"}), Reply::Status("string"));
  EXPECT_EQ(Do({"TYPE", "h"}), Reply::Status("hash"));
  EXPECT_EQ(Do({"TYPE", "nope"}), Reply::Status("none"));
}

TEST_F(VirtualRedisTest, DbsizeCountsAnExpiredKeyUntilSomethingTouchesIt) {
  Do({"SET", "k", "v", "PX", "10"});
  EXPECT_EQ(Do({"DBSIZE"}, kT0 + 50), Int(1));  // lazy expiry: still in the dict
  EXPECT_TRUE(Do({"GET", "k"}, kT0 + 50).IsNil());
  EXPECT_EQ(Do({"DBSIZE"}, kT0 + 50), Int(0));
}

// activeExpireCycle(): with 20 keys with a TTL or fewer, Redis 7.0 looks at
// each of them in a loop, so one cron tick deletes every expired one,
// whatever the node's random source (a sample drawn at random missed one
// key in twenty a third of the time).
TEST_F(VirtualRedisTest, ACronTickDeletesEveryExpiredKeyAmongTwentyOrFewer) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    VirtualRedis redis;
    for (int i = 0; i < 19; ++i) {
      redis.Execute({"SET", "long" + std::to_string(i), "v", "PX", "100000"}, kT0);
    }
    redis.Execute({"SET", "short", "v", "PX", "10"}, kT0);
    Random random(seed);
    redis.Cron(kT0 + 50, random);
    EXPECT_EQ(redis.Execute({"DBSIZE"}, kT0 + 50), Int(19)) << "seed " << seed;
  }
}

TEST_F(VirtualRedisTest, UnlinkDeletesLikeDel) {
  Do({"SET", "a", "1"});
  Do({"HSET", "h", "f", "v"});
  EXPECT_EQ(Do({"UNLINK", "a", "h", "c"}), Int(2));
}

TEST_F(VirtualRedisTest, FlushallAcceptsOnlySyncOrAsync) {
  Do({"SET", "a", "1"});
  EXPECT_EQ(Do({"FLUSHALL", "now"}), Err("ERR syntax error"));
  EXPECT_EQ(Do({"FLUSHALL", "async", "sync"}), Err("ERR syntax error"));
  EXPECT_TRUE(Do({"FLUSHALL", "Async"}).IsOk());
  EXPECT_EQ(Do({"DBSIZE"}), Int(0));
}

TEST_F(VirtualRedisTest, PingAndEchoAnswerAsRedis) {
  EXPECT_EQ(Do({"PING"}), Reply::Status("PONG"));
  EXPECT_EQ(Do({"PING", "hi"}), Str("hi"));
  EXPECT_EQ(Do({"PING", "a", "b"}), Err("ERR wrong number of arguments for 'ping' command"));
  EXPECT_EQ(Do({"ECHO", "x y"}), Str("x y"));
  EXPECT_EQ(Do({"ECHO"}), Err("ERR wrong number of arguments for 'echo' command"));
}

// ---- Expiry (expire.cc) ----

TEST_F(VirtualRedisTest, ExpireGtOnlyExtends) {
  Do({"SET", "k", "v"});
  EXPECT_EQ(Do({"EXPIRE", "k", "10", "GT"}), Int(0));  // no TTL counts as infinite
  Do({"EXPIRE", "k", "10"});
  EXPECT_EQ(Do({"EXPIRE", "k", "5", "GT"}), Int(0));
  EXPECT_EQ(Do({"EXPIRE", "k", "10", "gt"}), Int(0));  // equal is not greater
  EXPECT_EQ(Do({"EXPIRE", "k", "20", "GT"}), Int(1));
  EXPECT_EQ(Do({"TTL", "k"}), Int(20));
}

TEST_F(VirtualRedisTest, ExpireLtOnlyShortensAndSetsAMissingTtl) {
  Do({"SET", "k", "v"});
  EXPECT_EQ(Do({"PEXPIRE", "k", "1000", "LT"}), Int(1));  // infinite -> 1000 is shorter
  EXPECT_EQ(Do({"PEXPIRE", "k", "2000", "LT"}), Int(0));
  EXPECT_EQ(Do({"PEXPIRE", "k", "500", "LT"}), Int(1));
  EXPECT_EQ(Do({"PTTL", "k"}), Int(500));
}

TEST_F(VirtualRedisTest, ExpireNxAndXxLookAtWhetherThereIsATtl) {
  Do({"SET", "k", "v"});
  EXPECT_EQ(Do({"EXPIRE", "k", "10", "XX"}), Int(0));
  EXPECT_EQ(Do({"EXPIRE", "k", "10", "NX"}), Int(1));
  EXPECT_EQ(Do({"EXPIRE", "k", "20", "NX"}), Int(0));
  EXPECT_EQ(Do({"EXPIRE", "k", "30", "XX", "GT"}), Int(1));
  EXPECT_EQ(Do({"TTL", "k"}), Int(30));
}

TEST_F(VirtualRedisTest, ExpireChecksOptionsThenTheNumberThenTheKey) {
  EXPECT_EQ(Do({"EXPIRE", "nokey", "abc", "bogus"}), Err("ERR Unsupported option bogus"));
  EXPECT_EQ(Do({"EXPIRE", "nokey", "abc", "NX", "XX"}),
            Err("ERR NX and XX, GT or LT options at the same time are not compatible"));
  EXPECT_EQ(Do({"EXPIRE", "nokey", "1", "GT", "LT"}),
            Err("ERR GT and LT options at the same time are not compatible"));
  EXPECT_EQ(Do({"EXPIRE", "nokey", "abc"}), kNotInteger);
  EXPECT_EQ(Do({"EXPIRE", "nokey", "9223372036854775"}),
            Err("ERR invalid expire time in 'expire' command"));
  EXPECT_EQ(Do({"PEXPIRE", "nokey", "9223372036854775807"}),
            Err("ERR invalid expire time in 'pexpire' command"));
  EXPECT_EQ(Do({"EXPIRE", "nokey", "10"}), Int(0));
}

TEST_F(VirtualRedisTest, ExpireAtOrBeforeNowDeletesTheKey) {
  Do({"SET", "a", "v"});
  Do({"SET", "b", "v"});
  Do({"SET", "c", "v"});
  EXPECT_EQ(Do({"EXPIRE", "a", "-1"}), Int(1));
  EXPECT_EQ(Do({"PEXPIREAT", "b", std::to_string(kT0)}), Int(1));  // when <= now
  EXPECT_EQ(Do({"EXPIREAT", "c", "1"}), Int(1));
  EXPECT_EQ(Do({"DBSIZE"}), Int(0));
}

TEST_F(VirtualRedisTest, TtlRoundsToTheNearestSecond) {
  Do({"SET", "k", "v", "PX", "1500"});
  EXPECT_EQ(Do({"TTL", "k"}), Int(2));
  EXPECT_EQ(Do({"TTL", "k"}, kT0 + 1), Int(1));  // 1499 ms
  EXPECT_EQ(Do({"TTL", "k"}, kT0 + 1400), Int(0));
  EXPECT_EQ(Do({"TTL", "nokey"}), Int(-2));
}

TEST_F(VirtualRedisTest, PersistRemovesOnlyAnExistingTtl) {
  Do({"SET", "k", "v"});
  EXPECT_EQ(Do({"PERSIST", "k"}), Int(0));
  Do({"EXPIRE", "k", "10"});
  EXPECT_EQ(Do({"PERSIST", "k"}), Int(1));
  EXPECT_EQ(Do({"TTL", "k"}), Int(-1));
  EXPECT_EQ(Do({"PERSIST", "nokey"}), Int(0));
}

// ---- Hashes (t_hash.cc) ----

TEST_F(VirtualRedisTest, HgetallListsFieldsInInsertionOrder) {
  EXPECT_EQ(Do({"HSET", "h", "z", "1", "a", "2", "m", "3"}), Int(3));
  EXPECT_EQ(Do({"HSET", "h", "a", "20", "b", "4"}), Int(1));  // only b is new
  Do({"HDEL", "h", "z"});
  Do({"HSET", "h", "z", "5"});  // back at the end
  EXPECT_EQ(Do({"HGETALL", "h"}), Arr({Str("a"), Str("20"), Str("m"), Str("3"), Str("b"),
                                       Str("4"), Str("z"), Str("5")}));
  EXPECT_EQ(Do({"HLEN", "h"}), Int(4));
  EXPECT_EQ(Do({"HGETALL", "nokey"}), Arr({}));
}

TEST_F(VirtualRedisTest, HsetWithAnUnpairedFieldIsAnArityError) {
  EXPECT_EQ(Do({"HSET", "h", "f"}), Err("ERR wrong number of arguments for 'hset' command"));
  EXPECT_EQ(Do({"HSET", "h", "f", "v", "g"}),
            Err("ERR wrong number of arguments for 'hset' command"));
}

TEST_F(VirtualRedisTest, HdelRemovesTheKeyWithItsLastField) {
  Do({"HSET", "h", "f", "1", "g", "2"});
  EXPECT_EQ(Do({"HDEL", "h", "f", "x", "f"}), Int(1));
  EXPECT_EQ(Do({"HEXISTS", "h", "f"}), Int(0));
  EXPECT_EQ(Do({"HEXISTS", "h", "g"}), Int(1));
  EXPECT_EQ(Do({"HDEL", "h", "g"}), Int(1));
  EXPECT_EQ(Do({"EXISTS", "h"}), Int(0));
  EXPECT_EQ(Do({"HDEL", "h", "g"}), Int(0));
}

TEST_F(VirtualRedisTest, HincrbyNeedsAnIntegerIncrementAndValue) {
  EXPECT_EQ(Do({"HINCRBY", "h", "n", "5"}), Int(5));
  EXPECT_EQ(Do({"HGET", "h", "n"}), Str("5"));
  EXPECT_EQ(Do({"HINCRBY", "h", "n", "x"}), kNotInteger);
  Do({"HSET", "h", "s", "007"});
  EXPECT_EQ(Do({"HINCRBY", "h", "s", "1"}), Err("ERR hash value is not an integer"));
  Do({"HSET", "h", "big", "9223372036854775807"});
  EXPECT_EQ(Do({"HINCRBY", "h", "big", "1"}), Err("ERR increment or decrement would overflow"));
}

TEST_F(VirtualRedisTest, HashAndStringCommandsRefuseTheOtherType) {
  Do({"SET", "s", "1"});
  Do({"HSET", "h", "f", "1"});
  for (const Command& cmd : std::vector<Command>{{"HSET", "s", "f", "v"},
                                                 {"HGET", "s", "f"},
                                                 {"HDEL", "s", "f"},
                                                 {"HEXISTS", "s", "f"},
                                                 {"HINCRBY", "s", "f", "1"},
                                                 {"HGETALL", "s"},
                                                 {"HLEN", "s"},
                                                 {"GET", "h"},
                                                 {"INCR", "h"},
                                                 {"GETDEL", "h"}}) {
    EXPECT_EQ(Do(cmd), kWrongType) << FormatCommand(cmd);
  }
}

// ---- Transactions (multi.cc): seed 000's account, made exact ----

TEST_F(VirtualRedisTest, QueueTimeErrorAbortsTheWholeTransaction) {
  // Seed 000: "sett dlf abc" in the middle of three commands: none runs.
  EXPECT_TRUE(Do({"MULTI"}).IsOk());
  EXPECT_EQ(Do({"SET", "a", "1"}), kQueued);
  EXPECT_EQ(Do({"SETT", "dlf", "abc"}),
            Err("ERR unknown command 'SETT', with args beginning with: 'dlf' 'abc' "));
  EXPECT_EQ(Do({"GET"}), Err("ERR wrong number of arguments for 'get' command"));
  EXPECT_EQ(Do({"SET", "b", "1"}), kQueued);
  EXPECT_EQ(Do({"EXEC"}), Err("EXECABORT Transaction discarded because of previous errors."));
  EXPECT_EQ(Do({"EXISTS", "a", "b"}), Int(0));
}

TEST_F(VirtualRedisTest, RunTimeWrongTypeFailsOnlyThatCommand) {
  // Seed 000: "sadd dlf kkk" on a string fails when run; the others run.
  Do({"SET", "dlf", "abc"});
  Do({"MULTI"});
  EXPECT_EQ(Do({"SET", "a", "1"}), kQueued);
  EXPECT_EQ(Do({"HSET", "dlf", "f", "kkk"}), kQueued);
  EXPECT_EQ(Do({"INCR", "a"}), kQueued);
  EXPECT_EQ(Do({"EXEC"}), Arr({Reply::Ok(), kWrongType, Int(2)}));
}

TEST_F(VirtualRedisTest, ExecIsNilWhenAnotherClientModifiedAWatchedKey) {
  const auto other = redis_.Connect();
  Do({"SET", "lock:x", "abc"});
  Do({"WATCH", "lock:x"});
  On(other, {"SET", "lock:x", "edf"});
  Do({"MULTI"});
  Do({"DEL", "lock:x"});
  EXPECT_TRUE(Do({"EXEC"}).IsNil());
  EXPECT_EQ(Do({"GET", "lock:x"}), Str("edf"));  // the other client's write stands
}

TEST_F(VirtualRedisTest, Seed000ReleaseLockDeletesOnlyItsOwnLock) {
  // releaseLock(): WATCH, compare the identifier, MULTI / DEL / EXEC.
  Do({"SET", "lock:x", "abc", "EX", "180"});
  Do({"WATCH", "lock:x"});
  ASSERT_EQ(Do({"GET", "lock:x"}), Str("abc"));
  Do({"MULTI"});
  Do({"DEL", "lock:x"});
  EXPECT_EQ(Do({"EXEC"}), Arr({Int(1)}));
  // A holder whose lock expired and was taken over finds another identifier
  // and only UNWATCHes.
  Do({"SET", "lock:x", "edf", "EX", "180"});
  Do({"WATCH", "lock:x"});
  EXPECT_NE(Do({"GET", "lock:x"}), Str("abc"));
  EXPECT_TRUE(Do({"UNWATCH"}).IsOk());
  EXPECT_EQ(Do({"GET", "lock:x"}), Str("edf"));
}

TEST_F(VirtualRedisTest, ExecIsNilWhenAWatchedKeyExpiredAfterWatch) {
  Do({"SET", "k", "v", "PX", "100"});
  Do({"WATCH", "k"});
  Do({"MULTI"}, kT0 + 200);
  Do({"GET", "other"}, kT0 + 200);
  EXPECT_TRUE(Do({"EXEC"}, kT0 + 200).IsNil());
}

TEST_F(VirtualRedisTest, ExecIsNilWhenAnotherClientsReadExpiredAWatchedKey) {
  const auto other = redis_.Connect();
  Do({"SET", "k", "v", "PX", "100"});
  Do({"WATCH", "k"});
  EXPECT_TRUE(On(other, {"GET", "k"}, kT0 + 200).IsNil());  // deletes it: a touch
  Do({"MULTI"}, kT0 + 200);
  EXPECT_TRUE(Do({"EXEC"}, kT0 + 200).IsNil());
}

TEST_F(VirtualRedisTest, ExecRunsWhenTheWatchedKeyWasAlreadyExpiredAtWatch) {
  const auto other = redis_.Connect();
  Do({"SET", "k", "v", "PX", "100"});
  Do({"WATCH", "k"}, kT0 + 200);
  On(other, {"GET", "k"}, kT0 + 200);  // its deletion changes nothing logically
  Do({"MULTI"}, kT0 + 200);
  EXPECT_EQ(Do({"EXEC"}, kT0 + 200), Arr({}));
  Do({"SET", "j", "v", "PX", "100"});
  Do({"WATCH", "j"}, kT0 + 200);
  On(other, {"FLUSHALL"}, kT0 + 200);  // nor does flushing it away
  Do({"MULTI"}, kT0 + 200);
  EXPECT_EQ(Do({"EXEC"}, kT0 + 200), Arr({}));
}

TEST_F(VirtualRedisTest, RejectedExecDiscardsTheTransactionAndItsWatches) {
  const auto other = redis_.Connect();
  Do({"WATCH", "k"});
  Do({"MULTI"});
  Do({"SET", "a", "1"});
  EXPECT_EQ(Do({"EXEC", "now"}), Err("EXECABORT Transaction discarded because of: wrong "
                                     "number of arguments for 'exec' command"));
  EXPECT_EQ(Do({"EXEC"}), Err("ERR EXEC without MULTI"));
  On(other, {"SET", "k", "1"});  // no longer watched
  Do({"MULTI"});
  EXPECT_EQ(Do({"EXEC"}), Arr({}));
  EXPECT_EQ(Do({"EXISTS", "a"}), Int(0));
}

TEST_F(VirtualRedisTest, MisplacedMultiAndWatchAreErrorsThatDoNotAbort) {
  Do({"MULTI"});
  EXPECT_EQ(Do({"MULTI"}), Err("ERR MULTI calls can not be nested"));
  EXPECT_EQ(Do({"WATCH", "k"}), Err("ERR WATCH inside MULTI is not allowed"));
  EXPECT_EQ(Do({"UNWATCH"}), kQueued);
  EXPECT_EQ(Do({"SET", "a", "1"}), kQueued);
  EXPECT_EQ(Do({"EXEC"}), Arr({Reply::Ok(), Reply::Ok()}));
  EXPECT_EQ(Do({"DISCARD"}), Err("ERR DISCARD without MULTI"));
}

// ---- Pub/sub (pubsub.cc) ----

TEST_F(VirtualRedisTest, PublishCountsAndDeliversToSubscribers) {
  const auto sub = redis_.Connect();
  EXPECT_EQ(On(sub, {"SUBSCRIBE", "ch", "other"}),
            Arr({Str("subscribe"), Str("ch"), Int(1)}));
  EXPECT_EQ(redis_.TakePushes(sub),
            std::vector<Reply>{Arr({Str("subscribe"), Str("other"), Int(2)})});
  EXPECT_EQ(Do({"PUBLISH", "ch", "hello"}), Int(1));
  EXPECT_EQ(Do({"PUBLISH", "nobody", "hello"}), Int(0));
  EXPECT_EQ(redis_.TakePushes(sub),
            std::vector<Reply>{Arr({Str("message"), Str("ch"), Str("hello")})});
}

// PUBLISH counts and reaches the connections subscribed now: not one that
// unsubscribed, closed, or was lost with the server's crash.
TEST_F(VirtualRedisTest, PublishReachesOnlyTheCurrentSubscribers) {
  const auto a = redis_.Connect(), b = redis_.Connect(), c = redis_.Connect();
  for (auto conn : {a, b, c}) On(conn, {"SUBSCRIBE", "ch"});
  EXPECT_EQ(Do({"PUBLISH", "ch", "1"}), Int(3));
  On(a, {"UNSUBSCRIBE", "ch"});
  redis_.Disconnect(b);
  EXPECT_EQ(Do({"PUBLISH", "ch", "2"}), Int(1));
  EXPECT_EQ(redis_.TakePushes(a),
            std::vector<Reply>{Arr({Str("message"), Str("ch"), Str("1")})});
  EXPECT_EQ(redis_.TakePushes(c),
            (std::vector<Reply>{Arr({Str("message"), Str("ch"), Str("1")}),
                                Arr({Str("message"), Str("ch"), Str("2")})}));
  On(a, {"SUBSCRIBE", "ch"});
  EXPECT_EQ(Do({"PUBLISH", "ch", "3"}), Int(2));
  redis_.Crash(false);
  EXPECT_EQ(Do({"PUBLISH", "ch", "4"}), Int(0));
}

TEST_F(VirtualRedisTest, SubscribedConnectionOnlyAcceptsPubSubCommands) {
  const auto sub = redis_.Connect();
  On(sub, {"SUBSCRIBE", "ch"});
  EXPECT_EQ(On(sub, {"GET", "k"}),
            Err("ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT "
                "/ RESET are allowed in this context"));
  EXPECT_EQ(On(sub, {"EXEC"}),
            Err("EXECABORT Transaction discarded because of: Can't execute 'exec': only "
                "(P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this "
                "context"));
  EXPECT_EQ(On(sub, {"PING"}), Arr({Str("pong"), Str("")}));
  EXPECT_EQ(On(sub, {"UNSUBSCRIBE"}), Arr({Str("unsubscribe"), Str("ch"), Int(0)}));
  EXPECT_EQ(On(sub, {"UNSUBSCRIBE"}), Arr({Str("unsubscribe"), Reply::Nil(), Int(0)}));
  EXPECT_EQ(On(sub, {"PING"}), Reply::Status("PONG"));
}

// ---- Propagation (replication.cc) ----

TEST_F(VirtualRedisTest, ExpirePropagatesAsPexpireatWithItsOptions) {
  Do({"SET", "k", "v"});
  Do({"EXPIRE", "k", "10", "LT"});
  Do({"pexpireat", "k", std::to_string(kT0 + 5000)});
  Do({"EXPIRE", "k", "-1"});
  EXPECT_EQ(redis_.TakeReplicationStream(),
            (std::vector<Command>{{"SET", "k", "v"},
                                  {"PEXPIREAT", "k", std::to_string(kT0 + 10000), "LT"},
                                  {"pexpireat", "k", std::to_string(kT0 + 5000)},
                                  {"DEL", "k"}}));
}

TEST_F(VirtualRedisTest, StringWritesPropagateAsRedisRewritesThem) {
  Do({"SET", "k", "a", "EX", "10"});
  Do({"SET", "k", "b", "GET"});
  Do({"GETSET", "k", "c"});
  Do({"GETDEL", "k"});
  Do({"GETDEL", "k"});           // nothing deleted: nothing propagated
  Do({"SET", "k", "d", "NX"});
  Do({"SET", "k", "e", "NX"});   // not set: nothing propagated
  Do({"INCR", "n"});
  EXPECT_EQ(redis_.TakeReplicationStream(),
            (std::vector<Command>{{"SET", "k", "a", "PXAT", std::to_string(kT0 + 10000)},
                                  {"SET", "k", "b"},
                                  {"SET", "k", "c"},
                                  {"DEL", "k"},
                                  {"SET", "k", "d", "NX"},
                                  {"INCR", "n"}}));
}

TEST_F(VirtualRedisTest, LazyExpiryAndTheWriteThatFollowsPropagateAsOneTransaction) {
  Do({"SET", "k", "v", "PX", "10"});
  redis_.TakeReplicationStream();
  Do({"SET", "k", "w"}, kT0 + 20);
  Do({"SET", "j", "v", "PX", "10"}, kT0 + 20);
  Do({"GET", "j"}, kT0 + 40);  // a read that expires: the DEL alone
  EXPECT_EQ(redis_.TakeReplicationStream(),
            (std::vector<Command>{{"MULTI"},
                                  {"DEL", "k"},
                                  {"SET", "k", "w"},
                                  {"EXEC"},
                                  {"SET", "j", "v", "PXAT", std::to_string(kT0 + 30)},
                                  {"DEL", "j"}}));
}

TEST_F(VirtualRedisTest, ExecPropagatesItsWritesTogether) {
  Do({"MULTI"});
  Do({"SET", "a", "1"});
  Do({"GET", "a"});
  Do({"EXEC"});
  Do({"MULTI"});
  Do({"SET", "a", "2"});
  Do({"HSET", "a", "f", "v"});  // WRONGTYPE: not propagated
  Do({"SET", "b", "2"});
  Do({"EXEC"});
  EXPECT_EQ(redis_.TakeReplicationStream(),
            (std::vector<Command>{{"SET", "a", "1"},  // a single write needs no MULTI
                                  {"MULTI"},
                                  {"SET", "a", "2"},
                                  {"SET", "b", "2"},
                                  {"EXEC"}}));
}

}  // namespace
}  // namespace locksim

namespace locksim {
namespace {

// The virtual world looks at the watched keys after a command only when the
// command moved server.dirty (VirtualWorld::ServeRequest): that is sound
// only if every command that changes a key's value or expiry moves it.
// Thousands of random commands, each of the key-writing kinds with its
// options, in and out of MULTI and scripts, over a clock that moves: after
// none did a key change while dirty stood still.
TEST(VirtualRedisDirty, EveryCommandThatChangesAKeyMovesDirty) {
  VirtualRedis redis;
  const VirtualRedis::ConnId conn = redis.Connect();
  Random random(20261127);
  const std::vector<std::string> keys = {"k", "h", "n"};
  auto pick = [&](const std::vector<std::string>& of) {
    return of[random.Uniform(of.size())];
  };
  const std::vector<std::string> values = {"a", "b", "1", "7"};
  const std::vector<std::string> ttls = {"1", "5", "50", "0", "-1"};
  const std::vector<std::string> scripts = {
      std::string(kCompareAndDeleteScript),
      "return redis.call('set', KEYS[1], ARGV[1], 'px', 20)",
      "if redis.call('exists', KEYS[1]) == 0 then return redis.call('hincrby', KEYS[1], ARGV[1], 1) "
      "end return redis.call('pexpire', KEYS[1], 30)",
      "return redis.call('get', KEYS[1])"};
  int64_t now = kT0;
  std::map<std::string, VirtualRedis::KeySeen> seen;
  int changes = 0;
  for (int i = 0; i < 20000; ++i) {
    now += random.Between(0, 4);
    const std::string key = pick(keys);
    const std::string value = pick(values);
    Command cmd;
    switch (random.Uniform(18)) {
      case 0: cmd = {"SET", key, value}; break;
      case 1: cmd = {"SET", key, value, "NX", "PX", pick(ttls)}; break;
      case 2: cmd = {"SET", key, value, "XX", "KEEPTTL"}; break;
      case 3: cmd = {"SET", key, value, "GET", "EX", pick(ttls)}; break;
      case 4: cmd = {"SETNX", key, value}; break;
      case 5: cmd = {"GETSET", key, value}; break;
      case 6: cmd = {"GETDEL", key}; break;
      case 7: cmd = {"DEL", key, pick(keys)}; break;
      case 8: cmd = {"PEXPIRE", key, pick(ttls)}; break;
      case 9: cmd = {"EXPIRE", key, pick(ttls), random.Uniform(2) ? "NX" : "GT"}; break;
      case 10: cmd = {"PEXPIREAT", key, std::to_string(now + random.Between(-5, 50))}; break;
      case 11: cmd = {"PERSIST", key}; break;
      case 12: cmd = {"INCR", key}; break;
      case 13: cmd = {"HSET", key, value, value}; break;
      case 14: cmd = {"HINCRBY", key, value, "-1"}; break;
      case 15: cmd = {"HDEL", key, value}; break;
      case 16: cmd = {"EVAL", pick(scripts), "1", key, value}; break;
      default: cmd = {"GET", key}; break;
    }
    // As the world does: what time alone changed is looked at first.
    for (const std::string& k : keys) redis.LookAtKey(k, now, &seen[k]);
    const int64_t dirty = redis.dirty();
    if (random.Uniform(5) == 0) {
      redis.Execute(conn, {"MULTI"}, now);
      redis.Execute(conn, cmd, now);
      redis.Execute(conn, {"EXEC"}, now);
    } else {
      redis.Execute(conn, cmd, now);
    }
    for (const std::string& k : keys) {
      if (redis.LookAtKey(k, now, &seen[k]) == VirtualRedis::KeyChange::kNone) continue;
      ++changes;
      ASSERT_NE(redis.dirty(), dirty) << "command " << i << ": " << FormatCommand(cmd)
                                      << " changed " << k << " and left dirty at " << dirty;
    }
  }
  EXPECT_GT(changes, 5000);  // the commands did change keys, often
}

}  // namespace
}  // namespace locksim
