// junit.xml: one test case per cell of the comparison (one test suite per
// scenario), so that CI systems show each violation as a failure. A cell
// fails when its verdict is not "safe" or its scenario's expectation for it
// does not hold; a cell that did not run (a rate limiter on a lock
// scenario) is skipped. No timings: the file is as deterministic as
// results.json.
#ifndef LOCKSIM_REPORTS_JUNIT_REPORT_H_
#define LOCKSIM_REPORTS_JUNIT_REPORT_H_

#include <string>

#include <nlohmann/json.hpp>

namespace locksim {

std::string RenderJunit(const nlohmann::ordered_json& results);

}  // namespace locksim

#endif  // LOCKSIM_REPORTS_JUNIT_REPORT_H_
