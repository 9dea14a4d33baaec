#include "sim/core/verdict.h"

#include <ostream>

namespace locksim {

std::string_view VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kSafe: return "safe";
    case Verdict::kDegraded: return "degraded";
    case Verdict::kDeadlock: return "deadlock";
    case Verdict::kViolated: return "violated";
  }
  return "?";
}

std::optional<Verdict> ParseVerdict(std::string_view name) {
  for (Verdict v : {Verdict::kSafe, Verdict::kDegraded, Verdict::kDeadlock, Verdict::kViolated}) {
    if (VerdictName(v) == name) return v;
  }
  return std::nullopt;
}

std::ostream& operator<<(std::ostream& out, Verdict v) { return out << VerdictName(v); }

std::string_view ViolationKindName(ViolationKind k) {
  switch (k) {
    case ViolationKind::kMutualExclusion: return "mutual-exclusion";
    case ViolationKind::kForeignWrite: return "foreign-write";
  }
  return "?";
}

std::optional<ViolationKind> ParseViolationKind(std::string_view name) {
  for (ViolationKind k : {ViolationKind::kMutualExclusion, ViolationKind::kForeignWrite}) {
    if (ViolationKindName(k) == name) return k;
  }
  return std::nullopt;
}

std::ostream& operator<<(std::ostream& out, ViolationKind k) { return out << ViolationKindName(k); }

std::vector<std::string> ViolationKindNames(const std::vector<ViolationKind>& kinds) {
  std::vector<std::string> out;
  for (ViolationKind k : kinds) out.emplace_back(ViolationKindName(k));
  return out;
}

}  // namespace locksim
