// The virtual Redis against a real redis-server 7.0, command for command.
//
// The server runs with the clock shim and its wall clock frozen at exactly
// the time the virtual node is given, so replies that depend on time (TTL,
// PTTL, expiry) must match to the millisecond, not approximately. Its active
// expiry is off (DEBUG SET-ACTIVE-EXPIRE 0) and the virtual node's Cron() is
// never called, so both only expire keys lazily and DBSIZE compares too.
//
// A seeded generator writes random command streams over three connections:
// every string, key, expiry and hash command the virtual Redis models,
// MULTI/EXEC/WATCH blocks with other connections' writes interleaved, pub/
// sub, type errors, wrong arities, unknown commands, relative and absolute
// expiry times, and the clock moving forward between commands. Streams run
// in episodes of a few hundred commands from an empty server; every reply
// and every pub/sub push is compared. A divergent episode is shrunk by delta
// debugging to the shortest stream that still diverges, and printed with
// its seed.
//
// LOCKSIM_DIFF_COMMANDS sets how many commands to run (default 100 000; the
// `long` ctest label runs 1 000 000), LOCKSIM_DIFF_SEED the seed, and
// LOCKSIM_DIFF_DUMP=N prints episode N with the real server's replies.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "sim/core/random.h"
#include "sim/vredis/server.h"
#include "tests/testing/redis_oracle.h"

namespace locksim {
namespace {

constexpr int64_t kStartMs = 1704067200000;  // 2024-01-01T00:00:00Z
constexpr int kConns = 3;

// One step of a stream: a command on one connection, or (cmd empty) the
// clock of both servers moving forward.
struct Step {
  int conn = 0;
  Command cmd;
  int64_t advance_ms = 0;
};
using Stream = std::vector<Step>;

std::string FormatStep(const Step& s) {
  if (s.cmd.empty()) return "clock +" + std::to_string(s.advance_ms) + "ms";
  return "c" + std::to_string(s.conn) + "> " + FormatCommand(s.cmd);
}

bool IsCommand(const Command& cmd, std::string_view upper) {
  return !cmd.empty() && IsKeyword(cmd[0], upper);
}

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return std::strtoll(v, nullptr, 10);
}

// What the real server answered, by kind, to show what a run exercised.
class Coverage {
 public:
  void Count(const Command& cmd, const Reply& reply) {
    if (IsCommand(cmd, "EXEC")) {
      if (reply.type == Reply::Type::kArray) {
        ++counts_["EXEC ran"];
        for (const Reply& e : reply.elements) {
          if (e.IsError()) ++counts_["error inside EXEC"];
        }
      } else if (reply.IsNil()) {
        ++counts_["EXEC nil (watched key touched)"];
      } else if (reply.str.starts_with("EXECABORT")) {
        ++counts_["EXECABORT"];
      }
    }
    if (reply.IsError()) {
      const std::string& e = reply.str;
      ++counts_[e.starts_with("WRONGTYPE")              ? "WRONGTYPE"
                : e.find("wrong number") != e.npos      ? "wrong arity"
                : e.find("unknown command") != e.npos   ? "unknown command"
                : e.find("syntax") != e.npos            ? "syntax error"
                : e.find("only (P|S)SUBSCRIBE") != e.npos ? "rejected while subscribed"
                                                        : "other error"];
    }
    if ((IsCommand(cmd, "GET") || IsCommand(cmd, "TTL") || IsCommand(cmd, "PTTL")) &&
        (reply.IsNil() || reply.IsInteger(-2))) {
      ++counts_["missing or expired key read"];
    }
  }
  void CountPush() { ++counts_["pub/sub push"]; }
  std::string ToString() const {
    std::string out;
    for (const auto& [what, n] : counts_) {
      out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + what;
    }
    return out;
  }

 private:
  std::map<std::string, int64_t> counts_;
};

// One replay from scratch: a new VirtualRedis, and the oracle brought back
// to an empty keyspace with kConns clean connections, both at kStartMs.
class Session {
 public:
  explicit Session(RedisOracle& oracle, Coverage* coverage = nullptr)
      : oracle_(oracle), coverage_(coverage) {
    for (int c = 0; c < kConns; ++c) {
      oracle_.ResetConnection(c);
      vconns_.push_back(c == 0 ? VirtualRedis::kDefaultConn : vredis_.Connect());
    }
    oracle_.Admin({"FLUSHALL"});
    oracle_.SetTime(kStartMs);
  }

  int64_t now_ms() const { return now_ms_; }
  bool InMulti(int c) const { return vredis_.InMulti(vconns_[c]); }
  size_t Subscriptions(int c) const { return vredis_.Subscriptions(vconns_[c]); }

  // Whether `s` keeps the two servers comparable. Two pub/sub cases do not,
  // and the generator (and a shrunk candidate) must avoid them: UNSUBSCRIBE
  // without channels lists them in the order of the server's dict, whose
  // hash seed is random per process; and a (UN)SUBSCRIBE queued in MULTI
  // that answers more than once puts more replies on the wire than EXEC
  // announced, so the protocol loses step.
  bool Valid(const Step& s) const {
    const bool subscribe = IsCommand(s.cmd, "SUBSCRIBE");
    const bool unsubscribe = IsCommand(s.cmd, "UNSUBSCRIBE");
    if (!subscribe && !unsubscribe) return true;
    if (InMulti(s.conn)) return subscribe ? s.cmd.size() <= 2 : s.cmd.size() == 2;
    return !(unsubscribe && s.cmd.size() == 1 && Subscriptions(s.conn) > 1);
  }

  // Runs `s` on both servers. On a difference, returns what differed.
  std::optional<std::string> Run(const Step& s, Reply* real_out = nullptr,
                                 Reply* virtual_out = nullptr) {
    if (s.cmd.empty()) {
      now_ms_ += s.advance_ms;
      oracle_.SetTime(now_ms_);
      return std::nullopt;
    }
    Reply real = oracle_.Send(s.conn, s.cmd);
    Reply virt = vredis_.Execute(vconns_[s.conn], s.cmd, now_ms_);
    if (coverage_ != nullptr) coverage_->Count(s.cmd, real);
    last_pushes_.clear();
    if (real_out != nullptr) *real_out = real;
    if (virtual_out != nullptr) *virtual_out = virt;
    if (!(real == virt)) {
      return "real: " + real.ToString() + "\n    virtual: " + virt.ToString();
    }
    // The pushes the command caused, connection by connection: each one the
    // virtual Redis queued must arrive on the real connection. (A push only
    // the real server sent shows up at that connection's next reply, or at
    // the Barrier().)
    for (int c = 0; c < kConns; ++c) {
      for (const Reply& push : vredis_.TakePushes(vconns_[c])) {
        Reply real_push = oracle_.ReadPush(c);
        if (coverage_ != nullptr) coverage_->CountPush();
        last_pushes_.push_back("push on c" + std::to_string(c) + ": " + real_push.ToString());
        if (!(real_push == push)) {
          return "push on c" + std::to_string(c) + ": real: " + real_push.ToString() +
                 "\n    virtual: " + push.ToString();
        }
      }
    }
    return std::nullopt;
  }

  // What the virtual node propagated so far (replication.cc).
  std::vector<Command> TakeReplicationStream() { return vredis_.TakeReplicationStream(); }

  // The pushes that came with the last command, for traces.
  const std::vector<std::string>& last_pushes() const { return last_pushes_; }

  // PING on every connection: anything the real server sent that the
  // virtual one did not arrives in place of a PING's reply.
  std::optional<std::string> Barrier() {
    for (int c = 0; c < kConns; ++c) {
      const Step ping{c, {"PING"}, 0};
      if (auto d = Run(ping)) return "at the final " + FormatStep(ping) + ": " + *d;
    }
    return std::nullopt;
  }

 private:
  RedisOracle& oracle_;
  Coverage* coverage_;
  VirtualRedis vredis_;
  std::vector<VirtualRedis::ConnId> vconns_;
  int64_t now_ms_ = kStartMs;
  std::vector<std::string> last_pushes_;
};

// The random command streams. Keys come from a small pool shared by all
// connections, so that transactions collide with other connections' writes
// and commands meet keys of the other type.
class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  // The next step for `session`'s current state; always Valid() for it.
  Step Next(const Session& session) {
    if (rng_.Uniform(4) == 0) return Step{0, {}, Advance()};
    const int c = static_cast<int>(rng_.Uniform(kConns));
    std::deque<Step>& plan = plans_[c];
    Step s{c, {}, 0};
    if (!plan.empty()) {
      s = std::move(plan.front());
      plan.pop_front();
    } else if (session.Subscriptions(c) > 0) {
      s.cmd = SubscribedCommand(session.Subscriptions(c));
    } else if (session.InMulti(c) && rng_.Uniform(3) == 0) {
      s.cmd = {Case(rng_.Uniform(4) == 0 ? "DISCARD" : "EXEC")};
    } else if (rng_.Uniform(100) < 7) {
      plan = Transaction(c, session.now_ms());
      s = std::move(plan.front());
      plan.pop_front();
    } else {
      s.cmd = RandomCommand(session.now_ms());
    }
    if (!session.Valid(s)) s.cmd = {"PING"};
    return s;
  }

 private:
  std::string Pick(const std::vector<std::string>& v) { return v[rng_.Uniform(v.size())]; }
  bool OneIn(uint64_t n) { return rng_.Uniform(n) == 0; }

  // Command names and options in upper, lower or mixed case.
  std::string Case(std::string word) {
    switch (rng_.Uniform(8)) {
      case 0:
        for (char& ch : word) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        break;
      case 1:
        word[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(word[0])));
        break;
    }
    return word;
  }

  int64_t Advance() {
    // Mostly a few milliseconds, sometimes past a TTL of seconds.
    const uint64_t r = rng_.Uniform(10);
    if (r < 6) return rng_.Between(0, 50);
    if (r < 9) return rng_.Between(51, 1500);
    return rng_.Between(1501, 6000);
  }

  std::string StringKey() { return OneIn(7) ? Pick(kHashKeys) : Pick(kStringKeys); }
  std::string HashKey() { return OneIn(7) ? Pick(kStringKeys) : Pick(kHashKeys); }
  std::string AnyKey() { return OneIn(2) ? Pick(kStringKeys) : Pick(kHashKeys); }
  std::string Value() { return Pick(kValues); }
  std::string Field() { return Pick(kFields); }

  std::string RelativeSeconds() {
    return OneIn(6) ? Pick(kBadNumbers) : std::to_string(rng_.Between(-2, 8));
  }
  std::string RelativeMillis() {
    return OneIn(6) ? Pick(kBadNumbers) : std::to_string(rng_.Between(-500, 6000));
  }
  std::string AbsoluteSeconds(int64_t now_ms) {
    return OneIn(8) ? Pick(kBadNumbers) : std::to_string(now_ms / 1000 + rng_.Between(-3, 8));
  }
  std::string AbsoluteMillis(int64_t now_ms) {
    return OneIn(8) ? Pick(kBadNumbers) : std::to_string(now_ms + rng_.Between(-2000, 6000));
  }

  // Half of them well formed ([NX|XX] [GET] [one expiry or KEEPTTL], in
  // some order), the others any options in any number, mostly errors.
  Command Set(int64_t now_ms) {
    Command cmd = {Case("SET"), StringKey(), Value()};
    if (OneIn(2)) {
      std::vector<Command> options;
      if (OneIn(3)) options.push_back({Case(OneIn(2) ? "NX" : "XX")});
      if (OneIn(4)) options.push_back({Case("GET")});
      switch (rng_.Uniform(8)) {
        case 0: options.push_back({Case("EX"), std::to_string(rng_.Between(1, 5))}); break;
        case 1: case 2:
          options.push_back({Case("PX"), std::to_string(rng_.Between(1, 4000))});
          break;
        case 3: options.push_back({Case("EXAT"), AbsoluteSeconds(now_ms)}); break;
        case 4: options.push_back({Case("PXAT"), AbsoluteMillis(now_ms)}); break;
        case 5: options.push_back({Case("KEEPTTL")}); break;
      }
      if (options.size() == 2 && OneIn(2)) std::swap(options[0], options[1]);
      for (const Command& o : options) cmd.insert(cmd.end(), o.begin(), o.end());
      return cmd;
    }
    const int options = static_cast<int>(rng_.Uniform(4));
    for (int i = 0; i < options; ++i) {
      switch (rng_.Uniform(11)) {
        case 0: cmd.push_back(Case("NX")); break;
        case 1: cmd.push_back(Case("XX")); break;
        case 2: cmd.push_back(Case("GET")); break;
        case 3: cmd.push_back(Case("KEEPTTL")); break;
        case 4: cmd.insert(cmd.end(), {Case("EX"), RelativeSeconds()}); break;
        case 5: case 6: cmd.insert(cmd.end(), {Case("PX"), RelativeMillis()}); break;
        case 7: cmd.insert(cmd.end(), {Case("EXAT"), AbsoluteSeconds(now_ms)}); break;
        case 8: cmd.insert(cmd.end(), {Case("PXAT"), AbsoluteMillis(now_ms)}); break;
        case 9: cmd.push_back(Case("PX")); break;  // its value may be missing
        default: cmd.push_back("BOGUS"); break;
      }
    }
    return cmd;
  }

  Command Expire(int64_t now_ms) {
    Command cmd;
    switch (rng_.Uniform(4)) {
      case 0: cmd = {Case("EXPIRE"), AnyKey(), RelativeSeconds()}; break;
      case 1: cmd = {Case("PEXPIRE"), AnyKey(), RelativeMillis()}; break;
      case 2: cmd = {Case("EXPIREAT"), AnyKey(), AbsoluteSeconds(now_ms)}; break;
      default: cmd = {Case("PEXPIREAT"), AnyKey(), AbsoluteMillis(now_ms)}; break;
    }
    const uint64_t r = rng_.Uniform(10);
    const int options = r < 5 ? 0 : r < 9 ? 1 : 2;
    for (int i = 0; i < options; ++i) {
      cmd.push_back(OneIn(12) ? "BOGUS" : Case(Pick({"NX", "XX", "GT", "LT"})));
    }
    return cmd;
  }

  Command Keys(std::string name, int max) {
    Command cmd = {Case(std::move(name))};
    const int n = 1 + static_cast<int>(rng_.Uniform(max));
    for (int i = 0; i < n; ++i) cmd.push_back(AnyKey());
    return cmd;
  }

  Command Hash() {
    switch (rng_.Uniform(10)) {
      case 0: case 1: case 2: {
        Command cmd = {Case("HSET"), HashKey()};
        const int pairs = 1 + static_cast<int>(rng_.Uniform(3));
        for (int i = 0; i < pairs; ++i) cmd.insert(cmd.end(), {Field(), Value()});
        return cmd;
      }
      case 3: return {Case("HGET"), HashKey(), Field()};
      case 4: {
        Command cmd = {Case("HDEL"), HashKey()};
        const int n = 1 + static_cast<int>(rng_.Uniform(3));
        for (int i = 0; i < n; ++i) cmd.push_back(Field());
        return cmd;
      }
      case 5: return {Case("HEXISTS"), HashKey(), Field()};
      case 6: case 7:
        return {Case("HINCRBY"), HashKey(), Field(),
                OneIn(4) ? Pick(kIncrements) : std::to_string(rng_.Between(-5, 5))};
      case 8: return {Case("HGETALL"), HashKey()};
      default: return {Case("HLEN"), HashKey()};
    }
  }

  // Any command; with `malformed` false, never an unknown command nor one
  // built to have the wrong number of arguments.
  Command RandomCommand(int64_t now_ms, bool malformed = true) {
    Command cmd;
    const uint64_t r = rng_.Uniform(malformed ? 1000 : 925);
    if (r < 110) cmd = {Case("GET"), StringKey()};
    else if (r < 250) cmd = Set(now_ms);
    else if (r < 280) cmd = {Case("SETNX"), StringKey(), Value()};
    else if (r < 305) cmd = {Case("GETSET"), StringKey(), Value()};
    else if (r < 330) cmd = {Case("GETDEL"), StringKey()};
    else if (r < 370) cmd = Keys(OneIn(3) ? "UNLINK" : "DEL", 3);
    else if (r < 395) cmd = Keys("EXISTS", 3);
    else if (r < 415) cmd = {Case("TYPE"), AnyKey()};
    else if (r < 515) cmd = Expire(now_ms);
    else if (r < 545) cmd = {Case("TTL"), AnyKey()};
    else if (r < 575) cmd = {Case("PTTL"), AnyKey()};
    else if (r < 595) cmd = {Case("PERSIST"), AnyKey()};
    else if (r < 620) cmd = {Case("INCR"), StringKey()};
    else if (r < 645) cmd = {Case("INCRBY"), StringKey(),
                             OneIn(3) ? Pick(kIncrements) : std::to_string(rng_.Between(-9, 9))};
    else if (r < 660) cmd = {Case("DECR"), StringKey()};
    else if (r < 675) cmd = {Case("DBSIZE")};
    else if (r < 679) {
      cmd = {Case("FLUSHALL")};
      if (OneIn(2)) cmd.push_back(Pick({"ASYNC", "sync", "BOGUS"}));
    } else if (r < 695) {
      cmd = {Case("PING")};
      if (OneIn(2)) cmd.push_back(Value());
    } else if (r < 705) cmd = {Case("ECHO"), Value()};
    else if (r < 855) cmd = Hash();
    else if (r < 880) cmd = {Case("PUBLISH"), Pick(kChannels), Value()};
    else if (r < 893) {
      cmd = {Case("SUBSCRIBE"), Pick(kChannels)};
      if (OneIn(2)) cmd.push_back(Pick(kChannels));
    } else if (r < 900) cmd = {Case("UNSUBSCRIBE"), Pick(kChannels)};
    else if (r < 915) cmd = {Case(Pick({"MULTI", "EXEC", "DISCARD", "UNWATCH"}))};
    else if (r < 925) cmd = Keys("WATCH", 2);
    else if (r < 940) cmd = {Pick({"NOSUCHCMD", "hgetx", "SETEXX"}), AnyKey()};
    else cmd = Mutated(now_ms);
    return cmd;
  }

  // A command likely to meet a key of the other type (WRONGTYPE when run).
  Command TypeMismatch() {
    if (OneIn(2)) return {Case("HSET"), Pick(kStringKeys), Field(), Value()};
    return {Case(Pick({"INCR", "GET", "GETDEL"})), Pick(kHashKeys)};
  }

  // A command with one argument too few or too many: mostly arity errors,
  // sometimes still a valid command.
  Command Mutated(int64_t now_ms) {
    Command cmd = RandomCommand(now_ms);
    if (cmd.size() > 1 && OneIn(2)) {
      cmd.pop_back();
    } else {
      cmd.push_back(OneIn(2) ? AnyKey() : "x");
    }
    return cmd;
  }

  // What a subscribed connection sends: PING and (un)subscriptions, and now
  // and then a command it may not send in that state.
  Command SubscribedCommand(size_t channels) {
    switch (rng_.Uniform(10)) {
      case 0: case 1: return {Case("PING")};
      case 2: return {Case("PING"), Value()};
      case 3: return {Case("SUBSCRIBE"), Pick(kChannels)};
      case 4: case 5: return {Case("UNSUBSCRIBE"), Pick(kChannels)};
      case 6: return {Case("UNSUBSCRIBE"), Pick(kChannels), Pick(kChannels)};
      case 7: return {Case(Pick({"GET", "MULTI", "EXEC", "DEL", "PUBLISH"})), AnyKey()};
      case 8: return {Case(Pick({"EXEC", "MULTI", "PING"})), "x", "y"};
      default:
        if (channels <= 1) return {Case("UNSUBSCRIBE")};
        return {Case("UNSUBSCRIBE"), "ch1", "ch2", "ch3"};
    }
  }

  // A transaction block for connection `c`, as seed 000's lock release
  // does it: WATCH, read, MULTI, writes, EXEC; sometimes with a command that
  // fails to queue (EXECABORT), one that fails when run (WRONGTYPE), a
  // DISCARD, an UNWATCH instead, or a rejected EXEC.
  std::deque<Step> Transaction(int c, int64_t now_ms) {
    std::deque<Step> t;
    auto add = [&](Command cmd) { t.push_back(Step{c, std::move(cmd), 0}); };
    std::vector<std::string> watched;
    if (!OneIn(3)) {
      Command watch = {Case("WATCH"), AnyKey()};
      if (OneIn(3)) watch.push_back(AnyKey());
      watched.assign(watch.begin() + 1, watch.end());
      add(watch);
      if (OneIn(2)) {
        const std::string read = Pick({"GET", "TTL", "HGET"});
        Command cmd = {Case(read), watched[0]};
        if (read == "HGET") cmd.push_back(Field());
        add(std::move(cmd));
      }
      if (OneIn(10)) {
        add({Case("UNWATCH")});
        return t;
      }
    }
    add({Case("MULTI")});
    const int n = 1 + static_cast<int>(rng_.Uniform(5));
    for (int i = 0; i < n; ++i) {
      const uint64_t r = rng_.Uniform(60);
      if (r == 0) add({"NOSUCHCMD", AnyKey()});
      else if (r == 1) add({Case("GET")});
      else if (r == 2) add({Case(Pick({"MULTI", "WATCH"})), AnyKey()});
      else if (r < 8 && !watched.empty()) add({Case("DEL"), watched[0]});
      else if (r < 12) add(TypeMismatch());
      else add(RandomCommand(now_ms, /*malformed=*/false));
      // Keep pub/sub inside MULTI to one reply per command (Session::Valid).
      Command& last = t.back().cmd;
      if ((IsCommand(last, "SUBSCRIBE") || IsCommand(last, "UNSUBSCRIBE")) && last.size() != 2) {
        last = {Case("PING")};
      }
      if (IsCommand(last, "SUBSCRIBE") || IsCommand(last, "EXEC") ||
          IsCommand(last, "DISCARD")) {
        break;  // the transaction ends there
      }
    }
    const Command& last = t.back().cmd;
    if (IsCommand(last, "EXEC") || IsCommand(last, "DISCARD")) return t;
    const uint64_t r = rng_.Uniform(20);
    add(r < 17 ? Command{Case("EXEC")} : r < 19 ? Command{Case("DISCARD")}
                                                : Command{Case("EXEC"), "x"});
    return t;
  }

  Random rng_;
  std::deque<Step> plans_[kConns];  // the rest of a transaction, per connection

  const std::vector<std::string> kStringKeys = {"k1", "k2", "lock:a"};
  const std::vector<std::string> kHashKeys = {"h1", "h2"};
  const std::vector<std::string> kFields = {"f1", "f2", "f3", "n"};
  const std::vector<std::string> kChannels = {"ch1", "ch2", "ch3"};
  const std::vector<std::string> kValues = {
      "v1", "v2", "", "0", "1", "-1", "42", "007", "1.5", "abc", "x y",
      "9223372036854775807", "-9223372036854775808", "9223372036854775806"};
  const std::vector<std::string> kIncrements = {
      "9223372036854775807", "-9223372036854775808", "0", "1.0", "", "+1", "01", "abc",
      "100000000000000000000"};
  const std::vector<std::string> kBadNumbers = {
      "abc", "1.5", "", "+5", "007", "9223372036854775807", "-9223372036854775808",
      "9223372036854775", "9223372036854776", "-9223372036854776", "922337203685477580700"};
};

// The commands of a Redis 7 AOF file (RESP arrays of bulk strings), or
// nullopt if it does not parse.
std::optional<std::vector<Command>> ParseAof(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<Command> out;
  size_t pos = 0;
  auto number = [&](char type, int64_t* n) {
    const size_t eol = data.find("\r\n", pos);
    if (pos >= data.size() || data[pos] != type || eol == std::string::npos) return false;
    *n = std::strtoll(data.c_str() + pos + 1, nullptr, 10);
    pos = eol + 2;
    return true;
  };
  while (pos < data.size()) {
    int64_t argc, len;
    if (!number('*', &argc)) return std::nullopt;
    Command cmd;
    for (int64_t i = 0; i < argc; ++i) {
      if (!number('$', &len) || pos + static_cast<size_t>(len) + 2 > data.size()) {
        return std::nullopt;
      }
      cmd.push_back(data.substr(pos, static_cast<size_t>(len)));
      pos += static_cast<size_t>(len) + 2;
    }
    out.push_back(std::move(cmd));
  }
  return out;
}

class Differential : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int c = 0; c < kConns; ++c) oracle_.Connect();
    ASSERT_TRUE(oracle_.Admin({"DEBUG", "SET-ACTIVE-EXPIRE", "0"}).IsOk());
  }

  // Whether `stream`, replayed from scratch, still shows a divergence. A
  // stream that breaks Session::Valid() proves nothing and does not count.
  bool Diverges(const Stream& stream) {
    Session session(oracle_);
    for (const Step& s : stream) {
      if (!session.Valid(s)) return false;
      if (session.Run(s)) return true;
    }
    return session.Barrier().has_value();
  }

  // Adjacent clock steps as one: the same stream, shorter.
  static Stream MergeClockSteps(Stream stream) {
    Stream out;
    for (Step& s : stream) {
      if (s.cmd.empty() && !out.empty() && out.back().cmd.empty()) {
        out.back().advance_ms += s.advance_ms;
      } else if (!s.cmd.empty() || s.advance_ms > 0) {
        out.push_back(std::move(s));
      }
    }
    return out;
  }

  // Delta debugging (Zeller's ddmin, complements only): remove chunks of
  // 1/n of the stream while it still diverges, refining n up to single
  // steps, so that no one step of the result can be removed.
  Stream Shrink(Stream stream) {
    constexpr int kMaxReplays = 3000;
    int replays = 0;
    size_t n = 2;
    while (stream.size() >= 2 && replays < kMaxReplays) {
      const size_t chunk = (stream.size() + n - 1) / n;
      bool removed = false;
      for (size_t start = 0; start < stream.size() && replays < kMaxReplays; start += chunk) {
        Stream candidate(stream.begin(), stream.begin() + static_cast<ptrdiff_t>(start));
        const size_t end = std::min(start + chunk, stream.size());
        candidate.insert(candidate.end(), stream.begin() + static_cast<ptrdiff_t>(end),
                         stream.end());
        ++replays;
        if (Diverges(candidate)) {
          stream = std::move(candidate);
          n = std::max<size_t>(n - 1, 2);
          removed = true;
          break;
        }
      }
      if (!removed) {
        if (n >= stream.size()) break;
        n = std::min(n * 2, stream.size());
      }
    }
    return stream;
  }

  // The stream replayed once more, each command with the real reply, and
  // the virtual one where they differ.
  std::string Trace(const Stream& stream) {
    Session session(oracle_);
    std::string out;
    for (const Step& s : stream) {
      Reply real, virt;
      std::optional<std::string> d = session.Run(s, &real, &virt);
      out += "  " + FormatStep(s);
      if (!s.cmd.empty()) out += "  ->  " + real.ToString();
      out += "\n";
      for (const std::string& push : session.last_pushes()) out += "      " + push + "\n";
      if (d) return out + "  DIVERGES: " + *d + "\n";
    }
    if (auto d = session.Barrier()) return out + "  DIVERGES " + *d + "\n";
    return out + "  (no divergence on this replay)\n";
  }

  RedisOracle oracle_{kStartMs};
};

TEST_F(Differential, FrozenClockMakesTimeDependentRepliesExact) {
  Session session(oracle_);
  const std::vector<Step> steps = {
      {0, {"SET", "k", "v", "PX", "100"}, 0}, {0, {"PTTL", "k"}, 0}, {0, {}, 60},
      {0, {"PTTL", "k"}, 0}, {0, {"TTL", "k"}, 0}, {0, {}, 40},
      {0, {"GET", "k"}, 0},  // now == when: still there
      {0, {}, 1}, {0, {"DBSIZE"}, 0},  // expired but not deleted yet
      {0, {"GET", "k"}, 0},  // now > when: gone
      {0, {"PTTL", "k"}, 0}, {0, {"DBSIZE"}, 0},
  };
  for (const Step& s : steps) {
    std::optional<std::string> d = session.Run(s);
    ASSERT_FALSE(d.has_value()) << FormatStep(s) << "\n    " << *d;
  }
}

// What client libraries send as they connect, where the model answers as
// Redis 7.0 does (SELECT of another database, COMMAND's table and CONFIG's
// parameters are deliberately not modelled: see server.cc).
TEST_F(Differential, ConnectionCommandsAnswerAsRedis) {
  Session session(oracle_);
  const std::vector<Step> steps = {
      {0, {"SET", "k", "v"}, 0},
      {0, {"SELECT", "0"}, 0},        {0, {"SELECT", "16"}, 0},
      {0, {"SELECT", "x"}, 0},        {0, {"CLIENT", "GETNAME"}, 0},
      {0, {"CLIENT", "SETNAME", "a b"}, 0}, {0, {"CLIENT", "SETNAME", "lib"}, 0},
      {0, {"CLIENT", "GETNAME"}, 0},  {0, {"CLIENT", "SETINFO", "lib-name", "x"}, 0},
      {0, {"CLIENT", "FOO"}, 0},      {0, {"HELLO", "4"}, 0},
      {0, {"HELLO", "x"}, 0},         {0, {"FLUSHDB", "x"}, 0},
      {0, {"DBSIZE"}, 0},             {0, {"FLUSHDB"}, 0},
      {0, {"DBSIZE"}, 0},             {0, {"SET", "k", "v"}, 0},
      {0, {"FLUSHDB", "ASYNC"}, 0},   {0, {"GET", "k"}, 0},
  };
  for (const Step& s : steps) {
    std::optional<std::string> d = session.Run(s);
    ASSERT_FALSE(d.has_value()) << FormatStep(s) << "\n    " << *d;
  }
}

// What the virtual node propagates to replicas and the AOF, against the
// real server's AOF for the same random stream: the same commands, with the
// same rewrites (EXPIRE as PEXPIREAT, SET EX as SET PXAT, GETSET as SET, a
// past expiry as DEL), the same DELs for lazily expired keys, and the same
// MULTI/EXEC wrapping. (Redis's replication stream also carries PUBLISH,
// which the AOF leaves out and the model does not propagate.)
TEST_F(Differential, PropagatedEffectsMatchTheRealAof) {
  Session session(oracle_);
  ASSERT_TRUE(oracle_.Admin({"CONFIG", "SET", "appendfsync", "always"}).IsOk());
  ASSERT_TRUE(oracle_.Admin({"CONFIG", "SET", "appendonly", "yes"}).IsOk());
  // Turning the AOF on starts a rewrite; what follows goes to a new
  // incremental file, which is complete once the rewrite is over.
  for (int i = 0; i < 500; ++i) {
    const std::string info = oracle_.Admin({"INFO", "persistence"}).str;
    if (info.find("aof_rewrite_in_progress:0") != std::string::npos &&
        info.find("aof_rewrite_scheduled:0") != std::string::npos) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  Generator generator(static_cast<uint64_t>(EnvInt("LOCKSIM_DIFF_SEED", 20240101)) + 1);
  for (int n = 0; n < 20000;) {
    const Step s = generator.Next(session);
    ASSERT_FALSE(session.Run(s).has_value()) << FormatStep(s);
    if (!s.cmd.empty()) ++n;
  }
  session.Barrier();
  ASSERT_TRUE(oracle_.Admin({"CONFIG", "SET", "appendonly", "no"}).IsOk());

  std::vector<Command> real;
  for (const auto& entry :
       std::filesystem::directory_iterator(oracle_.server_dir() + "/appendonlydir")) {
    if (entry.path().string().ends_with(".incr.aof")) {
      std::optional<std::vector<Command>> commands = ParseAof(entry.path().string());
      ASSERT_TRUE(commands.has_value()) << "cannot parse " << entry.path();
      for (Command& c : *commands) {
        if (!IsCommand(c, "SELECT")) real.push_back(std::move(c));
      }
    }
  }
  const std::vector<Command> virt = session.TakeReplicationStream();
  size_t i = 0;
  while (i < real.size() && i < virt.size() && real[i] == virt[i]) ++i;
  if (i == real.size() && i == virt.size()) {
    const auto blocks = std::count_if(real.begin(), real.end(),
                                      [](const Command& c) { return IsCommand(c, "MULTI"); });
    std::cout << "propagation: " << real.size() << " commands in the AOF (" << blocks
              << " MULTI blocks), identical" << std::endl;
    return;
  }
  std::string context;
  for (size_t j = i < 8 ? 0 : i - 8; j < i + 4; ++j) {
    context += (j == i ? "> " : "  ") +
               (j < real.size() ? FormatCommand(real[j]) : std::string("(end)")) + "  |  " +
               (j < virt.size() ? FormatCommand(virt[j]) : std::string("(end)")) + "\n";
  }
  FAIL() << "the AOF and the virtual propagation differ at command " << i
         << " (real | virtual):\n" << context;
}

TEST_F(Differential, RandomCommandStreamsGiveIdenticalReplies) {
  const int64_t total = EnvInt("LOCKSIM_DIFF_COMMANDS", 100000);
  const uint64_t seed = static_cast<uint64_t>(EnvInt("LOCKSIM_DIFF_SEED", 20240101));
  const int64_t dump = EnvInt("LOCKSIM_DIFF_DUMP", -1);  // an episode to print
  constexpr int kShrunkReports = 3;
  Random episodes(seed);
  Coverage coverage;
  int64_t commands = 0;
  int divergences = 0;
  for (int episode = 0; commands < total; ++episode) {
    const uint64_t episode_seed = episodes.Next();
    const int64_t length = episodes.Between(100, 400);
    Session session(oracle_, &coverage);
    Generator generator(episode_seed);
    Stream stream;
    std::optional<std::string> diff;
    for (int64_t n = 0; n < length && commands < total && !diff;) {
      stream.push_back(generator.Next(session));
      diff = session.Run(stream.back());
      if (!stream.back().cmd.empty()) ++n, ++commands;
    }
    if (!diff) diff = session.Barrier();
    if (episode == dump) std::cout << "episode " << episode << ":\n" << Trace(stream);
    if (!diff) continue;
    if (++divergences > kShrunkReports) continue;
    std::string report = "divergence in episode " + std::to_string(episode) +
                         " (LOCKSIM_DIFF_SEED=" + std::to_string(seed) + ", episode seed " +
                         std::to_string(episode_seed) + ") at " + FormatStep(stream.back()) +
                         "\n    " + *diff + "\n";
    stream = MergeClockSteps(std::move(stream));
    if (Diverges(stream)) {
      const Stream shrunk = MergeClockSteps(Shrink(stream));
      report += "shortest stream that still diverges (" + std::to_string(shrunk.size()) +
                " of " + std::to_string(stream.size()) + " steps, from an empty server at " +
                std::to_string(kStartMs) + " ms):\n" + Trace(shrunk);
    } else {
      report += "it does not reproduce on a replay; the whole episode:\n" + Trace(stream);
    }
    ADD_FAILURE() << report;
  }
  std::cout << "differential: " << commands << " commands, " << divergences << " divergences"
            << std::endl;
  std::cout << "real replies: " << coverage.ToString() << std::endl;
  EXPECT_EQ(divergences, 0);
}

}  // namespace
}  // namespace locksim
