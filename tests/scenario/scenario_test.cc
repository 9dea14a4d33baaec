#include "sim/scenario/scenario.h"

#include <gtest/gtest.h>

#include "sim/core/errors.h"

namespace locksim {
namespace {

constexpr char kValid[] = R"({
  "duration": "10s",
  "algorithm": "set-nx-px",
  "lock": {"ttl": "1s"},
  "clients": [{"name": "A", "hold": "100ms"}, {"name": "B", "start": "50ms"}],
  "faults": [{"type": "pause", "process": "A", "at": "10ms", "duration": "2s"}],
  "expect": {"set-nx-px": {"verdict": "violated", "overlaps": ["A/B"]}}
})";

std::string ErrorOf(const std::string& text) {
  try {
    ParseScenario(text, "s.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// Replaces the first occurrence of `from` in kValid.
std::string Valid(const std::string& from = "", const std::string& to = "") {
  std::string s = kValid;
  if (!from.empty()) {
    size_t pos = s.find(from);
    EXPECT_NE(pos, std::string::npos) << from;
    s.replace(pos, from.size(), to);
  }
  return s;
}

TEST(ScenarioTest, ValidScenarioLoadsWithDefaults) {
  Scenario s = ParseScenario(Valid(), "dir/s.json");
  EXPECT_EQ(s.name, "s");
  EXPECT_EQ(s.duration, std::chrono::seconds(10));
  EXPECT_EQ(s.lock.ttl, std::chrono::seconds(1));
  EXPECT_FALSE(s.lock.retry_delay.has_value());  // the variant's default applies
  ASSERT_EQ(s.clients.size(), 2u);
  EXPECT_EQ(s.clients[1].start, std::chrono::milliseconds(50));
  EXPECT_EQ(s.clients[1].iterations, 1);
  ASSERT_EQ(s.faults.size(), 1u);
  EXPECT_EQ(s.expect.at("set-nx-px").overlaps, std::vector<std::string>{"A/B"});
}

TEST(ScenarioTest, NotJsonNamesTheFileAndThePosition) {
  EXPECT_EQ(ErrorOf("{\"duration\": \"1s\",\n  oops}").substr(0, 31),
            "s.json: $: not valid JSON: pars");
  EXPECT_NE(ErrorOf("{\"duration\": \"1s\",\n  oops}").find("line 2"), std::string::npos);
}

TEST(ScenarioTest, UnknownFieldNamesItsPath) {
  EXPECT_EQ(ErrorOf(Valid("\"hold\": \"100ms\"", "\"hodl\": \"100ms\"")),
            "s.json: $.clients[0].hodl: unknown field (expected one of: name, start, "
            "iterations, threads, hold, think, reenter)");
}

TEST(ScenarioTest, OfSeveralMistakesTheFirstInTheFileIsNamed) {
  // The reader keeps the document's order: "zeta" comes before "alpha" here.
  EXPECT_EQ(ErrorOf(Valid("\"hold\": \"100ms\"", "\"zeta\": 1, \"alpha\": 2")),
            "s.json: $.clients[0].zeta: unknown field (expected one of: name, start, "
            "iterations, threads, hold, think, reenter)");
  EXPECT_EQ(ErrorOf(Valid("\"duration\": \"10s\",", "\"duration\": \"10s\", \"zz\": 1, "
                                                     "\"aa\": 2,")),
            "s.json: $.zz: unknown field (expected one of: name, description, source, "
            "algorithm, seed, duration, real_time_scale, nodes, network, redis, lock, workload, "
            "clients, faults, choices, liveness, expect)");
}

TEST(ScenarioTest, WrongTypeNamesItsPathAndTheExpectedType) {
  EXPECT_EQ(ErrorOf(Valid("\"ttl\": \"1s\"", "\"ttl\": 1000")),
            "s.json: $.lock.ttl: expected a duration string such as \"250ms\", got a number");
  EXPECT_EQ(ErrorOf(Valid("\"duration\": \"10s\",", "\"duration\": \"10s\", \"nodes\": \"1\",")),
            "s.json: $.nodes: expected an integer, got a string");
}

TEST(ScenarioTest, ChoicesAreReadAndTheirMistakesNamed) {
  const std::string tie =
      R"({"point": 3, "at": "200us", "among": ["A->redis0", "B->redis0"], "first": "B->redis0"})";
  const std::string message =
      R"({"point": 4, "at": "200us", "message": "redis0->A", "delay": "1s"})";
  auto with = [&](const std::string& choices) {
    return Valid("\"faults\":", "\"choices\": [" + choices + "], \"faults\":");
  };
  const Scenario s = ParseScenario(with(tie + ", " + message), "s.json");
  ASSERT_EQ(s.choices.size(), 2u);
  EXPECT_TRUE(s.choices[0].tie);
  EXPECT_EQ(s.choices[0].first, "B->redis0");
  EXPECT_EQ(s.choices[1].message, "redis0->A");
  EXPECT_EQ(s.choices[1].delay, std::chrono::seconds(1));
  EXPECT_EQ(Scaled(s, TimeScale{1, 10}).choices[1].at, std::chrono::microseconds(20));

  EXPECT_EQ(ErrorOf(with(message + ", " + tie)),
            "s.json: $.choices[1].point: must be greater than the previous choice's (4): one "
            "entry per point, in order");
  EXPECT_EQ(ErrorOf(with(R"({"point": 1, "at": "0s"})")),
            "s.json: $.choices[0]: needs either \"message\" and \"delay\" (a message delivered "
            "later) or \"among\" and \"first\" (a tie broken otherwise)");
  EXPECT_EQ(ErrorOf(with(R"({"point": 1, "at": "0s", "message": "A->redis0"})")),
            "s.json: $.choices[0].delay: required field is missing");
  EXPECT_EQ(ErrorOf(with(R"({"point": 1, "at": "0s", "among": ["A", "B"], "first": "C"})")),
            "s.json: $.choices[0].first: \"C\" is not among the tie's streams");
  EXPECT_EQ(ErrorOf(with(R"({"point": 1, "at": "0s", "among": ["A", "B"], "first": "A"})")),
            "s.json: $.choices[0].first: \"A\" runs first anyway (FIFO order): not a deviation");
  EXPECT_EQ(ErrorOf(with(R"({"point": 0, "at": "0s", "message": "A->redis0", "delay": "1s"})")),
            "s.json: $.choices[0].point: must be between 1 and 9223372036854775807, got 0");
}

TEST(ScenarioTest, NegativeDurationIsRejected) {
  EXPECT_EQ(ErrorOf(Valid("\"duration\": \"2s\"", "\"duration\": \"-2s\"")),
            "s.json: $.faults[0].duration: negative duration \"-2s\"");
}

TEST(ScenarioTest, UnknownAlgorithmIsRejectedWhereverItIsNamed) {
  EXPECT_EQ(ErrorOf(Valid("\"algorithm\": \"set-nx-px\"", "\"algorithm\": \"redlokc\"")),
            "s.json: $.algorithm: unknown algorithm \"redlokc\" (known: " + AlgorithmIds() + ")");
  EXPECT_EQ(ErrorOf(Valid("\"expect\": {\"set-nx-px\"", "\"expect\": {\"nope\"")),
            "s.json: $.expect.nope: unknown algorithm \"nope\" (known: " + AlgorithmIds() + ")");
}

TEST(ScenarioTest, FaultOnAnUnknownProcessOrAfterTheEndIsRejected) {
  EXPECT_EQ(ErrorOf(Valid("\"process\": \"A\"", "\"process\": \"Z\"")),
            "s.json: $.faults[0].process: expected a client (A, B) or a Redis node (redis0), "
            "got \"Z\"");
  EXPECT_EQ(ErrorOf(Valid("\"at\": \"10ms\"", "\"at\": \"20s\"")),
            "s.json: $.faults[0].at: the fault would fire after the run ends (duration 10s)");
}

TEST(ScenarioTest, MissingRequiredFieldIsNamed) {
  EXPECT_EQ(ErrorOf(Valid("\"duration\": \"10s\",", "")),
            "s.json: $.duration: required field is missing");
}

TEST(ScenarioTest, ScalingMultipliesEveryDuration) {
  Scenario s = Scaled(ParseScenario(Valid(), "s.json"), TimeScale{1, 10});
  EXPECT_EQ(s.duration, std::chrono::seconds(1));
  EXPECT_EQ(*s.lock.ttl, std::chrono::milliseconds(100));
  EXPECT_EQ(s.clients[0].hold, std::chrono::milliseconds(10));
  EXPECT_EQ(s.faults[0].at, std::chrono::milliseconds(1));
  EXPECT_EQ(s.faults[0].duration, std::chrono::milliseconds(200));
}


TEST(ScenarioTest, NodesAndTheRedlockKeysAreRead) {
  Scenario s = ParseScenario(
      Valid("\"lock\": {\"ttl\": \"1s\"}",
            "\"nodes\": 5, \"lock\": {\"ttl\": \"1s\", \"drift_factor_ppm\": 20000, "
            "\"parallel\": false}"),
      "s.json");
  EXPECT_EQ(s.nodes, 5);
  EXPECT_EQ(s.lock.drift_factor_ppm, 20000);
  EXPECT_EQ(s.lock.parallel, false);
  EXPECT_EQ(ErrorOf(Valid("\"duration\": \"10s\",", "\"duration\": \"10s\", \"nodes\": 10,")),
            "s.json: $.nodes: must be at most 9");
  EXPECT_EQ(ErrorOf(Valid("\"ttl\": \"1s\"", "\"ttl\": \"1s\", \"parallel\": 1")),
            "s.json: $.lock.parallel: expected true or false, got a number");
  EXPECT_EQ(ErrorOf(Valid("\"ttl\": \"1s\"", "\"ttl\": \"1s\", \"drift_factor_ppm\": -1")),
            "s.json: $.lock.drift_factor_ppm: must be between 0 and 1000000, got -1");
}

}  // namespace
}  // namespace locksim
