#include "sim/result/compare_result.h"

namespace locksim {

int VerdictRank(Verdict v) {
  switch (v) {
    case Verdict::kSafe: return 0;
    case Verdict::kDegraded: return 1;
    case Verdict::kDeadlock: return 2;
    case Verdict::kViolated: return 3;
  }
  return 3;
}

std::optional<Verdict> CompareCell::Worst() const {
  if (runs.empty()) return std::nullopt;
  Verdict worst = runs.front().verdict;
  for (const CellRun& r : runs) {
    if (VerdictRank(r.verdict) > VerdictRank(worst)) worst = r.verdict;
  }
  return worst;
}

std::string_view CompareCell::VerdictText() const {
  const std::optional<Verdict> worst = Worst();
  return worst ? VerdictName(*worst) : "skipped";
}

int64_t CompareCell::Violations() const {
  int64_t n = 0;
  for (const CellRun& r : runs) n += r.violations;
  return n;
}

const RunResult* CompareCell::Shown() const {
  if (counterexample) return &*counterexample;
  return representative ? &*representative : nullptr;
}

std::optional<bool> CompareCell::ExpectationMet() const {
  std::optional<bool> met;
  for (const CellRun& r : runs) {
    if (!r.expectation_met) continue;
    met = met.value_or(true) && *r.expectation_met;
  }
  return met;
}

}  // namespace locksim
