#include "sim/explore/explore.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "lockimpls/lock.h"
#include "reports/run_json.h"
#include "sim/check/lease.h"
#include "sim/core/crash.h"
#include "sim/core/errors.h"
#include "sim/core/random.h"
#include "sim/core/text.h"
#include "sim/explore/shrink.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"

namespace locksim {
namespace {

using ojson = nlohmann::ordered_json;
using std::chrono::milliseconds;

// Candidate runs a finding may spend on shrinking. Each is one virtual run
// (about a millisecond); enough for the scenarios generated here to reach a
// fixpoint in most cases.
constexpr int kShrinkBudget = 600;
// On real servers each candidate takes wall-clock time (a second or more):
// a few dozen runs shrink the obvious (clients, faults, duration).
constexpr int kRealShrinkBudget = 24;
// Replays of a saved file on real servers that must all show its kind.
constexpr int kRealReplays = 3;
// A shrunk file is also replayed once this many times faster (see save).
constexpr int64_t kRealMarginFactor = 2;
// Real time a shrunk run goes on after its violation, at least (Shrink's
// run_slack, scaled to the scenario's time). Without it a shrunk run ended
// within a millisecond of real time after the second holder entered, and a
// replay on a busy machine (two busy loops on both cores) showed nothing in
// one run of eight.
constexpr Nanos kRealRunSlack = milliseconds(250);
// Real time a shrunk duration is moved back from the edge where its
// violation goes (Shrink's edge_margin, scaled to the scenario's time). A
// binary search stops within a sixteenth of the edge: on real servers at
// 1/10 of real time it left two clients' starts 5 ms of real time apart,
// and the saved file, though it had passed its replays, replayed safe in a
// `make test` that compiled beside it.
constexpr Nanos kRealEdgeMargin = milliseconds(50);

// What the workload's broken invariant cost, as a token.
std::string EffectToken(const RunResult& r) {
  if (r.limiter) return r.effect.safety_holds ? "counter-without-ttl" : "over-limit";
  switch (r.scenario.workload.type) {
    case WorkloadSpec::Type::kInventory: return "oversold";
    case WorkloadSpec::Type::kTokenRefresh: return "double-refresh";
    case WorkloadSpec::Type::kScheduledJob: return "double-run";
    default: return "lost-update";
  }
}

// What a shrunk scenario still needs of its shape besides faults.
std::vector<std::string> Features(const ojson& doc) {
  std::vector<std::string> out;
  bool reenter = false, threads = false;
  for (const ojson& c : doc["clients"]) {
    reenter = reenter || c.value("reenter", false);
    threads = threads || c.value("threads", int64_t{1}) > 1;
  }
  if (reenter) out.push_back("reenter");
  if (threads) out.push_back("threads");
  return out;
}

std::string FileName(uint64_t seed) { return "explore-seed" + std::to_string(seed); }

std::string Plural(int64_t n, const std::string& what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

int64_t Iterations(const ojson& doc) {
  int64_t sum = 0;
  for (const ojson& c : doc["clients"]) sum += c.value("iterations", int64_t{1});
  return sum;
}

Nanos DurationOf(const ojson& doc) {
  std::string error;
  return ParseDuration(doc["duration"].get<std::string>(), &error).value_or(Nanos{0});
}

}  // namespace

std::vector<std::string> Signature(const RunResult& r) {
  std::set<std::string> tokens;
  std::optional<LeaseIndex> leases;  // built at the first section asked about
  for (const Violation& v : r.check.violations) {
    if (v.kind == ViolationKind::kForeignWrite) {
      tokens.insert("foreign-write-" + ForeignWriteCommand(r.history, v));
      continue;
    }
    tokens.insert(std::string(ViolationKindName(v.kind)));
    for (const CriticalSection* s : {&v.first, &v.second}) {
      if (!leases) leases.emplace(r.history);
      if (leases->EnteredAfterItsLease(s->process, s->enter_index)) tokens.insert("late-entry");
    }
  }
  if (!r.effect.holds) tokens.insert(EffectToken(r));
  if (tokens.empty() || !r.violated()) {
    if (r.verdict() == Verdict::kDeadlock) tokens.insert("deadlock");
    if (r.verdict() == Verdict::kDegraded) tokens.insert("degraded");
  }
  if (r.verdict() == Verdict::kSafe) return {};
  return {tokens.begin(), tokens.end()};
}

// The contract a client keeps with its lock, within which explore looks
// for violations: a lease of at least 100ms (Redlock's drift allowance is
// 2ms plus 1%: far below that it leaves no validity at all), work that
// takes at most 80% of it, and a socket timeout on a link that loses
// messages (without one a lost reply hangs its client for ever, whatever
// the lock). A hold longer than the lease is a usage bug, not the lock's,
// so neither generation nor shrinking goes there.
constexpr Nanos kMinTtl = milliseconds(100);
bool KeepsContract(const Scenario& s) {
  if (s.network.timeout == Nanos{0}) {
    for (const FaultSpec& f : s.faults) {
      if (f.type == FaultSpec::Type::kDrop) return false;
    }
  }
  if (!s.lock.ttl) return true;
  if (*s.lock.ttl < kMinTtl) return false;
  for (const ClientSpec& c : s.clients) {
    if (c.hold * 5 > *s.lock.ttl * 4) return false;
  }
  return true;
}

// The fault classes of a kind: those of the faults left, with a pause of a
// Redis node told apart from a client's ("node-pause"), and a clock fault
// or a crash named by what it hit.
std::vector<std::string> KindFaultClasses(const ojson& doc, const std::vector<std::string>& nodes) {
  std::set<std::string> classes;
  for (const ojson& fault : doc["faults"]) {
    const std::string type = fault["type"].get<std::string>();
    const bool on_node = std::find(nodes.begin(), nodes.end(), fault.value("process", "")) != nodes.end();
    if (type == "pause") {
      classes.insert(on_node ? "node-pause" : "pause");
    } else if (type == "clock" || type == "crash") {
      classes.insert((on_node ? "node-" : "client-") + type);
    } else if (type == "delay" || type == "drop") {
      classes.insert("delay-drop");
    } else {
      classes.insert(type);
    }
  }
  std::vector<std::string> out;
  for (const std::string& k : FaultClasses()) {
    if (k == "pause" && classes.contains("node-pause")) out.push_back("node-pause");
    if (classes.contains(k)) out.push_back(k);
  }
  return out;
}

std::string FindingStory(const RunResult& result) {
  std::string story;
  for (const Violation& v : result.check.violations) {
    story += (story.empty() ? "" : "; ") + DescribeViolation(result, v);
  }
  if (!result.effect.holds) story += (story.empty() ? "" : "; ") + Join(result.effect.sentences, "; ");
  if (!result.violated() && !result.liveness.text.empty()) {
    story += (story.empty() ? "" : "; ") + result.liveness.text;
  }
  return story;
}

ojson FindingExpect(const RunResult& result, const std::string& note) {
  ojson expect;
  expect["verdict"] = VerdictName(result.verdict());
  expect["kinds"] = ViolationKindNames(result.Kinds());
  expect["overlaps"] = result.OverlapPairs();
  expect["invariant"] = result.effect.holds ? "holds" : "broken";
  expect["note"] = note;
  return expect;
}

bool Shorter(const Finding& a, const Finding& b) {
  return std::tie(a.duration, a.clients, a.fault_count, a.iterations, a.seed) <
         std::tie(b.duration, b.clients, b.fault_count, b.iterations, b.seed);
}

SeedOutcome ProbeSeed(const ExploreSpec& spec, uint64_t seed, ScriptStatePool* script_states) {
  RunOptions options = SeedRunOptions(spec, seed);
  options.script_states = script_states;
  const std::string file = FileName(seed);
  RunResult r;
  try {
    r = RunScenario(ParseScenarioDoc(GenerateScenario(spec, seed), file), options);
  } catch (const InputError& e) {
    throw HarnessError("explore seed " + std::to_string(seed) +
                       ": generated a scenario the parser refuses: " + e.what());
  }
  return {r.verdict(), Signature(r)};
}

std::optional<Finding> ExploreSeed(const ExploreSpec& spec, uint64_t seed, SeedNote* note,
                                   ScriptStatePool* script_states) {
  const std::string file = FileName(seed);
  RunOptions options = SeedRunOptions(spec, seed);
  options.script_states = script_states;
  const bool real = spec.backend == Backend::kReal;
  SeedNote ignored;
  if (note == nullptr) note = &ignored;
  // nullopt: a candidate the parser or the lease contract refuses.
  auto run = [&](const ojson& doc) -> std::optional<RunResult> {
    Scenario s;
    try {
      s = ParseScenarioDoc(doc, file);
    } catch (const InputError&) {
      return std::nullopt;
    }
    if (!KeepsContract(s)) return std::nullopt;
    try {
      return RunScenario(s, options);
    } catch (const InputError&) {
      if (!real) throw;
      return std::nullopt;  // a candidate the real backend cannot carry out
    }
  };

  ojson doc = GenerateScenario(spec, seed);
  Scenario parsed;
  try {
    parsed = ParseScenarioDoc(doc, file);
  } catch (const InputError& e) {
    throw HarnessError("explore seed " + std::to_string(seed) +
                       ": generated a scenario the parser refuses: " + e.what());
  }
  std::optional<RunResult> first;
  try {
    first = RunScenario(parsed, options);
  } catch (const InputError& e) {
    if (!real) {
      throw HarnessError("explore seed " + std::to_string(seed) +
                         ": generated a scenario the virtual Redis refuses: " + e.what());
    }
    // Something the real backend does not carry out (explore.h).
    note->unrunnable = true;
    return std::nullopt;
  }
  if (first->verdict() == Verdict::kSafe) return std::nullopt;
  const std::vector<std::string> signature = Signature(*first);

  // A fault whose trigger never fired did nothing; the saved file must not
  // carry it (the replay would report it unfired).
  if (!first->unfired.empty()) {
    ojson fired = ojson::array();
    for (size_t i = 0; i < doc["faults"].size(); ++i) {
      const std::string path = "$.faults[" + std::to_string(i) + "]";
      const bool unfired = std::any_of(first->unfired.begin(), first->unfired.end(),
                                       [&](const std::string& u) { return u.starts_with(path + ":"); });
      if (!unfired) fired.push_back(doc["faults"][i]);
    }
    doc["faults"] = fired;
  }
  // What the shrink needs of the first run; its history, the largest of
  // the seed, is let go before the runs of the shrink, which would
  // otherwise hold theirs beside it (a retry storm's doubled a seed's peak).
  const Verdict verdict = first->verdict();
  const std::vector<std::string> node_names = first->scenario.NodeNames();
  first.reset();
  auto keeps = [&](const ojson& candidate) {
    std::optional<RunResult> r = run(candidate);
    return r && r->verdict() == verdict && r->unfired.empty() && Signature(*r) == signature;
  };
  if (!keeps(doc)) {
    if (real) {
      note->unconfirmed = true;  // a real run did not show it again
      return std::nullopt;
    }
    throw HarnessError("explore seed " + std::to_string(seed) +
                       ": the run changed when faults that never fired were left out");
  }
  ShrinkStats stats;
  // kRealRunSlack and kRealEdgeMargin of real time, as the scenario's.
  const TimeScale scale = spec.time_scale.value_or(TimeScale{});
  const TimeScale to_scenario{scale.den, scale.num};
  const Nanos run_slack = real ? to_scenario.Apply(kRealRunSlack) : Nanos{0};
  const Nanos edge_margin = real ? to_scenario.Apply(kRealEdgeMargin) : Nanos{0};
  const ojson shrunk_doc = Shrink(doc, keeps, real ? kRealShrinkBudget : kShrinkBudget, &stats,
                                  run_slack, edge_margin);
  // The finding of `small` (the shrunk scenario), saved and replayed; on
  // real servers nullopt when a run of it does not show the same kind.
  auto save = [&](const ojson& small, bool shrunk_file) -> std::optional<Finding> {
    std::optional<RunResult> shrunk = run(small);
    if (!shrunk || (real && Signature(*shrunk) != signature)) return std::nullopt;
    const RunResult result = std::move(*shrunk);

    Finding f;
    f.seed = seed;
    f.verdict = VerdictName(result.verdict());
    f.violations = signature;
    f.fault_classes = KindFaultClasses(small, node_names);
    const std::vector<std::string> features = Features(small);
    f.kind = Join(f.violations, "+") + "--" +
             (f.fault_classes.empty() ? std::string("no-fault") : Join(f.fault_classes, "+")) +
             (features.empty() ? "" : "--" + Join(features, "+"));
    f.file = "findings/" + f.kind + "-seed" + std::to_string(seed) + ".json";
    f.clients = static_cast<int64_t>(small["clients"].size());
    f.fault_count = static_cast<int64_t>(small["faults"].size());
    f.iterations = Iterations(small);
    f.duration = DurationOf(small);
    f.original_clients = static_cast<int64_t>(doc["clients"].size());
    f.original_faults = static_cast<int64_t>(doc["faults"].size());
    f.original_duration = DurationOf(doc);
    f.shrink_runs = stats.runs;

    std::string args = "--algorithm " + spec.algorithm + " --faults " +
                       (spec.faults.empty() ? std::string("none") : Join(spec.faults, ","));
    if (real) {
      args += " --backend real";
      if (spec.time_scale) args += " --time-scale " + spec.time_scale->ToString();
    }
    const std::string story = FindingStory(result);
    ojson out;
    out["name"] = "explore-" + spec.algorithm + "-seed" + std::to_string(seed);
    out["description"] =
        "Found by locksim explore (seed " + std::to_string(seed) + ", " + args +
        ") and shrunk from " + Plural(f.original_clients, "client") + ", " +
        Plural(f.original_faults, "fault") + " and " + FormatDuration(f.original_duration) +
        " to " + Plural(f.clients, "client") + ", " + Plural(f.fault_count, "fault") + " and " +
        FormatDuration(f.duration) + ". Kind " + f.kind + ": " + story + ".";
    out["source"] = "locksim explore seed " + std::to_string(seed) + " (locksim explore " + args +
                    " --first-seed " + std::to_string(seed) + " --seeds 1)";
    for (const auto& [k, v] : small.items()) {
      if (k == "faults" && v.empty()) continue;
      out[k] = v;
    }
    // Replayed on real servers (locksim run FILE --backend real), at the
    // scale it was found at.
    if (real && spec.time_scale) out["real_time_scale"] = spec.time_scale->ToString();
    // What shrank to nothing reads better absent (the defaults are 0).
    for (ojson& c : out["clients"]) {
      if (c.value("think", "") == FormatDuration(Nanos{0})) c.erase("think");
    }
    if (out.contains("faults")) {
      for (ojson& fault : out["faults"]) {
        if (fault.contains("on") && fault["on"].value("after", "") == FormatDuration(Nanos{0})) fault["on"].erase("after");
      }
    }
    out["expect"] = {{spec.algorithm, FindingExpect(result, "explore kind " + f.kind)}};
    f.text = out.dump(2) + "\n";

    // The file must replay, through the parser, to what it expects: as
    // `locksim run FILE` runs it.
    const Scenario saved = ParseScenario(f.text, f.file);
    RunOptions replay = SeedRunOptions(spec, seed);
    replay.script_states = script_states;
    replay.algorithm.clear();
    replay.label = spec.algorithm;
    // Whether a replay with `options` shows the finding's kind. On real
    // servers a time scale too fast for the backend to carry out does not.
    auto shows = [&](const RunOptions& options) {
      try {
        const RunResult again = RunScenario(saved, options);
        return again.ExpectationMet() == true && Signature(again) == signature;
      } catch (const InputError&) {
        if (!real) throw;
        return false;
      }
    };
    if (!real) {
      if (shows(replay)) return f;
      throw HarnessError("explore seed " + std::to_string(seed) + ": the shrunk scenario " + f.file +
                         " does not replay to the same outcome");
    }
    // Shrinking on real servers drifts towards the edge, and a file can
    // pass its replays with little to spare: a shrunk redis-py file whose
    // second holder entered 74 ms of real time before the first one left
    // replayed as safe in two of three `make test` runs on a machine
    // loaded by two busy loops. So a shrunk file must also show its kind
    // once at twice the speed, where each real-time margin of its story is
    // half as wide: at its own scale it then has twice the margin that a
    // run on this machine, loaded as it is now, needed. That replay comes
    // first, as the one a file too close to the edge fails.
    if (shrunk_file) {
      RunOptions faster = replay;
      faster.time_scale = TimeScale{scale.num, scale.den * kRealMarginFactor};
      if (!shows(faster)) return std::nullopt;
    }
    // A real run is not byte-identical: the file is kept only when each of
    // kRealReplays replays at its own scale shows the same kind, so that a
    // file shrunk to within a scheduling hiccup of its story (two starts a
    // few real milliseconds apart) is not handed out as a finding that
    // replays.
    for (int i = 0; i < kRealReplays; ++i) {
      if (!shows(replay)) return std::nullopt;
    }
    return f;
  };
  if (std::optional<Finding> f = save(shrunk_doc, shrunk_doc != doc)) return f;
  // Real only (a virtual mismatch threw). Shrinking on real servers drifts
  // towards the edge (a pause only just past the lease), where a run may
  // not repeat; the unshrunk scenario, seen twice already, has its margins.
  if (shrunk_doc != doc) {
    if (std::optional<Finding> f = save(doc, false)) return f;
  }
  note->unconfirmed = true;
  return std::nullopt;
}

ExploreResult RunExplore(const ExploreSpec& spec, const SeedPlan& plan, int jobs,
                         const std::function<bool()>& keep_going,
                         const std::function<void(const ExploreProgress&)>& progress,
                         const FindingSink& sink) {
  ExploreResult result;
  result.spec = spec;
  result.plan = plan;
  const uint64_t stride = static_cast<uint64_t>(plan.shard_count);
  const uint64_t offset = static_cast<uint64_t>(plan.shard_index);
  // The k-th seed of this shard.
  auto seed_of = [&](uint64_t k) { return plan.first + offset + k * stride; };
  const uint64_t total = plan.count == 0 ? 0
                         : plan.count > offset ? (plan.count - offset + stride - 1) / stride
                                               : 0;
  std::mutex mu;
  uint64_t next = 0;  // seeds started, in order: always a prefix
  bool stop = false;
  std::exception_ptr error;
  ExploreProgress state;
  // Seeds done but not yet handed on, because a lower one is still running:
  // at most about one per worker, since seeds are started in order.
  std::map<uint64_t, std::optional<Finding>> waiting;
  uint64_t handed = 0;  // seeds handed on: a prefix
  auto hand_on = [&](uint64_t k, std::optional<Finding> found) {
    waiting.emplace(k, std::move(found));
    for (auto it = waiting.begin(); it != waiting.end() && it->first == handed;
         it = waiting.erase(it), ++handed) {
      if (!it->second) continue;
      ++result.violating;
      if (sink.in_order) {
        sink.in_order(std::move(*it->second));
      } else {
        result.findings.push_back(std::move(*it->second));
      }
    }
  };
  auto worker = [&]() {
    // This thread's Lua states, handed on from each run to the next.
    const std::shared_ptr<ScriptStatePool> script_states = NewScriptStatePool();
    for (;;) {
      uint64_t k = 0;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (stop || (plan.count > 0 && next >= total)) return;
        if (plan.count == 0 && !keep_going()) {
          stop = true;
          return;
        }
        k = next++;
      }
      std::optional<Finding> found;
      SeedNote note;
      try {
        const uint64_t seed = seed_of(k);
        const CrashNote crash_note("explore seed " + std::to_string(seed) +
                                   ": to replay it alone, give --first-seed " +
                                   std::to_string(seed) + " --seeds 1 instead of the seed options");
        found = ExploreSeed(spec, seed, &note, script_states.get());
        if (found && sink.at_once) sink.at_once(*found);
      } catch (...) {  // the seed, or the sink's at_once
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
        stop = true;
        return;
      }
      std::lock_guard<std::mutex> lock(mu);
      ++state.done;
      result.unrunnable += note.unrunnable;
      result.unconfirmed += note.unconfirmed;
      if (found) {
        ++state.violations;
        if (!state.first_violation_seed) state.first_violation_seed = found->seed;
      }
      try {
        hand_on(k, std::move(found));
      } catch (...) {  // the sink could not write
        if (!error) error = std::current_exception();
        stop = true;
        return;
      }
      if (progress) progress(state);
    }
  };
  std::vector<std::thread> threads;
  for (int i = 1; i < std::max(jobs, 1); ++i) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  if (error) std::rethrow_exception(error);
  result.runs = static_cast<int64_t>(next);
  result.last = plan.count > 0 ? plan.first + plan.count - 1
                : next > 0     ? seed_of(next - 1)
                               : plan.first - 1;
  return result;
}

namespace {

// summary.json without "kinds" and "findings".
ojson SummaryHead(const ExploreResult& r) {
  ojson j;
  j["schema"] = "locksim-explore";
  j["schema_version"] = 1;
  j["algorithm"] = r.spec.algorithm;
  j["faults"] = r.spec.faults;
  j["seeds"] = {{"first", r.plan.first},
                {"last", r.last},
                {"count", r.last + 1 - r.plan.first}};
  if (r.plan.shard_count > 1) {
    j["shard"] = std::to_string(r.plan.shard_index) + "/" + std::to_string(r.plan.shard_count);
  }
  j["runs"] = r.runs;
  j["violating_seeds"] = r.violating;
  if (r.spec.backend == Backend::kReal) {
    // Only on real servers (virtual summaries stay as they were): where it
    // ran, and what it could not run or did not keep (SeedNote).
    j["backend"] = "real";
    if (r.spec.time_scale) j["time_scale"] = r.spec.time_scale->ToString();
    j["unrunnable_seeds"] = r.unrunnable;
    j["not_kept"] = r.unconfirmed;
  }
  return j;
}

// One entry of summary.json's "findings".
ojson FindingJson(const Finding& f) {
  ojson fj;
  fj["seed"] = f.seed;
  fj["kind"] = f.kind;
  fj["file"] = f.file;
  fj["violations"] = f.violations;
  fj["faults"] = f.fault_classes;
  fj["shrunk"] = {{"duration", FormatDuration(f.duration)},
                  {"clients", f.clients},
                  {"faults", f.fault_count},
                  {"iterations", f.iterations}};
  fj["original"] = {{"duration", FormatDuration(f.original_duration)},
                    {"clients", f.original_clients},
                    {"faults", f.original_faults}};
  fj["shrink_runs"] = f.shrink_runs;
  return fj;
}

}  // namespace

int KindTallies::Add(const Finding& f) {
  auto [it, added] = by_kind_.try_emplace(f.kind);
  Tally& t = it->second;
  if (added || Shorter(f, t.shortest)) {
    t.shortest = f;
    t.shortest.text.clear();
  }
  if (added) {
    t.number = static_cast<int>(by_kind_.size()) - 1;
    t.violations = f.violations;
    t.faults = f.fault_classes;
  }
  ++t.count;
  return t.number;
}

ojson KindTallies::Json(std::vector<Ref>* order) const {
  std::vector<std::pair<const std::string*, const Tally*>> kinds;
  for (const auto& [kind, tally] : by_kind_) kinds.emplace_back(&kind, &tally);
  std::stable_sort(kinds.begin(), kinds.end(), [](const auto& a, const auto& b) {
    return a.second->count > b.second->count;
  });
  ojson out = ojson::array();
  for (const auto& [kind, t] : kinds) {
    if (order != nullptr) order->push_back({t->number, t->count});
    const Finding& shortest = t->shortest;
    ojson k;
    k["kind"] = *kind;
    k["violations"] = t->violations;
    k["faults"] = t->faults;
    k["count"] = t->count;
    k["shortest"] = {{"seed", shortest.seed},
                     {"file", shortest.file},
                     {"duration", FormatDuration(shortest.duration)},
                     {"clients", shortest.clients},
                     {"faults", shortest.fault_count},
                     {"iterations", shortest.iterations}};
    k["seeds"] = ojson::array();
    out.push_back(k);
  }
  return out;
}

ojson SummaryJson(const ExploreResult& r) {
  ojson j = SummaryHead(r);
  KindTallies kinds;
  std::vector<std::vector<uint64_t>> seeds;  // by kind number
  for (const Finding& f : r.findings) {
    const size_t number = static_cast<size_t>(kinds.Add(f));
    if (number == seeds.size()) seeds.emplace_back();
    seeds[number].push_back(f.seed);
  }
  std::vector<KindTallies::Ref> order;
  j["kinds"] = kinds.Json(&order);
  for (size_t i = 0; i < order.size(); ++i) {
    j["kinds"][i]["seeds"] = seeds[static_cast<size_t>(order[i].number)];
  }
  ojson findings = ojson::array();
  for (const Finding& f : r.findings) findings.push_back(FindingJson(f));
  j["findings"] = findings;
  return j;
}

SummaryWriter::SummaryWriter(std::string dir)
    : dir_(std::move(dir)),
      spool_path_(dir_ + "/.summary-findings.part"),
      seeds_path_(dir_ + "/.summary-seeds.part") {
  spool_ = std::fopen(spool_path_.c_str(), "w+");
  if (spool_ == nullptr) throw InputError("--out: cannot write " + spool_path_);
  seeds_ = std::fopen(seeds_path_.c_str(), "w+b");
  if (seeds_ == nullptr) {
    std::fclose(spool_);
    std::remove(spool_path_.c_str());
    throw InputError("--out: cannot write " + seeds_path_);
  }
}

SummaryWriter::~SummaryWriter() {
  std::fclose(spool_);
  std::remove(spool_path_.c_str());
  std::fclose(seeds_);
  std::remove(seeds_path_.c_str());
}

namespace {
void WriteWhole(const std::string& path, const std::string& text) {
  std::FILE* out = std::fopen(path.c_str(), "w");
  const bool ok = out != nullptr && std::fwrite(text.data(), 1, text.size(), out) == text.size();
  if (out != nullptr && std::fclose(out) != 0) throw InputError("--out: cannot write " + path);
  if (!ok) throw InputError("--out: cannot write " + path);
}

// A finding's record in the seeds spool.
struct SeedRecord {
  uint64_t seed;
  uint64_t kind;  // KindTallies' number
};
}  // namespace

void SummaryWriter::WriteFile(const Finding& f, const std::string& text) const {
  WriteWhole(dir_ + "/" + f.file, text);
}

void SummaryWriter::Add(const Finding& f, const std::string& text) {
  WriteFile(f, text);
  Record(f);
}

void SummaryWriter::Record(const Finding& f) {
  const SeedRecord record{f.seed, static_cast<uint64_t>(kinds_.Add(f))};
  if (std::fwrite(&record, sizeof record, 1, seeds_) != 1) {
    throw InputError("--out: cannot write " + seeds_path_);
  }
  // As nlohmann's dump(2) lays out an element of an array two levels down.
  std::string entry = FindingJson(f).dump(2);
  std::string indented = (count_ == 0 ? "" : ",\n") + std::string("    ");
  for (char c : entry) {
    indented += c;
    if (c == '\n') indented += "    ";
  }
  if (std::fwrite(indented.data(), 1, indented.size(), spool_) != indented.size()) {
    throw InputError("--out: cannot write " + spool_path_);
  }
  ++count_;
}

void SummaryWriter::Finish(const ExploreResult& result) {
  ExploreResult head = result;
  head.violating = count_;
  ojson j = SummaryHead(head);
  std::vector<KindTallies::Ref> order;
  j["kinds"] = kinds_.Json(&order);
  j["findings"] = ojson::array();
  std::string text = j.dump(2);
  // It ends with `"findings": []\n}`: the entries go between the brackets.
  const size_t brackets = text.rfind("[]");
  std::string tail = text.substr(brackets + 2) + "\n";
  text.resize(brackets);
  // What the spools hold must be on disk before they are read back (a
  // write that fails at the flush is seen here, not lost by a rewind).
  if (std::fflush(seeds_) != 0) throw InputError("--out: cannot write " + seeds_path_);
  if (std::fflush(spool_) != 0) throw InputError("--out: cannot write " + spool_path_);
  const std::string path = dir_ + "/summary.json";
  // Closed on every way out; at the end by hand, to see that it closed.
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(
      std::fopen(path.c_str(), "w"), [](std::FILE* f) { return std::fclose(f); });
  std::FILE* out = file.get();
  if (out == nullptr) throw InputError("--out: cannot write " + path);
  bool ok = true;
  auto write = [&](std::string_view part) {
    ok = ok && std::fwrite(part.data(), 1, part.size(), out) == part.size();
  };
  // Each kind's "seeds": [] (Json() leaves them empty, in `order`) gets its
  // seeds from the spool, in seed order, as dump(2) lays out an array three
  // levels down. The spool is read once a kind: a sweep's kinds are few,
  // and its findings need not fit in memory.
  constexpr std::string_view kEmptySeeds = "\"seeds\": []";
  size_t from = 0;
  for (const KindTallies::Ref& kind : order) {
    const size_t empty = text.find(kEmptySeeds, from);
    if (empty == std::string::npos) throw HarnessError(path + ": a kind without its seeds");
    const size_t bracket = empty + kEmptySeeds.size() - 1;  // the ']'
    write(std::string_view(text).substr(from, bracket - from));
    std::rewind(seeds_);
    SeedRecord records[4096];
    int64_t seeds = 0;
    size_t n;
    while ((n = std::fread(records, sizeof records[0], std::size(records), seeds_)) > 0) {
      for (size_t i = 0; i < n; ++i) {
        if (records[i].kind != static_cast<uint64_t>(kind.number)) continue;
        write(seeds == 0 ? "\n        " : ",\n        ");
        write(std::to_string(records[i].seed));
        ++seeds;
      }
    }
    if (std::ferror(seeds_)) throw InputError("--out: cannot read " + seeds_path_);
    if (seeds != kind.count) {
      throw HarnessError(seeds_path_ + ": " + std::to_string(seeds) + " seed(s) of a kind of " +
                         std::to_string(kind.count) + " finding(s)");
    }
    write("\n      ");
    from = bracket;
  }
  write(std::string_view(text).substr(from));
  if (count_ == 0) {
    write("[]");
  } else {
    write("[\n");
    std::rewind(spool_);
    char buf[1 << 16];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, spool_)) > 0) write(std::string_view(buf, n));
    if (std::ferror(spool_)) throw InputError("--out: cannot read " + spool_path_);
    write("\n  ]");
  }
  write(tail);
  const bool closed = std::fclose(file.release()) == 0;
  if (!ok || !closed) throw InputError("--out: cannot write " + path);
}

ExploreResult ParseSummary(const std::string& text, const std::string& file) {
  ExploreResult r;
  std::string at = "$";
  auto fail = [&](const std::string& what) -> void {
    throw InputError(file + ": " + at + ": " + what);
  };
  try {
    const ojson j = ojson::parse(text);
    if (!j.is_object() || j.value("schema", "") != "locksim-explore") {
      fail("not an explore summary (\"schema\": \"locksim-explore\")");
    }
    at = "$.schema_version";
    if (j.at("schema_version").get<int>() != 1) fail("unsupported version");
    if (j.contains("backend")) {
      at = "$.backend";
      fail("a search on real servers is not merged (its seeds ran one at a time, and do not "
           "repeat byte for byte)");
    }
    at = "$.algorithm";
    r.spec.algorithm = j.at("algorithm").get<std::string>();
    at = "$.faults";
    r.spec.faults = j.at("faults").get<std::vector<std::string>>();
    at = "$.seeds";
    r.plan.first = j.at("seeds").at("first").get<uint64_t>();
    r.last = j.at("seeds").at("last").get<uint64_t>();
    r.plan.count = r.last + 1 - r.plan.first;
    if (j.contains("shard")) {
      at = "$.shard";
      const std::string shard = j.at("shard").get<std::string>();
      const size_t slash = shard.find('/');
      if (slash == std::string::npos) fail("expected \"i/N\"");
      r.plan.shard_index = std::stoll(shard.substr(0, slash));
      r.plan.shard_count = std::stoll(shard.substr(slash + 1));
    }
    at = "$.runs";
    r.runs = j.at("runs").get<int64_t>();
    const ojson& findings = j.at("findings");
    for (size_t i = 0; i < findings.size(); ++i) {
      at = "$.findings[" + std::to_string(i) + "]";
      const ojson& fj = findings[i];
      Finding f;
      f.seed = fj.at("seed").get<uint64_t>();
      f.kind = fj.at("kind").get<std::string>();
      f.file = fj.at("file").get<std::string>();
      if (f.file.find("..") != std::string::npos || !f.file.starts_with("findings/")) {
        fail("\"file\" must be under findings/");
      }
      f.violations = fj.at("violations").get<std::vector<std::string>>();
      f.fault_classes = fj.at("faults").get<std::vector<std::string>>();
      std::string error;
      auto duration = [&](const ojson& d) {
        auto v = ParseDuration(d.get<std::string>(), &error);
        if (!v) fail(error);
        return *v;
      };
      const ojson& shrunk = fj.at("shrunk");
      f.duration = duration(shrunk.at("duration"));
      f.clients = shrunk.at("clients").get<int64_t>();
      f.fault_count = shrunk.at("faults").get<int64_t>();
      f.iterations = shrunk.at("iterations").get<int64_t>();
      const ojson& original = fj.at("original");
      f.original_duration = duration(original.at("duration"));
      f.original_clients = original.at("clients").get<int64_t>();
      f.original_faults = original.at("faults").get<int64_t>();
      f.shrink_runs = fj.at("shrink_runs").get<int>();
      r.findings.push_back(std::move(f));
      ++r.violating;
    }
  } catch (const nlohmann::json::exception& e) {
    fail(std::string("malformed explore summary: ") + e.what());
  } catch (const std::logic_error& e) {  // std::stoll
    fail(std::string("malformed explore summary: ") + e.what());
  }
  return r;
}

}  // namespace locksim
