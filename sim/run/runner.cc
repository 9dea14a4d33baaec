#include "sim/run/runner.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>

#include "lockimpls/adapter_manifest.h"

#include "sim/core/errors.h"
#include "sim/real/adapter_lock.h"
#include "sim/core/interrupt.h"
#include "sim/run/clients.h"
#include "sim/run/make_world.h"
#include "sim/vredis/script_lua.h"
#include "sim/world/nemesis.h"
#include "sim/world/process_env.h"

namespace locksim {
namespace {

// What the adapters saw their library do, over every client: each
// distinct error (op and text) with its count and first occurrence.
LibraryReport LibraryOf(const std::vector<AdapterLock*>& adapters) {
  LibraryReport report;
  report.name = adapters.front()->library();
  for (const AdapterLock* a : adapters) {
    for (const AdapterLock::Error& e : a->errors()) {
      auto it = std::find_if(report.errors.begin(), report.errors.end(),
                             [&](const LibraryError& x) { return x.op == e.op && x.text == e.text; });
      if (it == report.errors.end()) {
        report.errors.push_back(LibraryError{e.op, e.text, 0, a->client(), e.time});
        it = report.errors.end() - 1;
      } else if (e.time < it->first) {
        it->first = e.time;
        it->first_client = a->client();
      }
      ++it->count;
    }
    if (const auto& f = a->failure()) {
      report.failures.push_back(LibraryFailure{f->time, a->client(), f->what, f->stderr_tail});
    }
  }
  auto by_first = [](const LibraryError& x, const LibraryError& y) { return x.first < y.first; };
  std::stable_sort(report.errors.begin(), report.errors.end(), by_first);
  std::stable_sort(report.failures.begin(), report.failures.end(),
                   [](const LibraryFailure& x, const LibraryFailure& y) { return x.time < y.time; });
  return report;
}

// One run, in the phases of a FoundationDB workload: the constructor
// resolves what to run (the expectation's overrides, the algorithm, the
// seed, the time scale) and refuses what cannot run before anything
// starts; Setup builds the world, its clients and the nemesis; Start runs
// until the scenario's end; Check hands the history to the checkers.
class ScenarioRun {
 public:
  // Throws InputError for what cannot run (an unknown label or algorithm,
  // a fault the backend cannot carry out, a TTL scaled below 1 ms).
  ScenarioRun(const Scenario& original, const RunOptions& options);
  void Setup();
  void Start();
  // REQUIRES: Start() returned. Consumes the run.
  RunResult Check();

 private:
  const Scenario& scenario() const { return result_.scenario; }
  Backend backend() const { return options_.backend; }
  // Where the time scale came from, for messages.
  std::string ScaleSource(const Scenario& input) const {
    return options_.time_scale ? "--time-scale" : input.file + ": $.real_time_scale";
  }
  void ResolveTimeScale(const Scenario& input);
  void Refuse(const Scenario& input) const;
  WorldOptions MakeWorldOptions() const;
  void AddClient(const ClientSpec& c);
  void StartClient(const ClientSpec& c, Nanos at);
  std::vector<ProcessEnv*> StartThreads(const ClientSpec& c, int process);
  std::unique_ptr<Lock> MakeLock(int process, const ClientSpec& c, ProcessEnv& main_thread);
  void AwaitAdapters();
  // A client's or a node's runtime process; -1 if unknown.
  int ProcessOf(const std::string& name) const;
  Nemesis::Hooks NemesisHooks();

  const RunOptions& options_;
  RunResult result_;  // filled in as the run goes; scenario() is the scaled one
  std::string input_file_;
  const AlgorithmInfo* algo_ = nullptr;
  std::unique_ptr<AdapterVariant> own_adapter_;  // --adapter alone: algo_ points into it
  std::string program_override_;  // --adapter with an adapter-driven --algorithm
  LockConfig lock_;
  // The members below are declared in the order that makes every path out
  // (an exception included) safe: the nemesis and the world (and with it
  // the coroutine frames of the clients) go first, then the envs, locks
  // and resource those frames use; the signal guard goes last, so that
  // signals stay caught until every real server has been stopped.
  std::optional<InterruptGuard> interrupt_guard_;
  std::vector<std::unique_ptr<ProcessEnv>> envs_;
  std::vector<std::unique_ptr<Lock>> locks_;
  std::vector<std::unique_ptr<Limiter>> limiters_;
  std::unique_ptr<ProtectedResource> resource_;
  // One process per client; a multi-threaded client's history actors.
  std::map<std::string, int> process_of_;
  std::map<std::string, std::vector<int>> actors_of_;
  std::map<int, AdapterLock*> adapter_of_;  // client process -> its adapter, if any
  std::vector<AdapterLock*> adapters_;      // every one, restarted clients' too
  std::unique_ptr<ScriptedChooser> chooser_;  // outlives the world that asks it
  std::unique_ptr<World> world_;
  std::unique_ptr<Nemesis> nemesis_;
};

ScenarioRun::ScenarioRun(const Scenario& original, const RunOptions& options)
    : options_(options) {
  Scenario input = original;
  if (!options.label.empty()) {
    auto it = original.expect.find(options.label);
    if (it == original.expect.end()) {
      throw InputError(original.file + ": $.expect: no entry \"" + options.label + "\"");
    }
    input = ForExpectation(original, it->second);
    result_.label = options.label;
  }
  input_file_ = input.file;
  if (!options.adapter.empty() && options.algorithm.empty() && options.label.empty()) {
    // --adapter PATH alone: an unregistered adapter (a manifest, or a bare
    // program), under its own name.
    own_adapter_ = AdapterFromPath(options.adapter);
    algo_ = &own_adapter_->info;
    result_.algorithm = own_adapter_->id;
  } else {
    result_.algorithm = options.algorithm.empty() ? input.algorithm : options.algorithm;
    if (result_.algorithm.empty()) {
      throw InputError(input.file + ": $: names no algorithm: give \"algorithm\", an \"expect\" "
                                    "entry, --algorithm or --adapter");
    }
    algo_ = FindAlgorithm(result_.algorithm);
    if (algo_ == nullptr) {
      throw InputError("--algorithm: unknown algorithm \"" + result_.algorithm +
                       "\" (known: " + AlgorithmIds() + ")");
    }
    if (!options.adapter.empty()) {
      if (algo_->adapter != nullptr) {
        if (std::filesystem::path(options.adapter).extension() == ".json") {
          throw InputError("--adapter: " + options.adapter +
                           ": a manifest is a variant of its own: give it without --algorithm");
        }
        program_override_ = std::filesystem::absolute(options.adapter).string();
      } else if (!options.algorithm.empty()) {
        throw InputError("--adapter: " + result_.algorithm +
                         " is locksim's own lock code, not a library driven by an adapter: "
                         "give --adapter alone (it runs under its own name), or with the id "
                         "of an adapter-driven variant whose program it replaces");
      }
      // Else one of our own variants, named by a label or the scenario in a
      // suite run: --adapter is for the adapter-driven ones.
    }
  }
  result_.backend = options.backend;
  result_.seed = options.seed.value_or(input.seed);
  result_.limiter = algo_->is_limiter();
  ResolveTimeScale(input);
  result_.scenario = Scaled(input, result_.time_scale, ScaleSource(input));
  lock_ = Resolve(scenario().lock, algo_->defaults);
  Refuse(input);
}

void ScenarioRun::ResolveTimeScale(const Scenario& input) {
  result_.time_scale = options_.time_scale.value_or(
      backend() == Backend::kReal ? input.real_time_scale : TimeScale{});
  if (backend() != Backend::kReal || options_.time_scale ||
      algo_->resolution < std::chrono::seconds(1)) {
    return;
  }
  // A whole-seconds variant keeps a TTL of at least kMinWholeSecondsTtl:
  // compressed further, rounding to the second would change the story.
  const Nanos ttl = Resolve(input.lock, algo_->defaults).ttl;
  const int64_t most = std::max<int64_t>(1, ttl / kMinWholeSecondsTtl);
  if (static_cast<__int128>(result_.time_scale.num) * most < result_.time_scale.den) {
    result_.time_scale = TimeScale{1, most};
    result_.scale_note = result_.algorithm + " counts in whole seconds: run at " +
                         result_.time_scale.ToString() + ", not the scenario's " +
                         input.real_time_scale.ToString() + ", to keep its TTL at " +
                         FormatDuration(result_.time_scale.Apply(ttl));
  }
}

void ScenarioRun::Refuse(const Scenario& input) const {
  const Scenario& s = scenario();
  Nemesis::CheckSupported(s.faults, backend() == Backend::kVirtual, s.NodeNames(), input.file);
  if (algo_->real_only()) {
    const std::string why = AdapterUnsupported(*algo_, s, backend() == Backend::kReal);
    if (!why.empty()) throw InputError(why);
  }
  if (backend() == Backend::kReal && !s.choices.empty()) {
    throw InputError(input.file + ": $.choices: replay on the virtual backend only (real "
                                  "servers and their network make their own choices)");
  }
  if (lock_.ttl < std::chrono::milliseconds(1)) {
    throw InputError(ScaleSource(input) + ": scales the lock TTL below 1ms");
  }
}

WorldOptions ScenarioRun::MakeWorldOptions() const {
  const Scenario& s = scenario();
  WorldOptions w;
  w.seed = result_.seed;
  w.nodes = s.nodes;
  w.latency_min = s.network.latency_min;
  w.latency_max = s.network.latency_max;
  w.replicas = s.redis.replicas;
  w.replication_lag = s.redis.replication_lag;
  w.persistence = s.redis.persistence;
  w.rdb_interval = s.redis.rdb_interval;
  w.redis_server = options_.redis_server;
  w.script_states = options_.script_states;
  if (options_.reply_spin) w.reply_spin = *options_.reply_spin;
  using Type = FaultSpec::Type;
  w.direct_client_links = std::none_of(s.faults.begin(), s.faults.end(), [](const FaultSpec& f) {
    return f.type == Type::kPartition || f.type == Type::kHeal || f.type == Type::kDelay ||
           f.type == Type::kDrop;
  });
  return w;
}

void ScenarioRun::Setup() {
  const Scenario& s = scenario();
  if (backend() == Backend::kReal) interrupt_guard_.emplace();
  world_ = MakeWorld(backend(), MakeWorldOptions());
  if (!s.choices.empty() || options_.record_choices) {
    chooser_ = std::make_unique<ScriptedChooser>(s.choices, options_.record_choices);
    world_->SetChooser(chooser_.get());
  }
  // A limiter has no holder whose value another could overwrite: on real
  // servers its key is not watched (one snapshot per INCR is load a
  // limiter's timing does not need).
  // A library may keep the lock under a key of its own making
  // (redis-semaphore: "mutex:<key>"): that is the key watched.
  const std::string prefix = algo_->adapter ? algo_->adapter->key_prefix : "";
  if (options_.record_states && (backend() == Backend::kVirtual || !algo_->is_limiter())) {
    world_->WatchKeys({prefix + lock_.key});
  }
  RunOptions replay = options_;
  replay.seed = result_.seed;
  if (replay.label.empty() && !own_adapter_) replay.algorithm = result_.algorithm;
  if (!program_override_.empty()) replay.adapter = program_override_;
  world_->SetReplayHint(!options_.replay.empty() ? options_.replay
                                                 : ReplayRunCommand(input_file_, replay));
  world_->SetCallTimeout(s.network.timeout);
  using Type = WorkloadSpec::Type;
  resource_ = std::make_unique<ProtectedResource>(s.workload.type == Type::kInventory ? s.workload.stock
                                                  : s.workload.type == Type::kTokenRefresh ? -1
                                                                                           : 0);
  for (const ClientSpec& c : s.clients) AddClient(c);
  AwaitAdapters();
  nemesis_ = std::make_unique<Nemesis>(*world_, s.faults, NemesisHooks());
}

// One process per client, one Lock per process shared by its threads; a
// single-threaded client's thread is recorded under the client's name,
// threads of a multi-threaded one as "A.1", "A.2", ...
void ScenarioRun::AddClient(const ClientSpec& c) {
  const int p = world_->AddProcess(c.name);
  process_of_[c.name] = p;
  std::vector<int>& actors = actors_of_[c.name];
  if (c.threads > 1) {
    for (int64_t t = 1; t <= c.threads; ++t) {
      actors.push_back(world_->AddThread(p, c.name + "." + std::to_string(t)));
    }
  }
  StartClient(c, c.start);
}

// Also for a client restarted after a crash: it starts afresh, with a new
// Lock (new owner id, no local state) and its workload from the beginning,
// on the same history actors.
void ScenarioRun::StartClient(const ClientSpec& c, Nanos at) {
  const int p = process_of_.at(c.name);
  envs_.push_back(std::make_unique<ProcessEnv>(world_.get(), p));
  ProcessEnv& main_thread = *envs_.back();
  const std::vector<ProcessEnv*> threads =
      c.threads == 1 ? std::vector<ProcessEnv*>{&main_thread} : StartThreads(c, p);
  if (algo_->is_limiter()) {
    limiters_.push_back(algo_->make_limiter(main_thread, lock_));
    for (ProcessEnv* t : threads) {
      world_->Spawn(p, at, RunLimiterClient(*world_, *t, *limiters_.back(), c, lock_.key));
    }
    return;
  }
  locks_.push_back(MakeLock(p, c, main_thread));
  for (ProcessEnv* t : threads) {
    world_->Spawn(p, at,
                  RunClient(*world_, *t, *locks_.back(), c, lock_.key, scenario().workload,
                            *resource_));
  }
}

// The Envs of a multi-threaded client's threads "A.1", "A.2", ... (thread
// ids 1, 2, ...); the process's main-thread Env stays the Lock's own.
std::vector<ProcessEnv*> ScenarioRun::StartThreads(const ClientSpec& c, int p) {
  std::vector<ProcessEnv*> threads;
  const std::vector<int>& actors = actors_of_.at(c.name);
  for (int64_t t = 1; t <= c.threads; ++t) {
    const int id = t == 1 ? 1 : world_->NextThreadId(p);
    envs_.push_back(std::make_unique<ProcessEnv>(world_.get(), p, actors[t - 1], id));
    threads.push_back(envs_.back().get());
  }
  return threads;
}

std::unique_ptr<Lock> ScenarioRun::MakeLock(int p, const ClientSpec& c, ProcessEnv& main_thread) {
  if (algo_->adapter == nullptr) return algo_->make(main_thread, lock_);
  AdapterHost* host = world_->adapter_host();
  if (host == nullptr) {
    throw InputError(std::string(algo_->id) + " needs --backend real");  // Refuse() said so
  }
  auto lock = std::make_unique<AdapterLock>(*world_, *host, p, c.name, *algo_->adapter, lock_,
                                            program_override_);
  adapter_of_[p] = lock.get();
  adapters_.push_back(lock.get());
  return lock;
}

// The adapters start in parallel; the scenario's clock starts once all of
// them are ready.
void ScenarioRun::AwaitAdapters() {
  if (adapter_of_.empty()) return;
  for (auto& [p, adapter] : adapter_of_) adapter->AwaitHello();
  world_->adapter_host()->RestartClock();
}

int ScenarioRun::ProcessOf(const std::string& name) const {
  auto it = process_of_.find(name);
  if (it != process_of_.end()) return it->second;
  for (int i = 0; i < world_->PhysicalNodeCount(); ++i) {
    if (world_->NodeName(i) == name) return world_->node_process(i);
  }
  return -1;
}

Nemesis::Hooks ScenarioRun::NemesisHooks() {
  Nemesis::Hooks hooks;
  hooks.process_of = [this](const std::string& name) { return ProcessOf(name); };
  hooks.restart_client = [this](const std::string& name) {
    for (const ClientSpec& c : scenario().clients) {
      if (c.name == name) StartClient(c, world_->Now());
    }
  };
  hooks.signal_process = [this](int p, int signo) {
    if (auto it = adapter_of_.find(p); it != adapter_of_.end()) it->second->Signal(signo);
  };
  hooks.lock_key = lock_.key;
  return hooks;
}

void ScenarioRun::Start() {
  nemesis_->Start();
  // No cap (0) is the history's own limit, less room for the ops of the
  // event that reaches it.
  constexpr int64_t kLimit = static_cast<int64_t>(History::kMaxOps) - 4096;
  const int64_t max_ops = options_.max_ops > 0 ? std::min(options_.max_ops, kLimit) : kLimit;
  world_->SetHistoryCap(static_cast<size_t>(max_ops));
  if (options_.progress) {
    const Nanos duration = scenario().duration;
    world_->SetMonitor(4096, [this, duration] {
      options_.progress(world_->Now(), duration, static_cast<int64_t>(world_->history().size()));
      return true;
    });
  }
  world_->Run(scenario().duration);
  if (world_->stopped_by_monitor()) {
    result_.stopped_early =
        "stopped at " + FormatDuration(world_->Now()) + " of " +
        FormatDuration(scenario().duration) + ": the history reached " +
        std::to_string(world_->history().size()) + " operations (" +
        (max_ops == options_.max_ops ? "--max-ops " + std::to_string(max_ops)
                                     : "the history's limit, " + std::to_string(max_ops)) +
        "); the verdict covers the run until then";
  }
}

RunResult ScenarioRun::Check() {
  RunResult& r = result_;
  r.end = world_->Now();
  r.unfired = nemesis_->Unfired();
  if (chooser_) {
    for (std::string& u : chooser_->Unapplied()) r.unfired.push_back(std::move(u));
    r.choice_points = chooser_->points();
    r.unapplied_choices = static_cast<int64_t>(chooser_->unapplied());
  }
  world_->history().SetListener(nullptr);
  r.history = std::move(world_->history());
  nemesis_.reset();
  world_.reset();  // coroutine frames go before the envs and locks they use
  // Every command a client sent: lock code's own, and on the real backend
  // a library's, as its adapter's tapped links carried them.
  r.redis_commands = r.history.commands_sent();
  for (const Op& op : r.history.lock_ops()) {
    if (op.f != OpF::kAcquire || op.nested) continue;
    if (op.type == OpType::kOk) ++r.acquisitions;
    if (op.type == OpType::kFail) ++r.failed_acquisitions;
    if (op.type == OpType::kInfo) ++r.errored_acquisitions;
  }
  if (!adapters_.empty()) r.library = LibraryOf(adapters_);
  const Scenario& s = scenario();
  r.check = CheckMutualExclusion(r.history, r.end, options_.explain);
  if (r.limiter) {
    // Window starts are seen a reply's latency late; allow for it.
    const Nanos tolerance = backend() == Backend::kVirtual
                                ? 2 * s.network.latency_max + std::chrono::milliseconds(1)
                                : std::chrono::milliseconds(50);
    r.effect = CheckLimiter(r.history, lock_.limit, lock_.ttl, tolerance);
  } else {
    r.effect = CheckWorkload(r.history, s.workload);
  }
  r.liveness = CheckLiveness(r.history, r.end, s.liveness, r.limiter);
  return std::move(result_);
}

}  // namespace

std::string ReplayRunCommand(const std::string& file, const RunOptions& options) {
  std::string flags = "locksim run " + file;
  if (!options.label.empty()) {
    flags += " --label " + options.label;
  } else if (!options.algorithm.empty()) {
    flags += " --algorithm " + options.algorithm;
  }
  if (!options.adapter.empty()) flags += " --adapter " + options.adapter;
  if (options.seed) flags += " --seed " + std::to_string(*options.seed);
  flags += " --backend " + std::string(BackendName(options.backend));
  if (options.time_scale) flags += " --time-scale " + options.time_scale->ToString();
  if (options.backend == Backend::kReal && options.redis_server != RunOptions{}.redis_server) {
    flags += " --redis-server " + options.redis_server;
  }
  return flags;
}

std::shared_ptr<ScriptStatePool> NewScriptStatePool() {
  return std::make_shared<ScriptStatePool>();
}

namespace {
RunResult RunOnce(const Scenario& scenario, const RunOptions& options) {
  ScenarioRun run(scenario, options);
  run.Setup();
  run.Start();
  return run.Check();
}
}  // namespace

RunResult RunScenario(const Scenario& scenario, const RunOptions& options) {
  if (options.script_states == nullptr) return RunOnce(scenario, options);
  try {
    return RunOnce(scenario, options);
  } catch (const ScriptStateRefused&) {
    // A script that could tell a pooled Lua state from a new one: the run
    // again, each node with a state of its own (runs are deterministic, so
    // this is the run that would have been made).
  }
  RunOptions own_states = options;
  own_states.script_states = nullptr;
  return RunOnce(scenario, own_states);
}

}  // namespace locksim
