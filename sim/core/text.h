// Small text helpers shared across the tree.
#ifndef LOCKSIM_SIM_CORE_TEXT_H_
#define LOCKSIM_SIM_CORE_TEXT_H_

#include <algorithm>
#include <string>
#include <vector>

namespace locksim {

// The strings of `v`, `sep` between each two (after the first non-empty one).
inline std::string Join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

// Whether `x` is one of the strings of `v`.
inline bool Has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace locksim

#endif  // LOCKSIM_SIM_CORE_TEXT_H_
