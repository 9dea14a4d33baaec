// Framing of the requests a client sends to `locksim serve`: RESP arrays of
// bulk strings, parsed by hiredis's redisReader (no hand-written parser).
// Kept apart from the socket loop so that the fuzzer (tests/fuzz/) drives
// exactly the code serve runs.
#ifndef LOCKSIM_SIM_SERVE_REQUEST_READER_H_
#define LOCKSIM_SIM_SERVE_REQUEST_READER_H_

#include <cstddef>
#include <memory>
#include <string>

#include "sim/core/reply.h"

struct redisReader;
struct redisReadTask;
struct redisReplyObjectFunctions;

namespace locksim {

// Redis's client-query-buffer-limit default: a request still being received
// may hold this much before the client is dropped.
inline constexpr size_t kMaxQueryBytes = size_t{1} << 30;

// The most arguments one request may have. hiredis 0.14 allocates a
// request's whole argument table as soon as it reads "*<count>", where Redis
// grows it as arguments arrive: without a bound, the 13 bytes "*1000000000\r\n"
// made serve allocate 8 GB (found by fuzz_resp_request). Redis caps its first
// allocation at this same count.
inline constexpr int kMaxRequestArguments = 1024 * 1024;

class RequestReader {
 public:
  RequestReader();  // throws HarnessError if hiredis cannot allocate
  ~RequestReader();
  RequestReader(const RequestReader&) = delete;
  RequestReader& operator=(const RequestReader&) = delete;

  enum class Status {
    kRequest,   // *argv holds the next request (never empty)
    kNeedMore,  // no complete request buffered: feed more bytes
    kError,     // *error says what is wrong; nothing after it can be framed
  };
  void Feed(const char* data, size_t n);
  // The next complete request. "*0" and "*-1" are skipped, as Redis does.
  // After kError every call returns kError.
  Status Next(Command* argv, std::string* error);

 private:
  struct Free {
    void operator()(redisReader* r) const;
  };
  // hiredis's array constructor behind a check of the count and the depth.
  static void* CreateArray(const redisReadTask* task, int elements);

  // hiredis's own reply constructors with createArray replaced. The reader
  // points at this and frees its pending reply through it: declared first,
  // so that it outlives the reader.
  std::unique_ptr<redisReplyObjectFunctions> functions_;
  void* (*default_create_array_)(const redisReadTask*, int) = nullptr;
  std::unique_ptr<redisReader, Free> reader_;
  std::string refused_;  // why CreateArray refused an array, if it did
  std::string error_;    // set once the stream is broken
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_SERVE_REQUEST_READER_H_
