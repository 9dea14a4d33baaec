#include "sim/run/compare.h"

#include <algorithm>

#include "lockimpls/lock.h"
#include "sim/core/crash.h"
#include "sim/core/errors.h"
#include "sim/world/nemesis.h"
#include "sim/real/adapter_lock.h"
#include "sim/scenario/scenario_files.h"

namespace locksim {
namespace {

// Whether a scenario is written for rate limiters: its default algorithm is
// one. A scenario naming no known algorithm (a label) is a lock scenario.
bool IsLimiterScenario(const Scenario& s) {
  const AlgorithmInfo* a = FindAlgorithm(s.algorithm);
  return a != nullptr && a->is_limiter();
}

std::vector<std::string> ResolveAlgorithms(const std::vector<std::string>& requested) {
  std::vector<std::string> ids;
  const bool all = requested.empty() ||
                   std::find(requested.begin(), requested.end(), "all") != requested.end();
  if (all) {
    for (const AlgorithmInfo& a : Algorithms()) ids.emplace_back(a.id);
    return ids;
  }
  for (const std::string& id : requested) {
    if (FindAlgorithm(id) == nullptr) {
      throw InputError("--algorithms: unknown algorithm \"" + id + "\" (known: all, " +
                       AlgorithmIds() + ")");
    }
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  return ids;
}

// Why `backend` cannot run a cell of `effective` (the scenario as the cell
// runs it), or "" when it can: a fault it cannot carry out yet (a node crash
// on --backend real) makes the cell not applicable instead of stopping the
// whole comparison; so does an adapter-driven variant (redis-py) on the
// virtual backend. The same rules RunScenario applies (sim/run/runner.cc).
std::string Unsupported(const Scenario& effective, const AlgorithmInfo& algo, Backend backend) {
  if (algo.real_only()) {
    // A third-party client in its own process (redis-py): real servers only.
    const std::string why = AdapterUnsupported(algo, effective, backend == Backend::kReal);
    if (!why.empty()) return "not on --backend " + std::string(BackendName(backend)) + ": " + why;
  }
  try {
    Nemesis::CheckSupported(effective.faults, backend == Backend::kVirtual,
                            effective.NodeNames(), effective.file);
  } catch (const InputError& e) {
    return std::string("not on --backend ") + std::string(BackendName(backend)) + ": " + e.what();
  }
  return "";
}

}  // namespace

CompareResult RunCompare(const CompareOptions& options, const CompareProgress& progress) {
  if (options.seeds < 1) throw InputError("--seeds: expected at least 1");
  CompareResult result;
  result.algorithms = ResolveAlgorithms(options.algorithms);
  for (const std::string& algo : result.algorithms) {
    const AlgorithmInfo* info = FindAlgorithm(algo);
    if (info != nullptr && info->adapter != nullptr) {
      const AdapterProgram& p = *info->adapter;
      result.libraries[algo] = p.library + (p.version.empty() ? "" : " " + p.version);
    }
  }
  result.backend = options.run.backend;
  result.seeds = options.seeds;
  // Both sizes are known here (a cell per scenario x algorithm): reserved,
  // so neither vector reallocates.
  const std::vector<std::string> files = ListScenarioFiles(options.scenario_paths, "--scenarios");
  result.scenarios.reserve(files.size());
  for (const std::string& f : files) result.scenarios.push_back(LoadScenario(f));
  result.cells.reserve(result.scenarios.size() * result.algorithms.size());

  for (size_t si = 0; si < result.scenarios.size(); ++si) {
    const bool limiter_scenario = IsLimiterScenario(result.scenarios[si]);
    for (const std::string& algo : result.algorithms) {
      CompareCell cell;
      cell.scenario = si;
      cell.algorithm = algo;
      const Scenario& s = result.scenarios[si];
      if (FindAlgorithm(algo)->is_limiter() != limiter_scenario) {
        cell.skipped = limiter_scenario ? "a lock on a rate limiter's scenario"
                                        : "a rate limiter on a lock scenario";
      } else if (auto it = s.expect.find(algo);
                 it != s.expect.end() && it->second.algorithm == algo) {
        cell.skipped =
            Unsupported(ForExpectation(s, it->second), *FindAlgorithm(algo), options.run.backend);
      } else {
        cell.skipped = Unsupported(s, *FindAlgorithm(algo), options.run.backend);
      }
      result.cells.push_back(std::move(cell));
    }
  }

  int total = 0;
  for (const CompareCell& c : result.cells) total += c.skipped.empty() ? options.seeds : 0;
  int done = 0;
  // The runs, one after another, hand their nodes' Lua states on (each
  // seed would otherwise make and compile its own: 1% of a sweep seed).
  const std::shared_ptr<ScriptStatePool> script_states = NewScriptStatePool();
  for (CompareCell& cell : result.cells) {
    if (!cell.skipped.empty()) continue;
    const Scenario& s = result.scenarios[cell.scenario];
    for (int i = 0; i < options.seeds; ++i) {
      RunOptions o = options.run;
      o.algorithm = cell.algorithm;
      // The scenario's own expectation for this algorithm may bring its own
      // lock parameters or faults: run the cell as that expectation says,
      // so that it is judged on the run it describes.
      if (auto it = s.expect.find(cell.algorithm);
          it != s.expect.end() && it->second.algorithm == cell.algorithm) {
        o.label = cell.algorithm;
        cell.overrides = it->second.lock.has_value() || it->second.faults.has_value();
      }
      o.seed = s.seed + static_cast<uint64_t>(i);
      o.script_states = script_states.get();
      const std::string seed = std::to_string(*o.seed);
      const CrashNote crash_note("compare cell " + s.name + " \xC2\xB7 " + cell.algorithm +
                                 ", seed " + seed + ": " + ReplayRunCommand(s.file, o));
      RunResult r = RunScenario(s, o);
      CellRun run;
      run.seed = r.seed;
      run.verdict = r.verdict();
      run.violations = static_cast<int64_t>(r.check.violations.size());
      run.expectation_met = r.ExpectationMet();
      AcquisitionStats stats = ComputeAcquisitionStats(r.history, r.end);
      cell.stats.Merge(stats);
      const bool failed = run.verdict != Verdict::kSafe || run.expectation_met == false;
      cell.runs.push_back(run);
      if (failed && !cell.counterexample) {
        cell.counterexample = std::move(r);
      } else if (!cell.representative && !cell.counterexample) {
        cell.representative = std::move(r);
      }
      ++done;
      if (progress) progress(done, total, s.name + " \xC2\xB7 " + cell.algorithm);
    }
    // A counterexample describes the cell better than a safe first run.
    if (cell.counterexample) cell.representative.reset();
  }
  return result;
}

}  // namespace locksim
