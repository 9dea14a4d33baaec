// The result of a run as versioned JSON (format: docs/results.md).
// Field order is fixed and every number is an integer, so the same virtual
// run gives byte-identical output.
#ifndef LOCKSIM_REPORTS_RUN_JSON_H_
#define LOCKSIM_REPORTS_RUN_JSON_H_

#include <string>

#include <nlohmann/json.hpp>

#include "sim/result/run_result.h"

namespace locksim {

inline constexpr int kResultSchemaVersion = 1;

nlohmann::ordered_json ResultToJson(const RunResult& result, bool with_history);

// One line per violation, for terminals: "B and C both held lock:x ...".
std::string DescribeViolation(const RunResult& result, const Violation& v);

// A foreign write's command as the writer sent it ("DEL", "GETSET"):
// the last one it sent before the node's state changed.
std::string ForeignWriteCommand(const History& history, const Violation& v);

}  // namespace locksim

#endif  // LOCKSIM_REPORTS_RUN_JSON_H_
