#include "sim/result/run_result.h"

#include <algorithm>
#include <set>
#include <unordered_set>

namespace locksim {

std::string_view BackendName(Backend b) {
  return b == Backend::kVirtual ? "virtual" : "real";
}

std::vector<std::string> RunResult::OverlapPairs() const {
  std::vector<std::string> pairs;
  // Seen pairs in a hash set: hundreds of clients make tens of thousands of
  // pairs, and a search of the list per violation was quadratic.
  std::unordered_set<std::string> seen;
  for (const Violation& v : check.violations) {
    if (v.kind != ViolationKind::kMutualExclusion) continue;
    auto add = [&](int second) {
      std::string pair = history.name(v.first.process) + "/" + history.name(second);
      if (seen.insert(pair).second) pairs.push_back(std::move(pair));
    };
    add(v.second.process);
    if (v.folded) {
      for (const auto& [thread, count] : v.folded->by_thread) add(thread);
    }
  }
  return pairs;
}

std::vector<ViolationKind> RunResult::Kinds() const {
  std::vector<ViolationKind> kinds;
  for (const Violation& v : check.violations) {
    if (std::find(kinds.begin(), kinds.end(), v.kind) == kinds.end()) kinds.push_back(v.kind);
  }
  return kinds;
}

const Expectation* RunResult::expectation() const {
  auto it = scenario.expect.find(label.empty() ? algorithm : label);
  if (it == scenario.expect.end() || it->second.algorithm != algorithm) return nullptr;
  return &it->second;
}

std::optional<bool> RunResult::ExpectationMet() const {
  const Expectation* found = expectation();
  if (found == nullptr) return std::nullopt;
  const Expectation& x = *found;
  if (!unfired.empty()) return false;
  if (x.verdict != verdict()) return false;
  const std::vector<ViolationKind> kinds = Kinds();
  for (ViolationKind k : x.kinds) {
    if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) return false;
  }
  if (x.invariant_holds && *x.invariant_holds != effect.holds) return false;
  if (!x.has_overlaps) return true;
  // Pairs are unordered: "A/B" and "B/A" are the same overlap.
  auto normalize = [](const std::vector<std::string>& v) {
    std::set<std::string> out;
    for (const std::string& p : v) {
      size_t slash = p.find('/');
      std::string a = p.substr(0, slash), b = p.substr(slash + 1);
      out.insert(a < b ? a + "/" + b : b + "/" + a);
    }
    return out;
  };
  return normalize(x.overlaps) == normalize(OverlapPairs());
}

}  // namespace locksim
