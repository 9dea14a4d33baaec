#include "bench/synthetic_history.h"

#include <cstdio>
#include <string>

#include "lockimpls/set_nx_px/set_nx_px.h"
#include "sim/core/random.h"
#include "sim/core/reply.h"

namespace locksim::bench {
namespace {

constexpr int kClients = 5;
const std::string kKey = "lock:resource";

std::string Token(Random& random) {
  char buf[40];
  const uint64_t a = random.Next(), b = random.Next();
  std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-a%03x-%012llx",
                static_cast<unsigned>(a >> 32), static_cast<unsigned>(a >> 16) & 0xffff,
                static_cast<unsigned>(a) & 0xfff, static_cast<unsigned>(b >> 52) & 0xfff,
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

class Builder {
 public:
  explicit Builder(uint64_t seed) : random_(seed) {
    for (int i = 0; i < kClients; ++i) {
      clients_[i] = out_.history.AddProcess(std::string(1, static_cast<char>('A' + i)));
    }
  }

  void Add(int process, OpType type, OpF f, std::string value = {}, int node = -1) {
    now_ += Nanos(100'000 + static_cast<int64_t>(random_.Uniform(400'000)));
    out_.history.Add(now_, process, type, f, std::move(value), node);
  }

  // One client's acquire (SET NX PX), as recorded by ProcessEnv::Call.
  std::string Acquire(int p) {
    std::string token = Token(random_);
    Add(p, OpType::kInvoke, OpF::kAcquire);
    Add(p, OpType::kInvoke, OpF::kRedis, FormatCommand({"SET", kKey, token, "NX", "PX", "5000"}), 0);
    Add(p, OpType::kOk, OpF::kRedis, "OK", 0);
    Add(p, OpType::kOk, OpF::kAcquire);
    return token;
  }
  // A failed try of a waiting client.
  void Try(int p) {
    Add(p, OpType::kInvoke, OpF::kRedis,
        FormatCommand({"SET", kKey, Token(random_), "NX", "PX", "5000"}), 0);
    Add(p, OpType::kOk, OpF::kRedis, "(nil)", 0);
  }
  void Release(int p, const std::string& token, bool deleted) {
    Add(p, OpType::kInvoke, OpF::kRelease);
    Add(p, OpType::kInvoke, OpF::kRedis, FormatCommand(CompareAndDeleteCommand(kKey, token)), 0);
    Add(p, OpType::kOk, OpF::kRedis, deleted ? "(integer) 1" : "(integer) 0", 0);
    Add(p, OpType::kOk, OpF::kRelease);
  }

  SyntheticHistory Build(int64_t ops, int64_t overlap_every) {
    int64_t cycle = 0;
    while (static_cast<int64_t>(out_.history.size()) < ops) {
      const int holder = clients_[cycle % kClients];
      const int next = clients_[(cycle + 1) % kClients];
      const std::string token = Acquire(holder);
      Add(holder, OpType::kInvoke, OpF::kCs, kKey);
      if (overlap_every > 0 && cycle % overlap_every == overlap_every - 1) {
        // F1: the holder pauses past its TTL; the next client gets the lock.
        Add(out_.history.nemesis(), OpType::kInfo, OpF::kPause, "A paused for 6s");
        const std::string other = Acquire(next);
        Add(next, OpType::kInvoke, OpF::kCs, kKey);
        Add(out_.history.nemesis(), OpType::kInfo, OpF::kResume, "A resumed");
        Add(holder, OpType::kOk, OpF::kCs, kKey);
        Release(holder, token, /*deleted=*/false);
        Add(next, OpType::kOk, OpF::kCs, kKey);
        Release(next, other, /*deleted=*/true);
        ++cycle;
      } else {
        Try(clients_[(cycle + 2) % kClients]);
        Try(clients_[(cycle + 3) % kClients]);
        Add(holder, OpType::kOk, OpF::kCs, kKey);
        Release(holder, token, /*deleted=*/true);
      }
      ++cycle;
    }
    out_.end = now_ + Nanos(1);
    return std::move(out_);
  }

 private:
  Random random_;
  SyntheticHistory out_;
  int clients_[kClients];
  Nanos now_{0};
};

}  // namespace

SyntheticHistory MakeSyntheticHistory(int64_t ops, int64_t overlap_every, uint64_t seed) {
  return Builder(seed).Build(ops, overlap_every);
}

}  // namespace locksim::bench
