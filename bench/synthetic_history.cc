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
      clients_[i] = out_.history.AddActor(std::string(1, static_cast<char>('A' + i)));
    }
  }

  // The next op's time.
  Nanos Tick() {
    now_ += Nanos(100'000 + static_cast<int64_t>(random_.Uniform(400'000)));
    return now_;
  }
  void Step(int p, OpType type, OpF f) { out_.history.AddStep(Tick(), p, type, f, kKey); }
  void Fault(OpF f, std::string what) { out_.history.AddFault(Tick(), f, std::move(what)); }
  // A command and its reply, as ProcessEnv::Call records them.
  void Call(int p, const Command& cmd, Reply reply) {
    out_.history.AddCommand(Tick(), p, 0, cmd);
    out_.history.AddReply(Tick(), p, OpType::kOk, 0, std::move(reply));
  }

  // One client's acquire (SET NX PX).
  std::string Acquire(int p) {
    std::string token = Token(random_);
    Step(p, OpType::kInvoke, OpF::kAcquire);
    Call(p, {"SET", kKey, token, "NX", "PX", "5000"}, Reply::Ok());
    Step(p, OpType::kOk, OpF::kAcquire);
    return token;
  }
  // A failed try of a waiting client.
  void Try(int p) { Call(p, {"SET", kKey, Token(random_), "NX", "PX", "5000"}, Reply::Nil()); }
  void Release(int p, const std::string& token, bool deleted) {
    Step(p, OpType::kInvoke, OpF::kRelease);
    Call(p, CompareAndDeleteCommand(kKey, token), Reply::Integer(deleted ? 1 : 0));
    Step(p, OpType::kOk, OpF::kRelease);
  }

  SyntheticHistory Build(int64_t ops, int64_t overlap_every) {
    int64_t cycle = 0;
    while (static_cast<int64_t>(out_.history.size()) < ops) {
      const int holder = clients_[cycle % kClients];
      const int next = clients_[(cycle + 1) % kClients];
      const std::string token = Acquire(holder);
      Step(holder, OpType::kInvoke, OpF::kCs);
      if (overlap_every > 0 && cycle % overlap_every == overlap_every - 1) {
        // F1: the holder pauses past its TTL; the next client gets the lock.
        Fault(OpF::kPause, "A paused for 6s");
        const std::string other = Acquire(next);
        Step(next, OpType::kInvoke, OpF::kCs);
        Fault(OpF::kResume, "A resumed");
        Step(holder, OpType::kOk, OpF::kCs);
        Release(holder, token, /*deleted=*/false);
        Step(next, OpType::kOk, OpF::kCs);
        Release(next, other, /*deleted=*/true);
        ++cycle;
      } else {
        Try(clients_[(cycle + 2) % kClients]);
        Try(clients_[(cycle + 3) % kClients]);
        Step(holder, OpType::kOk, OpF::kCs);
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
