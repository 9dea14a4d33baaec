#include "sim/vredis/server.h"

#include <gtest/gtest.h>

#include "lockimpls/set_nx_px/set_nx_px.h"

namespace locksim {
namespace {

constexpr int64_t kT0 = 1704067200000;  // unix ms

class VirtualRedisTest : public ::testing::Test {
 protected:
  Reply Do(Command argv, int64_t at = kT0) { return redis_.Execute(argv, at); }
  VirtualRedis redis_;
};

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

}  // namespace
}  // namespace locksim
