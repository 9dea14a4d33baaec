#include "sim/run/runner.h"

#include <algorithm>
#include <memory>
#include <set>

#include "sim/core/errors.h"
#include "sim/world/nemesis.h"
#include "sim/world/process_env.h"
#include "sim/real/adapter_lock.h"
#include "sim/real/interrupt.h"
#include "sim/real/real_world.h"
#include "sim/real/redis_server.h"
#include "sim/world/virtual_world.h"
#include "sim/run/clients.h"

namespace locksim {

RunResult RunScenario(const Scenario& original, const RunOptions& options) {
  RunResult result;
  Scenario input = original;
  if (!options.label.empty()) {
    auto it = original.expect.find(options.label);
    if (it == original.expect.end()) {
      throw InputError(original.file + ": $.expect: no entry \"" + options.label + "\"");
    }
    input = ForExpectation(original, it->second);
    result.label = options.label;
  }
  result.algorithm = options.algorithm.empty() ? input.algorithm : options.algorithm;
  const AlgorithmInfo* algo = FindAlgorithm(result.algorithm);
  if (algo == nullptr) {
    throw InputError("--algorithm: unknown algorithm \"" + result.algorithm +
                     "\" (known: " + AlgorithmIds() + ")");
  }
  result.backend = options.backend;
  result.seed = options.seed.value_or(input.seed);
  result.time_scale = options.time_scale.value_or(
      options.backend == Backend::kReal ? input.real_time_scale : TimeScale{});
  if (options.backend == Backend::kReal && !options.time_scale &&
      algo->resolution >= std::chrono::seconds(1)) {
    // A whole-seconds variant keeps a TTL of at least kMinWholeSecondsTtl:
    // compressed further, rounding to the second would change the story.
    const Nanos ttl = Resolve(input.lock, algo->defaults).ttl;
    const int64_t most = std::max<int64_t>(1, ttl / kMinWholeSecondsTtl);
    if (static_cast<__int128>(result.time_scale.num) * most < result.time_scale.den) {
      result.time_scale = TimeScale{1, most};
      result.scale_note = std::string(result.algorithm) + " counts in whole seconds: run at " +
                          result.time_scale.ToString() + ", not the scenario's " +
                          input.real_time_scale.ToString() + ", to keep its TTL at " +
                          FormatDuration(result.time_scale.Apply(ttl));
    }
  }
  result.scenario =
      Scaled(input, result.time_scale,
             options.time_scale ? "--time-scale" : input.file + ": $.real_time_scale");
  const Scenario& s = result.scenario;
  Nemesis::CheckSupported(s.faults, options.backend == Backend::kVirtual, s.NodeNames(),
                          input.file);
  if (algo->real_only()) {
    const std::string why = AdapterUnsupported(*algo, s, options.backend == Backend::kReal);
    if (!why.empty()) throw InputError(why);
  }
  const LockConfig lock_config = Resolve(s.lock, algo->defaults);
  if (lock_config.ttl < std::chrono::milliseconds(1)) {
    throw InputError(std::string(options.time_scale ? "--time-scale" : input.file + ": $.real_time_scale") +
                     ": scales the lock TTL below 1ms");
  }

  // Declared first, destroyed last: signals stay caught until every server
  // below has been stopped.
  std::optional<InterruptGuard> interrupt_guard;
  if (options.backend == Backend::kReal) interrupt_guard.emplace();
  // Envs and locks are declared before the world so that, on every path
  // out (an exception included), the coroutine frames that use them are
  // destroyed first.
  std::vector<std::unique_ptr<ProcessEnv>> envs;
  std::vector<std::unique_ptr<Lock>> locks;
  std::vector<std::unique_ptr<Limiter>> limiters;
  std::unique_ptr<Runtime> world;
  RealWorld* real_world_ptr = nullptr;
  std::map<int, AdapterLock*> adapter_of;  // client process -> its adapter, if any
  if (options.backend == Backend::kVirtual) {
    VirtualWorld::Options v;
    v.seed = result.seed;
    v.nodes = s.nodes;
    v.latency_min = s.network.latency_min;
    v.latency_max = s.network.latency_max;
    v.replicas = s.redis.replicas;
    v.replication_lag = s.redis.replication_lag;
    v.persistence = s.redis.persistence;
    v.rdb_interval = s.redis.rdb_interval;
    auto virtual_world = std::make_unique<VirtualWorld>(v);
    virtual_world->WatchKeys({lock_config.key});
    world = std::move(virtual_world);
  } else {
    RealWorld::Options real;
    real.seed = result.seed;
    real.nodes = s.nodes;
    real.replicas = s.redis.replicas;
    real.replication_lag = s.redis.replication_lag;
    real.persistence = s.redis.persistence;
    real.rdb_interval = s.redis.rdb_interval;
    real.redis_server = options.redis_server;
    auto real_world = std::make_unique<RealWorld>(real);
    // A limiter has no holder whose value another could overwrite: its key
    // is not watched on real servers (one snapshot per INCR is load a
    // limiter's timing does not need).
    if (!algo->is_limiter()) real_world->WatchKeys({lock_config.key});
    world = std::move(real_world);
    real_world_ptr = static_cast<RealWorld*>(world.get());
  }
  world->SetReplayHint("locksim run " + input.file + " --algorithm " + result.algorithm +
                       " --seed " + std::to_string(result.seed) + " --backend " +
                       std::string(BackendName(options.backend)));

  world->SetCallTimeout(s.network.timeout);
  // One process per client, one Lock per process shared by its threads;
  // a single-threaded client's thread is recorded under the client's name,
  // threads of a multi-threaded one as "A.1", "A.2", ... A client restarted
  // after a crash starts afresh: a new Lock (new owner id, no local state)
  // and its workload from the beginning, on the same history actors.
  std::map<std::string, int> process_of;
  std::map<std::string, std::vector<int>> actors_of;
  ProtectedResource resource(s.workload.type == WorkloadSpec::Type::kInventory ? s.workload.stock
                             : s.workload.type == WorkloadSpec::Type::kTokenRefresh ? -1
                                                                                     : 0);
  auto start_client = [&](const ClientSpec& c, Nanos at) {
    const int p = process_of.at(c.name);
    const std::vector<int>& actors = actors_of.at(c.name);
    envs.push_back(std::make_unique<ProcessEnv>(world.get(), p));
    ProcessEnv& main_thread = *envs.back();
    std::vector<ProcessEnv*> threads;
    if (c.threads == 1) {
      threads.push_back(&main_thread);
    } else {
      for (int64_t t = 1; t <= c.threads; ++t) {
        const int id = t == 1 ? 1 : world->NextThreadId(p);
        envs.push_back(std::make_unique<ProcessEnv>(world.get(), p, actors[t - 1], id));
        threads.push_back(envs.back().get());
      }
    }
    if (algo->is_limiter()) {
      limiters.push_back(algo->make_limiter(main_thread, lock_config));
      for (ProcessEnv* t : threads) {
        world->Spawn(p, at, RunLimiterClient(*world, *t, *limiters.back(), c, lock_config.key));
      }
      return;
    }
    if (algo->adapter != nullptr) {
      auto lock = std::make_unique<AdapterLock>(*real_world_ptr, p, c.name, *algo->adapter,
                                                lock_config, options.adapter);
      adapter_of[p] = lock.get();
      locks.push_back(std::move(lock));
    } else {
      locks.push_back(algo->make(main_thread, lock_config));
    }
    for (ProcessEnv* t : threads) {
      world->Spawn(p, at,
                   RunClient(*world, *t, *locks.back(), c, lock_config.key, s.workload, resource));
    }
  };
  for (const ClientSpec& c : s.clients) {
    const int p = world->AddProcess(c.name);
    process_of[c.name] = p;
    std::vector<int>& actors = actors_of[c.name];
    if (c.threads > 1) {
      for (int64_t t = 1; t <= c.threads; ++t) {
        actors.push_back(world->AddThread(p, c.name + "." + std::to_string(t)));
      }
    }
    start_client(c, c.start);
  }
  Cluster* cluster = dynamic_cast<Cluster*>(world.get());
  if (!adapter_of.empty()) {
    // The adapters start in parallel; the scenario's clock starts once
    // all of them are ready.
    for (auto& [p, adapter] : adapter_of) adapter->AwaitHello();
    real_world_ptr->RestartClock();
  }
  Nemesis::Hooks hooks;
  hooks.process_of = [&](const std::string& name) {
    auto it = process_of.find(name);
    if (it != process_of.end()) return it->second;
    for (int i = 0; i < cluster->PhysicalNodeCount(); ++i) {
      if (cluster->NodeName(i) == name) return cluster->node_process(i);
    }
    return -1;
  };
  hooks.restart_client = [&](const std::string& name) {
    for (const ClientSpec& c : s.clients) {
      if (c.name == name) start_client(c, world->Now());
    }
  };
  hooks.cluster = cluster;
  hooks.signal_process = [&](int p, int signo) {
    if (auto it = adapter_of.find(p); it != adapter_of.end()) it->second->Signal(signo);
  };
  hooks.lock_key = lock_config.key;
  Nemesis nemesis(*world, s.faults, hooks);
  nemesis.Start();

  world->Run(s.duration);

  result.end = world->Now();
  result.unfired = nemesis.Unfired();
  world->history().SetListener(nullptr);
  for (const auto& env : envs) result.redis_commands += env->commands_sent();
  result.history = std::move(world->history());
  world.reset();  // coroutine frames go before the envs and locks they use
  for (const Op& op : result.history.ops()) {
    if (op.f != OpF::kAcquire || IsNested(op)) continue;
    if (op.type == OpType::kOk) ++result.acquisitions;
    if (op.type == OpType::kFail) ++result.failed_acquisitions;
  }
  result.check = CheckMutualExclusion(result.history, result.end);
  result.effect = CheckWorkload(result.history, s.workload);
  if (algo->is_limiter()) {
    result.limiter = true;
    // Window starts are seen a reply's latency late; allow for it.
    const Nanos tolerance = options.backend == Backend::kVirtual
                                ? 2 * s.network.latency_max + std::chrono::milliseconds(1)
                                : std::chrono::milliseconds(50);
    result.effect = CheckLimiter(result.history, lock_config.limit, lock_config.ttl, tolerance);
  }
  result.liveness = CheckLiveness(result.history, result.end, s.liveness, algo->is_limiter());
  return result;
}

}  // namespace locksim
