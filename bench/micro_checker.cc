// Micro-benchmarks of the mutual-exclusion checker (sim/check/checker.h) on a
// synthetic set-nx-px history (bench/synthetic_history.h).
//   BM_CheckMutualExclusion/N   N operations, one overlap per 500
//                               acquisitions; items_per_second is history
//                               operations per second. N from 10^4 to 10^6
//                               shows the growth (O(n log n) expected).
//   BM_CheckOpenHolder/N        a holder whose section never ends (it crashed
//                               holding the lock): every later section
//                               overlaps it, the worst case for explaining.
//   BM_CheckForeignWrites/N     N operations of a storm in which every
//                               holder's value is deleted by the holder
//                               before it (a plain DEL released after its
//                               TTL): a foreign write per section, each
//                               naming the section its victim is in.
//   BM_CheckLimiterWindows/N    N rate-limiter admissions that each open a
//                               window (a count of 1) holding all the later
//                               ones: the limiter check's worst case.
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>

#include "bench/synthetic_history.h"
#include "sim/check/checker.h"
#include "sim/check/workload.h"

namespace locksim::bench {
namespace {

// `op` of `from`, `shift` later, into `to` (the synthetic history's kinds).
void CopyOp(const History& from, const Op& op, Nanos shift, History* to) {
  const Nanos t = op.time + shift;
  switch (op.payload) {
    case Payload::kKey: to->AddStep(t, op.actor, op.type, op.f, from.key(op), op.nested); break;
    case Payload::kCommand: to->AddCommand(t, op.actor, op.node, from.command(op).ToCommand()); break;
    case Payload::kReply: to->AddReply(t, op.actor, op.type, op.node, from.reply(op)); break;
    case Payload::kText: to->AddFault(t, op.f, from.text(op), op.subject); break;
    default: to->Add(t, op.actor, op.type, op.f); break;
  }
}

void BM_CheckMutualExclusion(benchmark::State& state) {
  const SyntheticHistory h = MakeSyntheticHistory(state.range(0));
  for (auto _ : state) {
    CheckResult r = CheckMutualExclusion(h.history, h.end);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(h.history.size()));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_CheckMutualExclusion)
    ->Arg(10'000)->Arg(100'000)->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond)->Complexity(benchmark::oNLogN);

void BM_CheckOpenHolder(benchmark::State& state) {
  SyntheticHistory h = MakeSyntheticHistory(state.range(0), /*overlap_every=*/0);
  // A sixth client enters first and never leaves.
  const int crashed = h.history.AddActor("F");
  History with_open;
  with_open.AddActor("A");
  for (int p = 2; p <= crashed; ++p) with_open.AddActor(h.history.name(p));
  with_open.AddStep(Nanos(0), crashed, OpType::kOk, OpF::kAcquire, "lock:resource");
  with_open.AddStep(Nanos(1), crashed, OpType::kInvoke, OpF::kCs, "lock:resource");
  for (const Op& op : h.history.ops()) CopyOp(h.history, op, Nanos(2), &with_open);
  for (auto _ : state) {
    CheckResult r = CheckMutualExclusion(with_open, h.end + Nanos(2));
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(with_open.size()));
}
BENCHMARK(BM_CheckOpenHolder)->Arg(10'000)->Arg(40'000)->Unit(benchmark::kMillisecond);

void BM_CheckForeignWrites(benchmark::State& state) {
  History h;
  constexpr int kClients = 5;
  int clients[kClients];
  for (int i = 0; i < kClients; ++i) {
    clients[i] = h.AddActor(std::string(1, static_cast<char>('A' + i)));
  }
  const int node = h.AddActor("redis0");
  const std::string key = "lock:resource";
  Nanos t{0};
  auto tick = [&t] { return t += std::chrono::microseconds(100); };
  for (int64_t cycle = 0; static_cast<int64_t>(h.size()) < state.range(0); ++cycle) {
    const int late = clients[cycle % kClients];
    const int holder = clients[(cycle + 1) % kClients];
    KeyState held = KeyState::Absent(key);
    held.present = true;
    held.str = h.name(holder);
    h.AddStep(tick(), holder, OpType::kOk, OpF::kAcquire, key);
    h.AddState(tick(), node, OpType::kOk, held, holder);
    h.AddStep(tick(), holder, OpType::kInvoke, OpF::kCs, key);
    h.AddState(tick(), node, OpType::kOk, KeyState::Absent(key), late);  // the late DEL
    h.AddStep(tick(), holder, OpType::kOk, OpF::kCs, key);
    h.AddStep(tick(), holder, OpType::kInvoke, OpF::kRelease, key);
    h.AddStep(tick(), holder, OpType::kOk, OpF::kRelease, key);
  }
  const Nanos end = tick();
  size_t found = 0;
  for (auto _ : state) {
    CheckResult r = CheckMutualExclusion(h, end);
    found = r.violations.size();
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(h.size()));
  state.counters["violations"] = static_cast<double>(found);  // one per section
}
BENCHMARK(BM_CheckForeignWrites)->Arg(10'000)->Arg(40'000)->Unit(benchmark::kMillisecond);

void BM_CheckLimiterWindows(benchmark::State& state) {
  History h;
  const int a = h.AddActor("A");
  for (int64_t i = 0; i < state.range(0); ++i) {
    h.AddStep(std::chrono::microseconds(i), a, OpType::kInvoke, OpF::kAdmit, "rate:x");
    h.AddNumber(std::chrono::microseconds(i), a, OpType::kOk, OpF::kAdmit, 1);
  }
  for (auto _ : state) {
    WorkloadEffect e = CheckLimiter(h, 10, std::chrono::hours(1), Nanos{0});
    benchmark::DoNotOptimize(e);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(h.size()));
}
BENCHMARK(BM_CheckLimiterWindows)->Arg(10'000)->Arg(40'000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace locksim::bench
