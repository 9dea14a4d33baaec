// RedisOracle: a real redis-server 7 started for a test, on 127.0.0.1, whose
// wall clock is frozen by the clock shim at a time the test controls. Paired
// with a VirtualRedis given the same time, every reply must be identical,
// time-dependent ones (PTTL, expiry) included.
#ifndef LOCKSIM_TESTS_REDIS_ORACLE_H_
#define LOCKSIM_TESTS_REDIS_ORACLE_H_

#include <hiredis/hiredis.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "sim/real/clock_control.h"
#include "sim/real/redis_server.h"
#include "sim/reply.h"

namespace locksim {

inline Reply ReplyFromHiredis(const redisReply* r) {
  switch (r->type) {
    case REDIS_REPLY_STATUS: return Reply::Status(std::string(r->str, r->len));
    case REDIS_REPLY_ERROR: return Reply::Error(std::string(r->str, r->len));
    case REDIS_REPLY_INTEGER: return Reply::Integer(r->integer);
    case REDIS_REPLY_STRING: return Reply::String(std::string(r->str, r->len));
    case REDIS_REPLY_ARRAY: {
      std::vector<Reply> e;
      for (size_t i = 0; i < r->elements; ++i) e.push_back(ReplyFromHiredis(r->element[i]));
      return Reply::Array(std::move(e));
    }
    default: return Reply::Nil();
  }
}

class RedisOracle {
 public:
  // Starts the server with its clock frozen at `start_ms` (unix ms).
  explicit RedisOracle(int64_t start_ms) : now_ms_(start_ms) {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "locksim-oracle-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    clock_ = std::make_unique<ClockControl>(dir_ + "/clock");
    clock_->Freeze(std::chrono::milliseconds(now_ms_));
    RedisServerOptions options;
    options.clock_shim = ClockControl::ShimPath();
    options.clock_file = clock_->path();
    server_ = RedisServer::Start(options);
  }
  ~RedisOracle() {
    for (redisContext* c : conns_) redisFree(c);
    server_.reset();
    clock_.reset();
    std::filesystem::remove_all(dir_);
  }

  // A new client connection; returns its index for Send().
  int Connect() {
    redisContext* c = redisConnect("127.0.0.1", server_->port());
    if (c == nullptr || c->err) throw std::runtime_error("cannot connect to the oracle");
    conns_.push_back(c);
    return static_cast<int>(conns_.size()) - 1;
  }

  // Sends one command on connection `conn` and returns the reply.
  Reply Send(int conn, const Command& cmd) {
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (const auto& a : cmd) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    auto* r = static_cast<redisReply*>(redisCommandArgv(
        conns_[conn], static_cast<int>(argv.size()), argv.data(), lens.data()));
    if (r == nullptr) return Reply::Error("(connection lost)");
    Reply out = ReplyFromHiredis(r);
    freeReplyObject(r);
    return out;
  }

  // Reads one more reply (a pub/sub push) on `conn`; blocks.
  Reply ReadPush(int conn) {
    void* r = nullptr;
    if (redisGetReply(conns_[conn], &r) != REDIS_OK || r == nullptr) {
      return Reply::Error("(connection lost)");
    }
    Reply out = ReplyFromHiredis(static_cast<redisReply*>(r));
    freeReplyObject(r);
    return out;
  }

  int64_t now_ms() const { return now_ms_; }
  void Advance(int64_t ms) { SetTime(now_ms_ + ms); }
  void SetTime(int64_t ms) {
    now_ms_ = ms;
    clock_->Freeze(std::chrono::milliseconds(now_ms_));
  }
  int port() const { return server_->port(); }

 private:
  int64_t now_ms_;
  std::string dir_;
  std::unique_ptr<ClockControl> clock_;
  std::unique_ptr<RedisServer> server_;
  std::vector<redisContext*> conns_;
};

}  // namespace locksim

#endif  // LOCKSIM_TESTS_REDIS_ORACLE_H_
