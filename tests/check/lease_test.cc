// LeaseIndex (sim/check/lease.h) against its definition, a scan of the
// history's node states up to the entry, on the bundled scenarios that
// lose, replace and restore leases on one node and on five.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "sim/check/lease.h"
#include "sim/run/runner.h"
#include "tests/testing/scenario_paths.h"

namespace locksim {
namespace {

// The definition, as the index's header states it: a scan of every state
// op before `at`. The index must answer as this does.
std::vector<NodeLease> ByScan(const History& h, int thread, int64_t at) {
  std::vector<NodeLease> out;
  if (at < 0) return out;
  const int owner = h.owner(thread);
  const Nanos entry = h.ops()[static_cast<size_t>(at)].time;
  std::map<int, Nanos> lease_end;  // node actor -> end of the thread's lease
  for (int64_t i = 0; i < at; ++i) {
    const Op& op = h.ops()[static_cast<size_t>(i)];
    if (op.f != OpF::kState) continue;
    const KeyState& state = h.state(op);
    if (op.subject >= 0 && h.owner(op.subject) == owner && state.present) {
      lease_end[op.actor] =
          state.pttl_ms ? op.time + std::chrono::milliseconds(*state.pttl_ms) : Nanos::max();
    } else if (op.type == OpType::kOk) {
      auto it = lease_end.find(op.actor);
      if (it != lease_end.end() && it->second > op.time) it->second = op.time;
    }
  }
  for (const auto& [node, end] : lease_end) {
    out.push_back(NodeLease{node, end == Nanos::max() ? std::nullopt
                                                      : std::optional<Nanos>(end - entry)});
  }
  return out;
}

TEST(LeaseIndex, AnswersAsAScanOfTheStatesDoesAtEverySectionAndEveryState) {
  const std::vector<std::pair<std::string, std::string>> runs = {
      {"f01-pause-past-ttl", "set-nx-px"},    {"f02-del-frees-other", "set-nx-px-del"},
      {"f03-crash-before-expire", "setnx-simple"}, {"f05-getset-overwrite", "getset-timestamp"},
      {"f07-failover-lost-key", "set-nx-px"}, {"f09-node-clock-jump", "redlock"},
      {"f10-pause-during-acquire", "set-nx-px"}, {"f14-reentrancy", "reentrant-watchdog"},
      {"baseline-contention", "redlock"}};
  int asked = 0, late = 0;
  for (const auto& [scenario, algorithm] : runs) {
    RunOptions o;
    o.algorithm = algorithm;
    const RunResult r = RunScenario(LoadScenario(ScenarioPath(scenario)), o);
    const LeaseIndex index(r.history);
    // At every critical section's entry, and for every section's thread
    // just after each change of a node's state.
    std::vector<std::pair<int, int64_t>> questions;
    for (const CriticalSection& s : r.check.sections) {
      questions.emplace_back(s.process, s.enter_index);
    }
    for (auto op = r.history.ops().begin(); op != r.history.ops().end(); ++op) {
      if (op->f != OpF::kState) continue;
      for (const CriticalSection& s : r.check.sections) {
        questions.emplace_back(s.process, op.index() + 1);
      }
    }
    for (const auto& [thread, at] : questions) {
      if (at >= static_cast<int64_t>(r.history.size())) continue;
      const std::vector<NodeLease> want = ByScan(r.history, thread, at);
      ASSERT_EQ(index.AtEntry(thread, at), want)
          << scenario << " x " << algorithm << ": " << r.history.name(thread) << " at op " << at;
      ++asked;
      late += index.EnteredAfterItsLease(thread, at);
    }
  }
  EXPECT_GT(asked, 1000);
  EXPECT_GT(late, 0);  // some question found a lease already run out
  EXPECT_TRUE(LeaseIndex(History()).AtEntry(0, -1).empty());
}

}  // namespace
}  // namespace locksim
