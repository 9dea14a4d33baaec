// The result of a run as versioned JSON (format: docs/results.md).
// Field order is fixed and every number is an integer, so the same virtual
// run gives byte-identical output.
#ifndef LOCKSIM_REPORTS_RUN_JSON_H_
#define LOCKSIM_REPORTS_RUN_JSON_H_

#include <cstddef>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/result/run_result.h"

namespace locksim {

inline constexpr int kResultSchemaVersion = 1;

// With `with_history`, the run's operations under `history`: all of them,
// unless `max_history_ops` is not 0 and the history holds more. Then only
// those a timeline draws as lanes (all but each Redis command and adapter
// request), the first `max_history_ops` of them at most, and
// `history_omitted` counts the rest while `history_note` says what was left
// out and how to list it all; `history_until`, when those did not all fit,
// is the time of the last one listed.
nlohmann::ordered_json ResultToJson(const RunResult& result, bool with_history,
                                    size_t max_history_ops = 0);

// The same document (every history op, with `with_history`), as
// ResultToJson(...).dump(2) writes it, `depth` levels down (an element of
// an array at depth 1), without its trailing newline: its violations and
// history one record at a time, so that a long run's document is never all
// in memory (10 minutes of a DEL-after-TTL storm, 174 MB of JSON: 804 MB at
// the peak as a document, under 200 MB written this way).
void WriteResultJson(std::ostream& out, const RunResult& result, bool with_history,
                     int depth = 0);

// One line per violation, for terminals: "B and C both held lock:x ...".
std::string DescribeViolation(const RunResult& result, const Violation& v);

// How many of those lines a summary gives (a terminal's, a junit.xml
// failure's) before it counts the rest: results.json lists them all.
inline constexpr size_t kSummarizedViolations = 20;

// A foreign write's command as the writer sent it ("DEL", "GETSET"):
// the last one it sent before the node's state changed.
std::string ForeignWriteCommand(const History& history, const Violation& v);

}  // namespace locksim

#endif  // LOCKSIM_REPORTS_RUN_JSON_H_
