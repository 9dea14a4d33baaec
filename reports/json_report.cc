#include "reports/json_report.h"

namespace locksim {
namespace {

using ojson = nlohmann::ordered_json;

ojson OpToJson(const History& h, const Op& op) {
  ojson j;
  j["index"] = op.index;
  j["time"] = op.time.count();
  j["process"] = h.name(op.process);
  j["type"] = OpTypeName(op.type);
  j["f"] = OpFName(op.f);
  if (op.node >= 0) j["node"] = op.node;
  j["value"] = op.value;
  return j;
}

ojson SectionToJson(const History& h, const CriticalSection& s) {
  ojson j;
  j["process"] = h.name(s.process);
  j["start"] = s.start.count();
  j["end"] = s.end.count();
  j["open_at_end"] = s.exit_index < 0;
  j["acquired_index"] = s.acquired_index;
  j["enter_index"] = s.enter_index;
  j["exit_index"] = s.exit_index;
  return j;
}

}  // namespace

std::string DescribeViolation(const RunResult& r, const Violation& v) {
  const History& h = r.history;
  return h.name(v.first.process) + " and " + h.name(v.second.process) +
         " both held " + v.resource + " from " + FormatDuration(v.overlap_start) +
         " to " + FormatDuration(v.overlap_end) + " (" +
         FormatDuration(v.overlap_end - v.overlap_start) + ")";
}

ojson ResultToJson(const RunResult& r, bool with_history) {
  const History& h = r.history;
  ojson j;
  j["schema_version"] = kResultSchemaVersion;
  j["scenario"] = r.scenario.name;
  j["scenario_file"] = r.scenario.file;
  j["algorithm"] = r.algorithm;
  j["backend"] = BackendName(r.backend);
  j["seed"] = r.seed;
  j["time_unit"] = "ns";
  j["time_scale"] = r.time_scale.ToString();
  j["verdict"] = r.verdict();
  if (auto met = r.ExpectationMet()) {
    const Expectation& x = r.scenario.expect.at(r.algorithm);
    ojson e;
    e["verdict"] = x.verdict;
    if (x.has_overlaps) e["overlaps"] = x.overlaps;
    if (x.invariant_holds) e["invariant"] = *x.invariant_holds ? "holds" : "broken";
    e["met"] = *met;
    j["expected"] = e;
  }
  j["overlaps"] = r.OverlapPairs();
  ojson violations = ojson::array();
  for (const Violation& v : r.check.violations) {
    ojson vj;
    vj["kind"] = v.kind;
    vj["resource"] = v.resource;
    vj["clients"] = {h.name(v.first.process), h.name(v.second.process)};
    vj["overlap"] = {{"start", v.overlap_start.count()},
                     {"end", v.overlap_end.count()},
                     {"duration", (v.overlap_end - v.overlap_start).count()}};
    vj["text"] = DescribeViolation(r, v);
    vj["first"] = SectionToJson(h, v.first);
    vj["second"] = SectionToJson(h, v.second);
    ojson events = ojson::array();
    for (int64_t i : v.events) events.push_back(OpToJson(h, h.ops()[i]));
    vj["events"] = events;
    violations.push_back(vj);
  }
  j["violations"] = violations;
  if (r.limiter) {
    j["limiter"] = {{"invariant_holds", r.effect.holds}, {"effects", r.effect.sentences}};
  } else if (r.scenario.workload.type != WorkloadSpec::Type::kNone) {
    j["workload"] = {{"type", WorkloadName(r.scenario.workload.type)},
                     {"invariant_holds", r.effect.holds},
                     {"effects", r.effect.sentences}};
  }
  j["stats"] = {{"end", r.end.count()},
                {"critical_sections", r.check.sections.size()},
                {"acquisitions", r.acquisitions},
                {"failed_acquisitions", r.failed_acquisitions},
                {"redis_commands", r.redis_commands},
                {"history_ops", h.size()}};
  if (with_history) {
    ojson ops = ojson::array();
    for (const Op& op : h.ops()) ops.push_back(OpToJson(h, op));
    j["history"] = ops;
  }
  return j;
}

}  // namespace locksim
