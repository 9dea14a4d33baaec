// report.html: one self-contained page for a design review, drawn from a
// results.json (reports/compare_json.h) alone. No script, no external
// resource: styles inline, timelines as inline SVG.
//   - the matrix, variants x scenarios: SAFE / VIOLATED n / DEADLOCK /
//     DEGRADED (any other verdict in a neutral colour), whether the
//     scenario's expectation holds, every failed cell linking to its detail;
//   - the liveness figures per variant;
//   - per failed cell: the business effect in one sentence, the violations,
//     the timeline (reports/svg_timeline.h) and the trace excerpt.
#ifndef LOCKSIM_REPORTS_HTML_REPORT_H_
#define LOCKSIM_REPORTS_HTML_REPORT_H_

#include <string>

#include <nlohmann/json.hpp>

namespace locksim {

std::string RenderHtmlReport(const nlohmann::ordered_json& results);

// The anchor of a cell's detail: "cell-" and its id with every character
// outside [A-Za-z0-9_-] replaced by '_'.
std::string CellAnchor(const std::string& cell_id);

}  // namespace locksim

#endif  // LOCKSIM_REPORTS_HTML_REPORT_H_
