#include "sim/explore/search.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "lockimpls/lock.h"
#include "sim/core/crash.h"
#include "sim/core/errors.h"
#include "sim/core/text.h"
#include "sim/explore/explore.h"
#include "sim/explore/generate.h"
#include "sim/explore/verify.h"
#include "sim/run/runner.h"

namespace locksim {
namespace {

// Seeds of the worst verdict that are shrunk, the first ones found: the
// shortest of them is the cell's example. Shrinking costs up to 600 runs a
// seed; a cell's N seeds cost N.
constexpr int kShrunkPerCell = 3;

// `script_states`: the worker thread's (RunOptions::script_states).
SearchCell SearchOneCell(const std::string& algorithm, const std::string& cls,
                         const SearchOptions& options, ScriptStatePool* script_states) {
  SearchCell cell;
  cell.algorithm = algorithm;
  cell.fault_class = cls;
  const AlgorithmInfo* algo = FindAlgorithm(algorithm);
  if (algo != nullptr && algo->real_only()) {
    cell.skipped = "drives a third-party client on real servers; search runs the virtual Redis";
    return cell;
  }
  const ExploreSpec spec = MakeExploreSpec(algorithm, {cls});
  std::map<std::string, int64_t> outcomes;
  std::vector<uint64_t> worst_seeds;
  for (uint64_t k = 0; k < options.seeds; ++k) {
    const uint64_t seed = options.first_seed + k;
    const CrashNote crash_note("compare --search cell " + algorithm + " \xC2\xB7 " + cls +
                               ", seed " + std::to_string(seed) + ": " +
                               ExploreReplayCommand(spec, seed));
    const SeedOutcome o = ProbeSeed(spec, seed, script_states);
    ++cell.runs;
    if (o.verdict == Verdict::kSafe) continue;
    ++cell.with_finding;
    ++outcomes[Join(o.tokens, "+")];
    if (VerdictRank(o.verdict) > VerdictRank(cell.worst)) {
      cell.worst = o.verdict;
      worst_seeds.clear();
    }
    if (o.verdict == cell.worst && worst_seeds.size() < kShrunkPerCell) worst_seeds.push_back(seed);
  }
  for (const auto& [tokens, n] : outcomes) cell.outcomes.emplace_back(tokens, n);
  std::stable_sort(cell.outcomes.begin(), cell.outcomes.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });

  std::optional<Finding> best;
  for (uint64_t seed : worst_seeds) {
    std::optional<Finding> f = ExploreSeed(spec, seed, nullptr, script_states);
    if (f && (!best || Shorter(*f, *best))) best = std::move(f);
  }
  if (!best && cell.worst == Verdict::kSafe && options.verify_faults > 0) {
    VerifySpec v;
    v.algorithm = algorithm;
    v.faults = {cls};
    v.max_faults = options.verify_faults;
    v.events = options.verify_events;
    bool verifiable = true;
    try {
      CheckVerifySpec(v);
    } catch (const InputError&) {
      verifiable = false;  // a class or a variant verify does not place
    }
    if (verifiable && cls != "none") {
      const VerifyResult r = RunVerify(v, 1);
      if (!r.finding) {
        cell.verified_bound = std::to_string(v.max_faults) + " fault" + (v.max_faults == 1 ? "" : "s") +
                              " in " + std::to_string(v.events) + " instants";
        cell.verified_schedules = r.schedules;
        cell.verified_bound_text = BoundText(v);
      } else {
        cell.worst = ParseVerdict(r.finding->verdict).value_or(Verdict::kViolated);
        SearchExample ex;
        ex.seed = v.seed;
        ex.kind = r.finding->kind;
        ex.scenario_text = r.finding->text;
        const Scenario s = ParseScenario(r.finding->text, "verify-" + algorithm);
        ex.clients = static_cast<int64_t>(s.clients.size());
        ex.faults = static_cast<int64_t>(s.faults.size());
        ex.duration = s.duration;
        ex.verify_rerun = VerifyCommandLine(v);
        RunOptions replay;
        replay.label = algorithm;
        ex.run = RunScenario(s, replay);
        cell.example = std::move(ex);
      }
    }
  }
  if (best) {
    SearchExample ex;
    ex.seed = best->seed;
    ex.kind = best->kind;
    ex.scenario_text = best->text;
    ex.clients = best->clients;
    ex.faults = best->fault_count;
    ex.duration = best->duration;
    RunOptions replay;
    replay.label = algorithm;
    ex.run = RunScenario(ParseScenario(best->text, best->file), replay);
    cell.example = std::move(ex);
  }
  return cell;
}

bool IsNode(const Scenario& s, const std::string& process) {
  const std::vector<std::string> nodes = s.NodeNames();
  return std::find(nodes.begin(), nodes.end(), process) != nodes.end();
}

}  // namespace

SearchResult RunSearch(const SearchOptions& options, const SearchProgress& progress) {
  SearchResult result;
  result.first_seed = options.first_seed;
  result.seeds = options.seeds;
  result.algorithms = options.algorithms;
  result.classes = options.classes;
  for (const std::string& a : options.algorithms) {
    if (FindAlgorithm(a) == nullptr) {
      throw InputError("--algorithms: unknown algorithm \"" + a + "\" (known: " + AlgorithmIds() +
                       ")");
    }
  }
  const size_t total = options.algorithms.size() * options.classes.size();
  result.cells.resize(total);
  std::atomic<size_t> next{0};
  std::mutex mu;
  int done = 0;
  std::exception_ptr error;
  auto worker = [&] {
    const std::shared_ptr<ScriptStatePool> script_states = NewScriptStatePool();
    for (;;) {
      const size_t i = next++;
      if (i >= total) return;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (error) return;
      }
      const std::string& algorithm = options.algorithms[i / options.classes.size()];
      const std::string& cls = options.classes[i % options.classes.size()];
      try {
        result.cells[i] = SearchOneCell(algorithm, cls, options, script_states.get());
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
        return;
      }
      std::lock_guard<std::mutex> lock(mu);
      ++done;
      if (progress) progress(done, static_cast<int>(total), algorithm + " \xC3\x97 " + cls);
    }
  };
  std::vector<std::thread> threads;
  for (int j = 1; j < std::max(options.jobs, 1); ++j) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  if (error) std::rethrow_exception(error);
  return result;
}

std::vector<std::string> ScenarioFaultClasses(const Scenario& s) {
  std::set<std::string> found;
  for (const FaultSpec& f : s.faults) {
    const bool node = IsNode(s, f.process);
    switch (f.type) {
      case FaultSpec::Type::kPause: found.insert("pause"); break;
      case FaultSpec::Type::kClock: found.insert(node ? "node-clock" : "client-clock"); break;
      case FaultSpec::Type::kCrash:
      case FaultSpec::Type::kRestart: found.insert(node ? "node-crash" : "client-crash"); break;
      case FaultSpec::Type::kFailover: found.insert("failover"); break;
      case FaultSpec::Type::kPartition:
      case FaultSpec::Type::kHeal: found.insert("partition"); break;
      case FaultSpec::Type::kDelay:
      case FaultSpec::Type::kDrop: found.insert("delay-drop"); break;
      case FaultSpec::Type::kExpire: found.insert("expire"); break;
    }
  }
  if (found.empty()) return {"none"};
  std::vector<std::string> out;
  for (const std::string& c : FaultClasses()) {
    if (found.contains(c)) out.push_back(c);
  }
  return out;
}

namespace {

// The token of what a workload's broken invariant costs (explore.h).
std::string CostToken(WorkloadSpec::Type type) {
  switch (type) {
    case WorkloadSpec::Type::kCounter: return "lost-update";
    case WorkloadSpec::Type::kInventory: return "oversold";
    case WorkloadSpec::Type::kTokenRefresh: return "double-refresh";
    case WorkloadSpec::Type::kScheduledJob: return "double-run";
    default: return "";
  }
}

// Seeds of a cell whose outcome has `token`.
int64_t SeedsWith(const SearchCell& c, const std::string& token) {
  int64_t n = 0;
  for (const auto& [tokens, seeds] : c.outcomes) {
    const std::string padded = "+" + tokens + "+";
    if (padded.find("+" + token + "+") != std::string::npos) n += seeds;
  }
  return n;
}

// Whether a shrunk example needs more than its class's faults can explain:
// re-entry or threads (which no story of a class claims), or no fault at all
// (the shrinker found the lock breaks without one: not the class's doing).
bool NeedsShape(const std::string& kind) {
  return kind.find("--no-fault") != std::string::npos || kind.find("--reenter") != std::string::npos || kind.find("--threads") != std::string::npos ||
         kind.ends_with("reenter") || kind.ends_with("threads");
}

}  // namespace

void FindDisagreements(const CompareResult& stories, SearchResult* search) {
  search->disagreements.clear();
  auto cell_of = [&](const std::string& algorithm, const std::string& cls) -> const SearchCell* {
    for (const SearchCell& c : search->cells) {
      if (c.algorithm == algorithm && c.fault_class == cls && c.skipped.empty()) return &c;
    }
    return nullptr;
  };
  const std::string n = std::to_string(search->seeds);
  for (const CompareCell& story : stories.cells) {
    if (!story.skipped.empty() || !story.Worst() || story.Shown() == nullptr) continue;
    const Scenario& s = stories.scenarios[story.scenario];
    const RunResult& shown = *story.Shown();
    const std::vector<std::string> classes = ScenarioFaultClasses(s);
    const Verdict told = *story.Worst();
    // The story keeps its workload's invariant; search of one of its
    // classes breaks the same workload's (w01's fenced counter).
    const std::string cost = CostToken(s.workload.type);
    if (!cost.empty() && shown.effect.holds) {
      for (const std::string& cls : classes) {
        const SearchCell* c = cell_of(story.algorithm, cls);
        const int64_t seeds = c == nullptr ? 0 : SeedsWith(*c, cost);
        if (seeds == 0) continue;
        search->disagreements.push_back(
            {s.name, story.algorithm, cls, told, c->worst,
             "the story " + s.name + " shows " + story.algorithm + " keeping the " +
                 std::string(WorkloadName(s.workload.type)) + " invariant, but search under " +
                 cls + " found " + cost + " in " + std::to_string(seeds) + " of " +
                 std::to_string(c->runs) + " seeds"});
        break;
      }
      if (!search->disagreements.empty() && search->disagreements.back().scenario == s.name &&
          search->disagreements.back().algorithm == story.algorithm) {
        continue;
      }
    }
    if (told != Verdict::kViolated) continue;
    // A violation the story shows that no search of its classes found.
    bool searched = !classes.empty();
    bool found = false;
    for (const std::string& cls : classes) {
      const SearchCell* c = cell_of(story.algorithm, cls);
      searched = searched && c != nullptr;
      found = found || (c != nullptr && c->worst == Verdict::kViolated);
    }
    if (!searched || found) continue;
    search->disagreements.push_back(
        {s.name, story.algorithm, Join(classes, "+"), told, Verdict::kSafe,
         "the story " + s.name + " shows " + story.algorithm + " violated, but search found no "
             "violation in " + n + " seeds of " + Join(classes, ", ") +
             (classes.size() > 1 ? " (each class alone: the story combines them)" : "")});
  }
  // Every story of a class shows the variant safe; search of that class
  // found it violated (with no re-entry or threads the stories lack).
  for (const SearchCell& c : search->cells) {
    if (!c.skipped.empty() || c.worst != Verdict::kViolated || !c.example ||
        NeedsShape(c.example->kind)) {
      continue;
    }
    std::vector<std::string> safe_stories;
    bool any_violated = false;
    for (const CompareCell& story : stories.cells) {
      if (story.algorithm != c.algorithm || !story.skipped.empty() || !story.Worst()) continue;
      const Scenario& s = stories.scenarios[story.scenario];
      const std::vector<std::string> classes = ScenarioFaultClasses(s);
      if (c.fault_class == "none" ||
          std::find(classes.begin(), classes.end(), c.fault_class) == classes.end()) {
        continue;
      }
      if (*story.Worst() == Verdict::kViolated) any_violated = true;
      if (*story.Worst() == Verdict::kSafe) safe_stories.push_back(s.name);
    }
    if (any_violated || safe_stories.empty()) continue;
    search->disagreements.push_back(
        {Join(safe_stories, ", "), c.algorithm, c.fault_class, Verdict::kSafe, c.worst,
         "every story with a " + c.fault_class + " fault (" + Join(safe_stories, ", ") +
             ") shows " + c.algorithm + " safe, but search under " + c.fault_class +
             " found it violated in " + std::to_string(c.with_finding) + " of " +
             std::to_string(c.runs) + " seeds (shortest: " + c.example->kind + ", seed " +
             std::to_string(c.example->seed) + ")"});
  }
}

}  // namespace locksim
