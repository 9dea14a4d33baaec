// Words and numbers shared by the report writers, so that the terminal
// table, report.html, summary.md and junit.xml say the same thing.
#ifndef LOCKSIM_REPORTS_REPORT_TEXT_H_
#define LOCKSIM_REPORTS_REPORT_TEXT_H_

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace locksim {

// "SAFE", "VIOLATED 2", "DEADLOCK", "DEGRADED", "n/a" for a skipped cell,
// any other verdict upper-cased; "SAFE (NOTHING TESTED)" when no client
// ever acquired the lock.
std::string CellLabel(const nlohmann::ordered_json& cell);

// Whether a cell counts as failed: its verdict is not safe (and it ran), or
// its scenario's expectation for it does not hold.
bool CellFailed(const nlohmann::ordered_json& cell);

// "as expected", "expected violated A/B", or "" without an expectation.
std::string ExpectationNote(const nlohmann::ordered_json& cell);

// The business effect in one sentence: the workload's effects when its
// invariant broke, else the first violation's text, else the verdict.
std::string EffectSentence(const nlohmann::ordered_json& cell);

// A cell of the searched matrix (results.json's "search"): "VIOLATED 64/1000"
// (seeds with a violation of those run), "DEADLOCK 3/1000", "no finding in
// 1000", "verified to bound B", "n/a" when skipped.
std::string SearchCellLabel(const nlohmann::ordered_json& cell);
// The fenced finding for a reviewer (search found a fenced lock losing an
// update or overselling): what fencing tokens protect and what they do
// not, in a few sentences; empty when the search found no such thing.
std::string FencingNote(const nlohmann::ordered_json& search);
// A JSON number (or null) with at most 3 decimals: "1.5", "—" for null.
std::string FigureText(const nlohmann::ordered_json& value);

// `object`'s member `key`, or an empty array when it has none: a reference,
// where nlohmann's value(key, default) returns a copy (a counterexample's
// violations can be hundreds of thousands of records).
const nlohmann::ordered_json& MemberOrEmpty(const nlohmann::ordered_json& object,
                                           std::string_view key);

// The cells of the matrix by scenario and algorithm, indexed once: a
// matrix drawn by a search of the cells per cell was quadratic (1 600
// scenarios x 3 variants: seconds). Valid while `results` lives and is
// unchanged (its keys are views into it).
class CellIndex {
 public:
  explicit CellIndex(const nlohmann::ordered_json& results);
  CellIndex(const nlohmann::ordered_json&&) = delete;  // would outlive a temporary
  // The first cell of that scenario and algorithm; nullptr when absent.
  const nlohmann::ordered_json* Find(std::string_view scenario, std::string_view algorithm) const;
  // A scenario's cells, in the order results.json lists them.
  const std::vector<const nlohmann::ordered_json*>& OfScenario(std::string_view scenario) const;

 private:
  std::map<std::pair<std::string_view, std::string_view>, const nlohmann::ordered_json*> cells_;
  std::map<std::string_view, std::vector<const nlohmann::ordered_json*>> by_scenario_;
};

}  // namespace locksim

#endif  // LOCKSIM_REPORTS_REPORT_TEXT_H_
