// The RESP2 encoder of `locksim serve`: exact bytes, and hiredis (the parser
// every client library of the C family uses) reads them back as written.
#include "sim/serve/resp.h"

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <memory>
#include <string>

#include "tests/testing/redis_oracle.h"

namespace locksim {
namespace {

std::string Encode(const Reply& r, NilAs nil = NilAs::kBulk) {
  std::string out;
  AppendResp(r, &out, nil);
  return out;
}

TEST(RespTest, EveryReplyTypeAsRedisWritesIt) {
  EXPECT_EQ(Encode(Reply::Ok()), "+OK\r\n");
  EXPECT_EQ(Encode(Reply::Error("ERR syntax error")), "-ERR syntax error\r\n");
  EXPECT_EQ(Encode(Reply::Integer(0)), ":0\r\n");
  EXPECT_EQ(Encode(Reply::Integer(-2)), ":-2\r\n");
  EXPECT_EQ(Encode(Reply::Integer(INT64_MIN)), ":-9223372036854775808\r\n");
  EXPECT_EQ(Encode(Reply::String("")), "$0\r\n\r\n");
  EXPECT_EQ(Encode(Reply::String(std::string("a\r\n\0b", 5))),
            std::string("$5\r\na\r\n\0b\r\n", 11));
  EXPECT_EQ(Encode(Reply::Nil()), "$-1\r\n");
  EXPECT_EQ(Encode(Reply::Nil(), NilAs::kArray), "*-1\r\n");
  EXPECT_EQ(Encode(Reply::Array({})), "*0\r\n");
}

TEST(RespTest, NilInsideAnArrayIsAlwaysANilBulk) {
  // EXEC's replies with a GET of a missing key: only a top-level nil can be *-1.
  const Reply r = Reply::Array({Reply::Ok(), Reply::Nil(), Reply::Array({Reply::Integer(1)})});
  EXPECT_EQ(Encode(r, NilAs::kArray), "*3\r\n+OK\r\n$-1\r\n*1\r\n:1\r\n");
}

TEST(RespTest, NewlinesInStatusAndErrorBecomeSpaces) {
  EXPECT_EQ(Encode(Reply::Error("ERR a\r\nb")), "-ERR a  b\r\n");
  EXPECT_EQ(Encode(Reply::Status("x\ny")), "+x y\r\n");
}

TEST(RespTest, HiredisReadsBackWhatWasWritten) {
  const Reply r = Reply::Array({Reply::Status("QUEUED"), Reply::Error("WRONGTYPE x"),
                                Reply::Integer(42), Reply::String(std::string("\0\xff", 2)),
                                Reply::Nil(), Reply::Array({Reply::String("message")})});
  const std::string bytes = Encode(r);
  std::unique_ptr<redisReader, decltype(&redisReaderFree)> reader(redisReaderCreate(),
                                                                   &redisReaderFree);
  ASSERT_EQ(redisReaderFeed(reader.get(), bytes.data(), bytes.size()), REDIS_OK);
  void* object = nullptr;
  ASSERT_EQ(redisReaderGetReply(reader.get(), &object), REDIS_OK);
  ASSERT_NE(object, nullptr);
  EXPECT_EQ(ReplyFromHiredis(static_cast<redisReply*>(object)), r);
  freeReplyObject(object);
}

}  // namespace
}  // namespace locksim
