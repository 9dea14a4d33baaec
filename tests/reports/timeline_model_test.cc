// The timeline's lane model, from a small hand-written run: what each lane
// holds, exactly.
#include "reports/timeline_model.h"

#include <gtest/gtest.h>

namespace locksim {
namespace {

using ojson = nlohmann::ordered_json;

ojson OpJson(int64_t index, int64_t time, const char* process, const char* type, const char* f,
         const std::string& value = "") {
  ojson o;
  o["index"] = index;
  o["time"] = time;
  o["process"] = process;
  o["type"] = type;
  o["f"] = f;
  o["value"] = value;
  return o;
}

// A acquires at 10 and works until 100, paused from 20 to 80; its key
// expires meanwhile and B takes it at 60 and holds it to the end; B
// crashes at 120 and restarts at 150. The ops carry what their text says
// as fields ("subject", "state"), as run_json.cc writes them: the timeline
// reads those, never the text. redis0's first state names its writer (A);
// the third names none, so its owner is the value itself.
ojson SmallRun() {
  ojson h = ojson::array();
  int64_t i = 0;
  h.push_back(OpJson(i++, 0, "A", "invoke", "acquire", "lock:x"));
  h.push_back(OpJson(i++, 5, "A", "invoke", "redis", "SET lock:x tokenA NX PX 40"));
  h.push_back(OpJson(i++, 9, "redis0", "ok", "state", "lock:x = \"tokenA\" pttl 40"));
  h.push_back(OpJson(i++, 10, "A", "ok", "redis", "OK"));
  h.push_back(OpJson(i++, 10, "A", "ok", "acquire", "lock:x"));
  h.push_back(OpJson(i++, 10, "A", "invoke", "cs", "lock:x"));
  h.push_back(OpJson(i++, 20, "nemesis", "info", "pause", "A for 60ns"));
  h.push_back(OpJson(i++, 50, "redis0", "ok", "state", "lock:x absent"));
  h.push_back(OpJson(i++, 55, "B", "invoke", "acquire", "lock:x"));
  h.push_back(OpJson(i++, 56, "B", "invoke", "redis", "SET lock:x tokenB NX PX 40"));
  h.push_back(OpJson(i++, 58, "redis0", "ok", "state", "lock:x = \"tokenB\" no ttl"));
  h.push_back(OpJson(i++, 60, "B", "ok", "acquire", "lock:x"));
  h.push_back(OpJson(i++, 60, "B", "invoke", "cs", "lock:x"));
  h.push_back(OpJson(i++, 80, "nemesis", "info", "resume", "A"));
  h.push_back(OpJson(i++, 100, "A", "ok", "cs", "lock:x"));
  h.push_back(OpJson(i++, 100, "A", "invoke", "release", "lock:x"));
  h.push_back(OpJson(i++, 110, "A", "fail", "release", "lock:x"));
  h.push_back(OpJson(i++, 120, "nemesis", "info", "crash", "B"));
  h.push_back(OpJson(i++, 150, "nemesis", "info", "restart", "B"));
  h[2]["subject"] = "A";
  h[2]["state"] = {{"key", "lock:x"}, {"present", true}, {"value", "tokenA"}, {"pttl_ms", 40}};
  h[6]["subject"] = "A";
  h[7]["state"] = {{"key", "lock:x"}, {"present", false}, {"pttl_ms", nullptr}};
  h[10]["state"] = {{"key", "lock:x"}, {"present", true}, {"value", "tokenB"}, {"pttl_ms", nullptr}};
  h[13]["subject"] = "A";
  h[17]["subject"] = "B";
  h[18]["subject"] = "B";
  ojson run;
  run["scenario"] = "s";
  run["algorithm"] = "set-nx-px";
  run["history"] = h;
  run["stats"] = {{"end", 200}};
  run["violations"] = ojson::array(
      {{{"kind", "mutual-exclusion"}, {"overlap", {{"start", 60}, {"end", 100}}},
        {"text", "A and B both held lock:x"}}});
  return run;
}

TEST(TimelineModel, ClientLanesHoldEachIntervalOfTheRun) {
  const TimelineModel m = BuildTimeline(SmallRun());
  EXPECT_EQ(m.end, 200);
  ASSERT_EQ(m.clients.size(), 2u);
  const ClientLane& a = m.clients[0];
  EXPECT_EQ(a.name, "A");
  EXPECT_EQ(a.trying, (std::vector<TimelineBar>{{0, 10}}));
  EXPECT_EQ(a.holding, (std::vector<TimelineBar>{{10, 110}}));
  EXPECT_EQ(a.sections, (std::vector<TimelineBar>{{10, 100}}));
  EXPECT_EQ(a.releases, (std::vector<TimelineBar>{{100, 110}}));
  EXPECT_EQ(a.release_missed, (std::vector<int64_t>{110}));
  EXPECT_EQ(a.commands, (std::vector<int64_t>{5}));
  const ClientLane& b = m.clients[1];
  EXPECT_EQ(b.name, "B");
  // B's section and hold end where it crashed.
  EXPECT_EQ(b.trying, (std::vector<TimelineBar>{{55, 60}}));
  EXPECT_EQ(b.holding, (std::vector<TimelineBar>{{60, 120}}));
  EXPECT_EQ(b.sections, (std::vector<TimelineBar>{{60, 120}}));
}

TEST(TimelineModel, PausesDownsAndFaultsAreKeptApart) {
  const TimelineModel m = BuildTimeline(SmallRun());
  ASSERT_EQ(m.pauses.size(), 1u);
  EXPECT_EQ(m.pauses[0].process, "A");
  EXPECT_EQ(m.pauses[0].start, 20);
  EXPECT_EQ(m.pauses[0].end, 80);
  EXPECT_EQ(m.pauses[0].label, "A for 60ns");
  ASSERT_EQ(m.downs.size(), 1u);
  EXPECT_EQ(m.downs[0].process, "B");
  EXPECT_EQ(m.downs[0].start, 120);
  EXPECT_EQ(m.downs[0].end, 150);
  // The crash and the restart are markers; pause and resume are not.
  ASSERT_EQ(m.faults.size(), 2u);
  EXPECT_EQ(m.faults[0].label, "crash B");
  EXPECT_EQ(m.faults[1].label, "restart B");
  ASSERT_EQ(m.overlaps.size(), 1u);
  EXPECT_EQ(m.overlaps[0].span, (TimelineBar{60, 100}));
  EXPECT_FALSE(m.stall);
}

TEST(TimelineModel, ANodeLaneShowsTheKeyItsOwnerAndItsTtl) {
  const TimelineModel m = BuildTimeline(SmallRun());
  ASSERT_EQ(m.nodes.size(), 1u);
  const std::vector<NodeSegment>& s = m.nodes[0].segments;
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].start, 9);
  EXPECT_EQ(s[0].end, 50);
  EXPECT_EQ(s[0].owner, "A");  // its "subject"
  EXPECT_EQ(s[0].pttl_ms, 40);
  EXPECT_FALSE(s[0].absent);
  EXPECT_TRUE(s[1].absent);
  EXPECT_EQ(s[1].end, 58);
  EXPECT_EQ(s[2].owner, "tokenB");  // no subject: the value
  EXPECT_EQ(s[2].pttl_ms, -1);     // no ttl
  EXPECT_EQ(s[2].end, 200);
}

// A history listed only up to a time (`history_until`, a compare's
// counterexample of a long run) is drawn up to it: what was open then ends
// there, and violations after it are not drawn.
TEST(TimelineModel, AHistoryListedUpToATimeIsDrawnUpToIt) {
  ojson run = SmallRun();
  ojson h = ojson::array();
  for (const ojson& op : run["history"]) {
    if (op["time"].get<int64_t>() <= 70) h.push_back(op);
  }
  run["history"] = h;
  run["history_until"] = 70;
  run["violations"].push_back({{"kind", "mutual-exclusion"},
                               {"overlap", {{"start", 120}, {"end", 130}}},
                               {"text", "later"}});
  const TimelineModel m = BuildTimeline(run);
  EXPECT_EQ(m.end, 70);
  EXPECT_EQ(m.clients[0].sections, (std::vector<TimelineBar>{{10, 70}}));
  EXPECT_EQ(m.clients[1].holding, (std::vector<TimelineBar>{{60, 70}}));
  EXPECT_EQ(m.nodes[0].segments.back().end, 70);
  ASSERT_EQ(m.overlaps.size(), 1u);
  EXPECT_EQ(m.overlaps[0].span, (TimelineBar{60, 70}));
}

TEST(TimelineModel, AThreadLaneBelongsToItsProcess) {
  EXPECT_TRUE(LaneOf("A", "A"));
  EXPECT_TRUE(LaneOf("A.2", "A"));
  EXPECT_FALSE(LaneOf("AB", "A"));
  EXPECT_FALSE(LaneOf("A", "A.2"));
}

}  // namespace
}  // namespace locksim
