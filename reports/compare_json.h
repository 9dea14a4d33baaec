// results.json: everything `locksim compare` found, as versioned JSON
// (schema: docs/results.md, "Compare results"). The report writers (HTML,
// Markdown, JUnit) read only this document, so `locksim report` can redraw a
// report from a results.json alone. Field order is fixed and no host time is
// written, so the same virtual comparison gives byte-identical files.
#ifndef LOCKSIM_REPORTS_COMPARE_JSON_H_
#define LOCKSIM_REPORTS_COMPARE_JSON_H_

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/result/compare_result.h"

namespace locksim {

inline constexpr std::string_view kCompareSchema = "locksim-compare";
// Version 2 adds the optional "search" section (compare --search); a
// version 1 file (no search) is read as well.
inline constexpr int kCompareSchemaVersion = 2;

// A counterexample carries its run's history whole up to this many
// operations (the bundled ones hold 19 140 at most); past it, without the
// Redis commands (ResultToJson): a run stopped at --max-ops' 4 000 000
// made a 2 GB results.json and a 255 MB report.
inline constexpr size_t kCounterexampleHistoryOps = 100000;

nlohmann::ordered_json CompareToJson(const CompareResult& result);

// A searched cell's id: "search--<algorithm>--<class>" (its anchor in
// report.html, its counterexample's file name under DIR/search/).
std::string SearchCellId(const std::string& algorithm, const std::string& fault_class);

// Parses and checks a results.json text: the schema name and version and
// the fields the report writers read. Throws InputError naming `file` and
// the JSON path.
nlohmann::ordered_json ParseResultsJson(const std::string& text, const std::string& file);

}  // namespace locksim

#endif  // LOCKSIM_REPORTS_COMPARE_JSON_H_
