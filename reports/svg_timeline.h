// A run drawn as an inline SVG timeline: the painter of a TimelineModel
// (reports/timeline_model.h, built from the run's result JSON alone).
//   - a lane per client thread: attempts, holds, critical sections,
//     releases, Redis commands as ticks, rate limiter admissions;
//   - a process's pauses hatched over its lanes, crashed ones dark;
//   - a lane per Redis node: the key's owner over time and where its TTL
//     runs out;
//   - every other fault as a labelled marker across the chart, foreign
//     writes marked;
//   - each violation's overlap shaded, a deadlock's stall too.
#ifndef LOCKSIM_REPORTS_SVG_TIMELINE_H_
#define LOCKSIM_REPORTS_SVG_TIMELINE_H_

#include <string>

#include <nlohmann/json.hpp>

#include "reports/timeline_model.h"

namespace locksim {

// `run` is one result JSON with "history", "violations" and "stats".end.
// `id` makes the SVG's pattern ids unique within a page.
std::string RenderTimelineSvg(const nlohmann::ordered_json& run, const std::string& id);
// The same from the model.
std::string PaintTimelineSvg(const TimelineModel& model, const std::string& id);

// A short time label: "0s", "250ms", "1m30s" (FormatDuration for round
// values, three significant digits otherwise).
std::string ShortDuration(int64_t ns);

}  // namespace locksim

#endif  // LOCKSIM_REPORTS_SVG_TIMELINE_H_
