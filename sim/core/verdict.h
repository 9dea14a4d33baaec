// The vocabulary of what a run found: its verdict and the kinds of
// violation, as enums with the names the scenarios and the result JSON use.
// Shared by the scenario (an expectation names a verdict and kinds), the
// checker (a violation has a kind) and the result data; depends on nothing.
#ifndef LOCKSIM_SIM_CORE_VERDICT_H_
#define LOCKSIM_SIM_CORE_VERDICT_H_

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace locksim {

// In increasing order of badness: a run's verdict is the worst that holds.
//   safe      no violation, the clients made progress;
//   degraded  more aborted transactions per acquisition than the bound;
//   deadlock  nobody could make progress for longer than the bound;
//   violated  two clients held the lock at once, a client wrote over
//             another's lock, or a limiter admitted too many.
enum class Verdict { kSafe, kDegraded, kDeadlock, kViolated };

// "safe", "degraded", "deadlock", "violated".
std::string_view VerdictName(Verdict v);
// nullopt for any other text.
std::optional<Verdict> ParseVerdict(std::string_view name);
// The name (test failure messages print it).
std::ostream& operator<<(std::ostream& out, Verdict v);

//   mutual-exclusion  two critical sections of one resource overlap;
//   foreign-write     a client's command changed or deleted the lock value
//                     another client wrote while that client held the lock.
enum class ViolationKind { kMutualExclusion, kForeignWrite };

// "mutual-exclusion", "foreign-write".
std::string_view ViolationKindName(ViolationKind k);
// nullopt for any other text.
std::optional<ViolationKind> ParseViolationKind(std::string_view name);
std::ostream& operator<<(std::ostream& out, ViolationKind k);
// Their names, in order (for the JSON writers).
std::vector<std::string> ViolationKindNames(const std::vector<ViolationKind>& kinds);

}  // namespace locksim

#endif  // LOCKSIM_SIM_CORE_VERDICT_H_
