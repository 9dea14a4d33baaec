// A run drawn as an inline SVG timeline, from its result JSON alone
// (ResultToJson with the history). Generic over the history: operations
// are read by their string names, so a new kind of fault or operation needs
// no change here.
//   - a lane per client thread: acquire attempts (invoke -> ok/fail), the
//     lock held (acquire ok -> release ok), the critical section (cs invoke
//     -> cs ok), releases, Redis commands as ticks, rate limiter admissions;
//   - a process's pauses hatched over its lanes (nemesis "pause" value
//     "A for 10s" until "resume" value "A");
//   - a lane per Redis node that records "state" operations (the lock key's
//     value and TTL after each change: `lock:x = "tok" pttl 5000`,
//     `lock:x absent`): the owner over time and when the TTL runs out;
//   - every other nemesis operation (crash, restart, clock, partition, ...)
//     as a labelled marker across the chart;
//   - each violation's overlap shaded.
#ifndef LOCKSIM_REPORTS_SVG_TIMELINE_H_
#define LOCKSIM_REPORTS_SVG_TIMELINE_H_

#include <string>

#include <nlohmann/json.hpp>

namespace locksim {

// `run` is one result JSON with "history", "violations" and "stats".end.
// `id` makes the SVG's pattern ids unique within a page.
std::string RenderTimelineSvg(const nlohmann::ordered_json& run, const std::string& id);

// A short time label: "0s", "250ms", "1m30s" (FormatDuration for round
// values, three significant digits otherwise).
std::string ShortDuration(int64_t ns);

}  // namespace locksim

#endif  // LOCKSIM_REPORTS_SVG_TIMELINE_H_
