// The protected resource a critical section touches, and the application
// workloads of seeds 000 and 004 that show what a violation costs:
//   counter        read, work, write back: overlaps lose updates;
//   inventory      never sell more than the stock (flash sale, seeds 000/004);
//   token-refresh  refresh an access token once per invalidation, others
//                  read the cache (seed 004's WeChat access_token);
//   scheduled-job  exactly one process runs each tick (seed 004);
//   commands       send given commands, expect Redis's exact replies (F13).
// The resource honours fencing tokens: a write carrying a token older than
// one it has already accepted is rejected (Kleppmann's fix).
#ifndef LOCKSIM_SIM_CHECK_WORKLOAD_H_
#define LOCKSIM_SIM_CHECK_WORKLOAD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/history.h"
#include "sim/core/time.h"

namespace locksim {

struct WorkloadSpec {
  enum class Type { kNone, kCounter, kInventory, kTokenRefresh, kScheduledJob, kCommands };
  Type type = Type::kNone;
  int64_t stock = 10;                          // inventory
  Nanos token_ttl = std::chrono::minutes(1);   // token-refresh: invalidated this often
  Nanos tick = std::chrono::seconds(10);       // scheduled-job period (client clock)
  // commands: sent in order on the thread's connection to node 0 inside the
  // critical section; the invariant is that the replies are `replies`
  // (what real Redis answers, as redis-cli prints it).
  std::vector<std::vector<std::string>> commands;
  std::vector<std::string> replies;
};

std::string_view WorkloadName(WorkloadSpec::Type t);
// nullopt for an unknown name.
std::optional<WorkloadSpec::Type> ParseWorkloadName(std::string_view name);

class ProtectedResource {
 public:
  explicit ProtectedResource(int64_t initial) : value_(initial) {}
  int64_t Read() const { return value_; }
  // Accepted unless `token` is older than a token already accepted.
  bool Write(int64_t value, std::optional<int64_t> token) {
    if (token && highest_token_ && *token < *highest_token_) return false;
    if (token) highest_token_ = token;
    value_ = value;
    return true;
  }

 private:
  int64_t value_;
  std::optional<int64_t> highest_token_;
};

// What the workload's invariant says about a history: a pure function, like
// the mutual-exclusion checker.
struct WorkloadEffect {
  bool holds = true;
  // A rate limiter's safety: never more than the limit per window. A
  // counter left without a TTL breaks the invariant (holds) but is a
  // liveness failure: the deadlock verdict.
  bool safety_holds = true;
  std::vector<std::string> sentences;  // "counter is 9 after 10 increments: 1 lost update"
};
WorkloadEffect CheckWorkload(const History& history, const WorkloadSpec& spec);

// A rate limiter's invariants (seed 002 §2): no more than `limit` requests
// admitted in any window the limiter opened (a window opens with a count of
// 1 and lasts `window`, less `tolerance` for the messages' latency), and no
// counter left without a TTL (an INCR that returned 1 with no EXPIRE after
// it from the same client).
WorkloadEffect CheckLimiter(const History& history, int64_t limit, Nanos window, Nanos tolerance);

}  // namespace locksim

#endif  // LOCKSIM_SIM_CHECK_WORKLOAD_H_
