// Micro-benchmarks of the virtual Redis, one node driven as the virtual
// world drives a lone master (no replica, no AOF: the scenarios' default):
// VirtualRedis::Execute with propagation off, as the world sets it and as
// redis-server itself skips it with no replica and no AOF, then
// TakeReplicationStream (which the world calls after every command).
//   BM_VRedisPlainMix    GET / SET NX PX / DEL over 1000 lock keys; the peer
//                        is redis-server under redis-benchmark -P 16, same mix.
//   BM_VRedisEvalCad     EVAL of the compare-and-delete release script
//                        (lockimpls/set_nx_px), half of them deleting; the
//                        peer is EVALSHA -P 16.
// items_per_second is commands per second.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "lockimpls/set_nx_px/set_nx_px.h"
#include "sim/core/time.h"
#include "sim/vredis/server.h"

namespace locksim::bench {
namespace {

constexpr int kKeys = 1000;
const int64_t kNowMs = duration_cast<Millis>(kVirtualEpoch).count();

std::string Key(int i) { return "lock:" + std::to_string(i); }

void BM_VRedisPlainMix(benchmark::State& state) {
  VirtualRedis redis;
  redis.SetPropagation(false);
  std::vector<Command> mix;
  for (int i = 0; i < kKeys; ++i) {
    mix.push_back({"GET", Key(i)});
    mix.push_back({"SET", Key(i), "9f0c8a7e-1d2b-4c3d-8e9f-0a1b2c3d4e5f", "NX", "PX", "30000"});
    mix.push_back({"DEL", Key(i)});
  }
  size_t next = 0;
  int64_t now_ms = kNowMs;
  for (auto _ : state) {
    Reply r = redis.Execute(mix[next], now_ms);
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(redis.TakeReplicationStream());
    if (++next == mix.size()) {
      next = 0;
      ++now_ms;
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_VRedisPlainMix);

void BM_VRedisEvalCad(benchmark::State& state) {
  VirtualRedis redis;
  redis.SetPropagation(false);
  const std::string token = "9f0c8a7e-1d2b-4c3d-8e9f-0a1b2c3d4e5f";
  std::vector<Command> sets, cads;
  for (int i = 0; i < kKeys; ++i) {
    sets.push_back({"SET", Key(i), token, "PX", "30000"});
    // Every other release finds another client's token: it deletes nothing.
    cads.push_back(CompareAndDeleteCommand(Key(i), i % 2 ? "someone-else" : token));
  }
  for (const Command& c : sets) redis.Execute(c, kNowMs);
  redis.TakeReplicationStream();
  size_t next = 0;
  int64_t now_ms = kNowMs;
  for (auto _ : state) {
    Reply r = redis.Execute(cads[next], now_ms);
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(redis.TakeReplicationStream());
    if (++next == cads.size()) {
      // Put back what was deleted, outside the timing.
      state.PauseTiming();
      next = 0;
      for (const Command& c : sets) redis.Execute(c, now_ms);
      redis.TakeReplicationStream();
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_VRedisEvalCad);

}  // namespace
}  // namespace locksim::bench
