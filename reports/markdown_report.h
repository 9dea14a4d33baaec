// summary.md: the comparison for a pull-request comment, from a
// results.json alone: the totals, the matrix, what failed and what it
// costs, and the liveness figures per variant.
#ifndef LOCKSIM_REPORTS_MARKDOWN_REPORT_H_
#define LOCKSIM_REPORTS_MARKDOWN_REPORT_H_

#include <string>

#include <nlohmann/json.hpp>

namespace locksim {

std::string RenderMarkdownSummary(const nlohmann::ordered_json& results);

// Text safe inside a Markdown table cell: '|' escaped, newlines as spaces.
std::string EscapeMarkdownCell(const std::string& text);

}  // namespace locksim

#endif  // LOCKSIM_REPORTS_MARKDOWN_REPORT_H_
