// RedisOracle: a real redis-server 7 started for a test, on 127.0.0.1, whose
// wall clock is frozen by the clock shim at a time the test controls. Paired
// with a VirtualRedis given the same time, every reply must be identical,
// time-dependent ones (PTTL, expiry) included. The server runs with
// --enable-debug-command local, so a test can turn its active expiry off
// (DEBUG SET-ACTIVE-EXPIRE 0) and compare DBSIZE with a virtual Redis whose
// Cron() it never calls.
#ifndef LOCKSIM_TESTS_TESTING_REDIS_ORACLE_H_
#define LOCKSIM_TESTS_TESTING_REDIS_ORACLE_H_

#include <hiredis/hiredis.h>
#include <stdlib.h>

#include <sys/time.h>

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/real/clock_control.h"
#include "sim/real/hiredis_reply.h"
#include "sim/real/redis_server.h"
#include "sim/core/reply.h"

namespace locksim {

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
    if (admin_ != nullptr) redisFree(admin_);
    server_.reset();
    clock_.reset();
    std::filesystem::remove_all(dir_);
  }

  // A new client connection; returns its index for Send(). Reads on it time
  // out after kReadTimeoutMs, so that a reply or push that never comes
  // fails (and breaks the connection) instead of hanging the test.
  int Connect() {
    conns_.push_back(NewContext());
    ids_.push_back(ClientId(conns_.back()));
    return static_cast<int>(conns_.size()) - 1;
  }

  // Sends one command on connection `conn` and returns the reply.
  Reply Send(int conn, const Command& cmd) { return SendOn(conns_[conn], cmd); }

  // Reads one more reply (a pub/sub push) on `conn`; blocks up to the timeout.
  Reply ReadPush(int conn) {
    void* r = nullptr;
    if (redisGetReply(conns_[conn], &r) != REDIS_OK || r == nullptr) return Lost(conns_[conn]);
    Reply out = ReplyFromHiredis(static_cast<redisReply*>(r));
    freeReplyObject(r);
    return out;
  }

  // A command on the oracle's own connection, which no test stream uses
  // (FLUSHALL, DEBUG SET-ACTIVE-EXPIRE 0, CLIENT KILL).
  Reply Admin(const Command& cmd) {
    if (admin_ == nullptr) admin_ = NewContext();
    return SendOn(admin_, cmd);
  }

  // Brings connection `conn` back to a new client's state: no MULTI, no
  // WATCH, no subscription, nothing left unread. DISCARD leaves MULTI (a
  // subscribed client gets an error instead), UNSUBSCRIBE answers once per
  // channel and its last notice says 0 channels are left (whatever was
  // unread before it is dropped), UNWATCH must then answer OK. A connection
  // that broke, or that does not end up answering as expected, is killed
  // on the server (CLIENT KILL is synchronous, so it cannot linger as a
  // subscriber) and replaced.
  void ResetConnection(int conn) {
    bool clean = conns_[conn]->err == 0;
    if (clean) Send(conn, {"DISCARD"});
    if (clean && conns_[conn]->err == 0) {
      Reply r = Send(conn, {"UNSUBSCRIBE"});
      for (int unread = 0; !IsLastUnsubscribe(r); ++unread) {
        if (conns_[conn]->err != 0 || unread > 1000) break;
        r = ReadPush(conn);
      }
      clean = conns_[conn]->err == 0 && IsLastUnsubscribe(r) && Send(conn, {"UNWATCH"}).IsOk();
    }
    if (clean) return;
    Admin({"CLIENT", "KILL", "ID", std::to_string(ids_[conn])});
    redisFree(conns_[conn]);
    conns_[conn] = NewContext();
    ids_[conn] = ClientId(conns_[conn]);
  }

  int64_t now_ms() const { return now_ms_; }
  void Advance(int64_t ms) { SetTime(now_ms_ + ms); }
  void SetTime(int64_t ms) {
    now_ms_ = ms;
    clock_->Freeze(std::chrono::milliseconds(now_ms_));
  }
  int port() const { return server_->port(); }
  // The server's --dir (where CONFIG SET appendonly yes writes the AOF).
  const std::string& server_dir() const { return server_->dir(); }

 private:
  static constexpr int kReadTimeoutMs = 2000;

  static bool IsLastUnsubscribe(const Reply& r) {
    return r.type == Reply::Type::kArray && r.elements.size() == 3 &&
           r.elements[0] == Reply::String("unsubscribe") && r.elements[2].IsInteger(0);
  }

  redisContext* NewContext() {
    redisContext* c = redisConnect("127.0.0.1", server_->port());
    if (c == nullptr || c->err) throw std::runtime_error("cannot connect to the oracle");
    timeval tv{kReadTimeoutMs / 1000, (kReadTimeoutMs % 1000) * 1000};
    redisSetTimeout(c, tv);
    return c;
  }

  static Reply SendOn(redisContext* c, const Command& cmd) {
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (const auto& a : cmd) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    auto* r = static_cast<redisReply*>(
        redisCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lens.data()));
    if (r == nullptr) return Lost(c);
    Reply out = ReplyFromHiredis(r);
    freeReplyObject(r);
    return out;
  }

  // What a read that failed (timed out, or the server went away) returns.
  static Reply Lost(const redisContext* c) {
    return Reply::Error(std::string("(no reply: ") + c->errstr + ")");
  }

  static int64_t ClientId(redisContext* c) { return SendOn(c, {"CLIENT", "ID"}).integer; }

  int64_t now_ms_;
  std::string dir_;
  std::unique_ptr<ClockControl> clock_;
  std::unique_ptr<RedisServer> server_;
  std::vector<redisContext*> conns_;
  std::vector<int64_t> ids_;  // CLIENT ID of each connection
  redisContext* admin_ = nullptr;
};

}  // namespace locksim

#endif  // LOCKSIM_TESTS_TESTING_REDIS_ORACLE_H_
