#include "reports/results_json.h"

#include <map>
#include <optional>

#include "reports/json_report.h"
#include "sim/errors.h"

namespace locksim {
namespace {

using ojson = nlohmann::ordered_json;

// When a fault fires: " at 1s". The overload for an optional time is for
// faults that may fire on an event instead (issue 5's triggers).
std::string AtText(Nanos at) { return " at " + FormatDuration(at); }
template <typename T>
std::string AtText(const std::optional<T>& at) {
  return at ? AtText(*at) : std::string(" on a trigger");
}

// One line per fault for the matrix's column heads. Fault types other than
// pause are named by the history's nemesis ops, which the timelines draw.
std::string FaultText(const FaultSpec& f) {
  if (f.type != FaultSpec::Type::kPause) return "fault on " + f.process + AtText(f.at);
  return "pause " + f.process + AtText(f.at) + " for " + FormatDuration(f.duration);
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
  e["verdict"] = x.verdict;
  if (x.has_overlaps) e["overlaps"] = x.overlaps;
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
  j["verdict"] = c.Verdict();
  if (!c.skipped.empty()) {
    j["skipped"] = c.skipped;
    return j;
  }
  j["violations"] = c.Violations();
  int64_t seeds_failed = 0;
  for (const CellRun& r : c.runs) seeds_failed += r.verdict != "safe";
  j["seeds_not_safe"] = seeds_failed;
  const RunResult* shown = c.Shown();
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
  ojson runs = ojson::array();
  for (const CellRun& r : c.runs) {
    ojson rj;
    rj["seed"] = r.seed;
    rj["verdict"] = r.verdict;
    rj["violations"] = r.violations;
    if (r.expectation_met) rj["expectation_met"] = *r.expectation_met;
    runs.push_back(rj);
  }
  j["runs"] = runs;
  if (c.counterexample) j["counterexample"] = ResultToJson(*c.counterexample, true);
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
  j["scenarios"] = scenarios;

  // Totals, by verdict in order of first appearance.
  ojson by_verdict = ojson::object();
  int64_t run = 0, expected = 0, met = 0;
  for (const CompareCell& c : result.cells) {
    if (!c.skipped.empty()) continue;
    ++run;
    const std::string v = c.Verdict();
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

  ojson cells = ojson::array();
  for (const CompareCell& c : result.cells) cells.push_back(CellToJson(result, c));
  j["cells"] = cells;

  // Per variant: its verdicts and its liveness figures pooled over the
  // scenarios it ran.
  ojson variants = ojson::array();
  for (const std::string& algo : result.algorithms) {
    AcquisitionStats pooled;
    ojson verdicts = ojson::object();
    for (const CompareCell& c : result.cells) {
      if (c.algorithm != algo || !c.skipped.empty()) continue;
      pooled.Merge(c.stats);
      const std::string v = c.Verdict();
      verdicts[v] = verdicts.value(v, 0) + 1;
    }
    ojson vj;
    vj["algorithm"] = algo;
    vj["by_verdict"] = verdicts;
    vj["figures"] = StatsToJson(pooled);
    variants.push_back(vj);
  }
  j["variants"] = variants;
  return j;
}

ojson ParseResultsJson(const std::string& text, const std::string& file) {
  ojson j;
  try {
    j = ojson::parse(text);
  } catch (const ojson::parse_error& e) {
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
  if (j["schema_version"] != kCompareSchemaVersion) {
    throw InputError(file + ": $.schema_version: this locksim reads version " +
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
  return j;
}

}  // namespace locksim
