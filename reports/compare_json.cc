#include "reports/compare_json.h"

#include <cstdlib>
#include <map>
#include <optional>
#include <utility>

#include "reports/run_json.h"
#include "sim/core/errors.h"

namespace locksim {
namespace {

using ojson = nlohmann::ordered_json;

std::string Duration(Nanos d) { return d.count() == 0 ? "0s" : FormatDuration(d); }

std::string Names(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ",") + n;
  return s;
}

// One line per fault for the matrix's row heads: "pause A at 1s for 10s",
// "crash A at A's reply EVAL", "clock redis0 at 1s jump +5s".
std::string FaultText(const FaultSpec& f) {
  std::string s(FaultTypeName(f.type));
  if (!f.process.empty()) s += " " + f.process;
  if (!f.from.empty() || !f.to.empty()) s += " " + Names(f.from) + " / " + Names(f.to);
  if (f.at) {
    s += " at " + Duration(*f.at);
  } else if (f.on) {
    s += " at " + f.on->process + "'s " + std::string(TriggerEventName(f.on->event));
    if (!f.on->command.empty()) s += " " + f.on->command;
    if (f.on->count > 1) s += " #" + std::to_string(f.on->count);
    if (f.on->after.count() > 0) s += " + " + Duration(f.on->after);
  }
  if (f.duration.count() > 0) s += " for " + Duration(f.duration);
  if (f.offset) s += " offset " + std::string(f.offset->count() < 0 ? "-" : "+") + Duration(Nanos(std::abs(f.offset->count())));
  if (f.jump) s += " jump " + std::string(f.jump->count() < 0 ? "-" : "+") + Duration(Nanos(std::abs(f.jump->count())));
  if (f.drift_ppm) s += " drift " + std::to_string(*f.drift_ppm) + " ppm";
  return s;
}

ojson ScenarioToJson(const Scenario& s) {
  ojson j;
  j["name"] = s.name;
  j["file"] = s.file;
  j["description"] = s.description;
  j["source"] = s.source;
  j["seed"] = s.seed;
  j["duration"] = s.duration.count();
  j["clients"] = s.clients.size();
  j["workload"] = WorkloadName(s.workload.type);
  ojson faults = ojson::array();
  for (const FaultSpec& f : s.faults) faults.push_back(FaultText(f));
  j["faults"] = faults;
  return j;
}

ojson ExpectedToJson(const Expectation& x, bool met) {
  ojson e;
  e["verdict"] = VerdictName(x.verdict);
  if (x.has_overlaps) e["overlaps"] = x.overlaps;
  if (!x.kinds.empty()) e["kinds"] = ViolationKindNames(x.kinds);
  if (x.invariant_holds) e["invariant"] = *x.invariant_holds ? "holds" : "broken";
  e["met"] = met;
  return e;
}

ojson CellToJson(const CompareResult& result, const CompareCell& c) {
  const Scenario& s = result.scenarios[c.scenario];
  ojson j;
  j["scenario"] = s.name;
  j["algorithm"] = c.algorithm;
  j["id"] = s.name + "--" + c.algorithm;
  j["verdict"] = c.VerdictText();
  if (!c.skipped.empty()) {
    j["skipped"] = c.skipped;
    return j;
  }
  j["violations"] = c.Violations();
  int64_t seeds_failed = 0;
  for (const CellRun& r : c.runs) seeds_failed += r.verdict != Verdict::kSafe;
  j["seeds_not_safe"] = seeds_failed;
  const RunResult* shown = c.Shown();
  if (c.overrides) j["overrides"] = true;
  j["kinds"] = ViolationKindNames(shown->Kinds());
  j["overlaps"] = shown->OverlapPairs();
  // The scenario's expectation for this algorithm id (an entry under a
  // label is not the cell's).
  if (auto met = c.ExpectationMet()) {
    auto it = s.expect.find(c.algorithm);
    if (it != s.expect.end()) j["expected"] = ExpectedToJson(it->second, *met);
  }
  if (shown->limiter || s.workload.type != WorkloadSpec::Type::kNone) {
    j["invariant_holds"] = shown->effect.holds;
    j["effects"] = shown->effect.sentences;
  }
  j["figures"] = StatsToJson(c.stats);
  // A lock that no client ever held, in any seed, was not tested: its
  // "safe" says nothing (as a run's JSON says, docs/results.md).
  if (!shown->limiter && c.stats.acquisitions == 0 && c.Worst() == Verdict::kSafe) {
    j["nothing_tested"] = true;
  }
  ojson runs = ojson::array();
  for (const CellRun& r : c.runs) {
    ojson rj;
    rj["seed"] = r.seed;
    rj["verdict"] = VerdictName(r.verdict);
    rj["violations"] = r.violations;
    if (r.expectation_met) rj["expectation_met"] = *r.expectation_met;
    runs.push_back(rj);
  }
  j["runs"] = std::move(runs);
  if (c.counterexample) {
    j["counterexample"] = ResultToJson(*c.counterexample, true, kCounterexampleHistoryOps);
  }
  return j;
}

ojson SearchCellToJson(const SearchResult& search, const SearchCell& c) {
  ojson j;
  j["algorithm"] = c.algorithm;
  j["class"] = c.fault_class;
  j["id"] = SearchCellId(c.algorithm, c.fault_class);
  if (!c.skipped.empty()) {
    j["verdict"] = "skipped";
    j["skipped"] = c.skipped;
    return j;
  }
  j["verdict"] = VerdictName(c.worst);
  j["runs"] = c.runs;
  j["seeds_with_finding"] = c.with_finding;
  if (c.verified_bound) {
    j["verified_bound"] = *c.verified_bound;
    j["verified_schedules"] = c.verified_schedules;
    j["verified_bound_text"] = c.verified_bound_text;
  }
  ojson outcomes = ojson::array();
  for (const auto& [tokens, n] : c.outcomes) outcomes.push_back({{"outcome", tokens}, {"seeds", n}});
  j["outcomes"] = outcomes;
  if (!c.example) return j;
  const SearchExample& ex = *c.example;
  const RunResult& run = ex.run;
  j["scenario"] = run.scenario.name;
  j["file"] = "search/" + SearchCellId(c.algorithm, c.fault_class) + ".json";
  j["kind"] = ex.kind;
  j["seed"] = ex.seed;
  if (!ex.verify_rerun.empty()) {
    j["found_by"] = "verify";
    j["rerun"] = ex.verify_rerun;
  } else {
    j["rerun"] = "locksim explore --algorithm " + c.algorithm + " --faults " + c.fault_class +
                 " --first-seed " + std::to_string(ex.seed) + " --seeds 1";
  }
  j["shrunk"] = {{"clients", ex.clients},
                 {"faults", ex.faults},
                 {"duration", FormatDuration(ex.duration)}};
  std::vector<std::string> overlaps = run.OverlapPairs();  // counted and listed
  j["violations"] = static_cast<int64_t>(overlaps.size());
  j["kinds"] = ViolationKindNames(run.Kinds());
  j["overlaps"] = std::move(overlaps);
  if (run.limiter || run.scenario.workload.type != WorkloadSpec::Type::kNone) {
    j["invariant_holds"] = run.effect.holds;
    j["effects"] = run.effect.sentences;
  }
  j["story"] = run.scenario.description;
  j["counterexample"] = ResultToJson(run, true, kCounterexampleHistoryOps);
  (void)search;
  return j;
}

ojson SearchToJson(const SearchResult& search) {
  ojson j;
  j["seeds"] = {{"first", search.first_seed},
                {"last", search.first_seed + search.seeds - 1},
                {"count", search.seeds}};
  j["classes"] = search.classes;
  j["algorithms"] = search.algorithms;
  ojson by_verdict = ojson::object();
  int64_t run = 0;
  for (const SearchCell& c : search.cells) {
    if (!c.skipped.empty()) continue;
    ++run;
    const std::string v(VerdictName(c.worst));
    by_verdict[v] = by_verdict.value(v, 0) + 1;
  }
  j["summary"] = {{"cells", search.cells.size()},
                  {"run", run},
                  {"skipped", static_cast<int64_t>(search.cells.size()) - run},
                  {"by_verdict", by_verdict}};
  ojson cells = ojson::array();
  for (const SearchCell& c : search.cells) cells.push_back(SearchCellToJson(search, c));
  j["cells"] = std::move(cells);
  ojson disagreements = ojson::array();
  for (const SearchDisagreement& d : search.disagreements) {
    disagreements.push_back({{"scenario", d.scenario},
                             {"algorithm", d.algorithm},
                             {"class", d.fault_class},
                             {"story_verdict", VerdictName(d.story)},
                             {"search_verdict", VerdictName(d.search)},
                             {"search_cell", SearchCellId(d.algorithm, d.fault_class)},
                             {"text", d.text}});
  }
  j["disagreements"] = disagreements;
  return j;
}

// Checks that `j[key]` exists with the expected type; names the JSON path.
void Require(const ojson& j, const std::string& path, const std::string& key,
             ojson::value_t type, const std::string& file) {
  auto it = j.find(key);
  if (it == j.end()) throw InputError(file + ": " + path + "." + key + ": missing");
  const bool ok = type == ojson::value_t::number_integer
                      ? it->is_number_integer()
                      : it->type() == type;
  if (!ok) {
    throw InputError(file + ": " + path + "." + key + ": expected " +
                     ojson(type).type_name() + ", got " + it->type_name());
  }
}

}  // namespace

ojson CompareToJson(const CompareResult& result) {
  ojson j;
  j["schema"] = kCompareSchema;
  j["schema_version"] = kCompareSchemaVersion;
  j["backend"] = BackendName(result.backend);
  j["seeds"] = result.seeds;
  j["time_unit"] = "ns";
  j["algorithms"] = result.algorithms;
  ojson scenarios = ojson::array();
  for (const Scenario& s : result.scenarios) scenarios.push_back(ScenarioToJson(s));
  j["scenarios"] = std::move(scenarios);

  // Totals, by verdict in order of first appearance.
  ojson by_verdict = ojson::object();
  int64_t run = 0, expected = 0, met = 0;
  for (const CompareCell& c : result.cells) {
    if (!c.skipped.empty()) continue;
    ++run;
    const std::string v(c.VerdictText());
    by_verdict[v] = by_verdict.value(v, 0) + 1;
    if (auto m = c.ExpectationMet()) {
      ++expected;
      met += *m;
    }
  }
  j["summary"] = {{"cells", result.cells.size()},
                  {"run", run},
                  {"skipped", static_cast<int64_t>(result.cells.size()) - run},
                  {"by_verdict", by_verdict},
                  {"expected", expected},
                  {"as_expected", met},
                  {"not_as_expected", expected - met}};

  // (The cells' document, with their counterexamples, is moved in as the
  // object's last member but two: an ordered_json object copies its
  // members when it grows, so keep what comes after it few.)
  ojson cells = ojson::array();
  for (const CompareCell& c : result.cells) cells.push_back(CellToJson(result, c));
  j["cells"] = std::move(cells);

  // Per variant: its verdicts and its liveness figures pooled over the
  // scenarios it ran.
  ojson variants = ojson::array();
  for (const std::string& algo : result.algorithms) {
    AcquisitionStats pooled;
    ojson verdicts = ojson::object();
    for (const CompareCell& c : result.cells) {
      if (c.algorithm != algo || !c.skipped.empty()) continue;
      pooled.Merge(c.stats);
      const std::string v(c.VerdictText());
      verdicts[v] = verdicts.value(v, 0) + 1;
    }
    ojson vj;
    vj["algorithm"] = algo;
    if (auto it = result.libraries.find(algo); it != result.libraries.end()) {
      vj["library"] = it->second;
    }
    vj["by_verdict"] = verdicts;
    vj["figures"] = StatsToJson(std::move(pooled));
    variants.push_back(vj);
  }
  j["variants"] = std::move(variants);
  if (result.search) j["search"] = SearchToJson(*result.search);
  return j;
}

std::string SearchCellId(const std::string& algorithm, const std::string& fault_class) {
  return "search--" + algorithm + "--" + fault_class;
}

ojson ParseResultsJson(const std::string& text, const std::string& file) {
  ojson j;
  try {
    j = ojson::parse(text);
  } catch (const ojson::exception& e) {
    // parse_error, and out_of_range for a number too large for a double
    // (found by tests/fuzz/fuzz_results_json.cc).
    throw InputError(file + ": not JSON: " + e.what());
  }
  if (!j.is_object()) throw InputError(file + ": $: expected an object");
  using V = ojson::value_t;
  Require(j, "$", "schema", V::string, file);
  if (j["schema"] != kCompareSchema) {
    throw InputError(file + ": $.schema: expected \"" + std::string(kCompareSchema) +
                     "\" (a results.json written by locksim compare), got " + j["schema"].dump());
  }
  Require(j, "$", "schema_version", V::number_integer, file);
  if (j["schema_version"] != kCompareSchemaVersion && j["schema_version"] != 1) {
    throw InputError(file + ": $.schema_version: this locksim reads versions 1 to " +
                     std::to_string(kCompareSchemaVersion) + ", got " +
                     j["schema_version"].dump());
  }
  Require(j, "$", "backend", V::string, file);
  Require(j, "$", "seeds", V::number_integer, file);
  Require(j, "$", "algorithms", V::array, file);
  Require(j, "$", "scenarios", V::array, file);
  Require(j, "$", "summary", V::object, file);
  Require(j, "$", "cells", V::array, file);
  Require(j, "$", "variants", V::array, file);
  for (size_t i = 0; i < j["scenarios"].size(); ++i) {
    const std::string path = "$.scenarios[" + std::to_string(i) + "]";
    Require(j["scenarios"][i], path, "name", V::string, file);
  }
  for (size_t i = 0; i < j["cells"].size(); ++i) {
    const ojson& c = j["cells"][i];
    const std::string path = "$.cells[" + std::to_string(i) + "]";
    if (!c.is_object()) throw InputError(file + ": " + path + ": expected an object");
    Require(c, path, "scenario", V::string, file);
    Require(c, path, "algorithm", V::string, file);
    Require(c, path, "id", V::string, file);
    Require(c, path, "verdict", V::string, file);
    if (c.contains("counterexample")) {
      Require(c["counterexample"], path + ".counterexample", "history", V::array, file);
      Require(c["counterexample"], path + ".counterexample", "violations", V::array, file);
    }
  }
  if (j.contains("search")) {
    const ojson& s = j["search"];
    if (!s.is_object()) throw InputError(file + ": $.search: expected an object");
    Require(s, "$.search", "seeds", V::object, file);
    Require(s, "$.search", "classes", V::array, file);
    Require(s, "$.search", "algorithms", V::array, file);
    Require(s, "$.search", "cells", V::array, file);
    Require(s, "$.search", "disagreements", V::array, file);
    for (size_t i = 0; i < s["cells"].size(); ++i) {
      const ojson& c = s["cells"][i];
      const std::string path = "$.search.cells[" + std::to_string(i) + "]";
      if (!c.is_object()) throw InputError(file + ": " + path + ": expected an object");
      Require(c, path, "algorithm", V::string, file);
      Require(c, path, "class", V::string, file);
      Require(c, path, "id", V::string, file);
      Require(c, path, "verdict", V::string, file);
      if (c.contains("counterexample")) {
        Require(c["counterexample"], path + ".counterexample", "history", V::array, file);
        Require(c["counterexample"], path + ".counterexample", "violations", V::array, file);
      }
    }
  }
  return j;
}

}  // namespace locksim
