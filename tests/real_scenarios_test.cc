// The bundled scenarios on real redis-server processes (started by the
// harness on 127.0.0.1): the same verdicts and pairs as on the virtual
// backend. Scenario time is compressed by each file's real_time_scale.
#include <gtest/gtest.h>

#include "sim/runner.h"
#include "tests/scenario_paths.h"

namespace locksim {
namespace {

RunResult RunReal(const std::string& scenario, const std::string& algorithm) {
  RunOptions o;
  o.algorithm = algorithm;
  o.backend = Backend::kReal;
  return RunScenario(LoadScenario(ScenarioPath(scenario)), o);
}

using Pairs = std::vector<std::string>;

TEST(RealScenarios, F1PausePastTtlOnRealRedis) {
  for (const char* algo : {"set-nx-px", "set-nx-px-del"}) {
    RunResult r = RunReal("f01-pause-past-ttl", algo);
    EXPECT_EQ(r.verdict(), "violated") << algo;
    EXPECT_EQ(r.OverlapPairs(), Pairs{"A/B"}) << algo;
  }
}

TEST(RealScenarios, F2PlainDelFreesTheNextHoldersLockOnRealRedis) {
  RunResult r = RunReal("f02-del-frees-other", "set-nx-px-del");
  EXPECT_EQ(r.verdict(), "violated");
  EXPECT_EQ(r.OverlapPairs(), (Pairs{"A/B", "B/C"}));
}

TEST(RealScenarios, F2CompareAndDeleteKeepsBAndCApartOnRealRedis) {
  RunResult r = RunReal("f02-del-frees-other", "set-nx-px");
  EXPECT_EQ(r.verdict(), "violated");
  EXPECT_EQ(r.OverlapPairs(), Pairs{"A/B"});
}

TEST(RealScenarios, ContentionWithoutFaultsIsSafeOnRealRedis) {
  for (const char* algo : {"set-nx-px", "set-nx-px-del"}) {
    RunResult r = RunReal("baseline-contention", algo);
    EXPECT_EQ(r.verdict(), "safe") << algo;
    EXPECT_EQ(r.acquisitions, 40) << algo;
  }
}

}  // namespace
}  // namespace locksim
