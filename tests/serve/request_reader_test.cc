// RequestReader: how `locksim serve` frames what a client sends.
#include "sim/serve/request_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace locksim {
namespace {

// Feeds `bytes` and reads everything it frames; the error, if any.
struct Framed {
  std::vector<Command> requests;
  std::string error;
  bool need_more = false;
};

Framed Frame(const std::string& bytes) {
  RequestReader reader;
  reader.Feed(bytes.data(), bytes.size());
  Framed out;
  for (;;) {
    Command argv;
    const RequestReader::Status s = reader.Next(&argv, &out.error);
    if (s == RequestReader::Status::kRequest) {
      out.requests.push_back(argv);
    } else {
      out.need_more = s == RequestReader::Status::kNeedMore;
      return out;
    }
  }
}

TEST(RequestReaderTest, FramesArraysOfBulkStringsAndSkipsEmptyOnes) {
  const Framed f = Frame("*0\r\n*-1\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n*1\r\n$4\r\nPI");
  ASSERT_EQ(f.requests.size(), 1u);
  EXPECT_EQ(f.requests[0], (Command{"GET", "k"}));
  EXPECT_TRUE(f.need_more);
  EXPECT_EQ(f.error, "");
}

TEST(RequestReaderTest, AHugeArgumentCountIsRefusedBeforeAnythingIsAllocated) {
  // Found by fuzz_resp_request: hiredis 0.14 allocates the argument table
  // when it reads the count, 8 GB for this one.
  const Framed f = Frame("*1000000000\r\n");
  EXPECT_TRUE(f.requests.empty());
  EXPECT_FALSE(f.need_more);
  EXPECT_EQ(f.error,
            "invalid multibulk length (1000000000 arguments; locksim serve takes at most "
            "1048576)");
  // The largest count allowed is still framed (and waits for its arguments).
  EXPECT_TRUE(Frame("*1048576\r\n$4\r\nPING\r\n").need_more);
}

TEST(RequestReaderTest, ANestedArrayIsAProtocolError) {
  const Framed f = Frame("*1\r\n*1000000000\r\n");
  EXPECT_TRUE(f.requests.empty());
  EXPECT_EQ(f.error,
            "expected an array of bulk strings (locksim serve does not accept inline commands)");
  EXPECT_EQ(Frame("*2\r\n$3\r\nGET\r\n:1\r\n").error, f.error);
}

TEST(RequestReaderTest, AfterAnErrorNothingMoreIsFramed) {
  RequestReader reader;
  const std::string bad = "PING\r\n";
  reader.Feed(bad.data(), bad.size());
  Command argv;
  std::string error;
  EXPECT_EQ(reader.Next(&argv, &error), RequestReader::Status::kError);
  const std::string good = "*1\r\n$4\r\nPING\r\n";
  reader.Feed(good.data(), good.size());
  EXPECT_EQ(reader.Next(&argv, &error), RequestReader::Status::kError);
  EXPECT_FALSE(error.empty());
}

}  // namespace
}  // namespace locksim
