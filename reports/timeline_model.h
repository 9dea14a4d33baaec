// The timeline of a run as plain data: what svg_timeline.cc draws, built
// from the run's result JSON alone (ResultToJson with the history), so that
// `locksim report` can draw it again from a results.json. Lanes are in
// order of first appearance; times are nanoseconds of true time.
//   - a client lane per thread: acquire attempts (invoke -> ok/fail), the
//     lock held (acquire ok -> release), the critical section (cs invoke ->
//     cs ok), releases, Redis commands as ticks, rate limiter admissions;
//   - a node lane per Redis node that records "state" ops: the lock key's
//     value after each change, its owner and TTL;
//   - a process's pauses and (crashed clients and nodes) down periods;
//   - every other fault as a marker, each foreign write as a marker;
//   - each overlap's band, and the stall behind a deadlock or degraded
//     verdict.
#ifndef LOCKSIM_REPORTS_TIMELINE_MODEL_H_
#define LOCKSIM_REPORTS_TIMELINE_MODEL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace locksim {

struct TimelineBar {
  int64_t start = 0, end = 0;
  bool operator==(const TimelineBar&) const = default;
};

struct ClientLane {
  std::string name;
  std::vector<TimelineBar> trying, holding, sections, releases;
  std::vector<int64_t> gave_up, release_missed, commands, admitted, refused;
};

// The lock key on a node from one change to the next.
struct NodeSegment {
  int64_t start = 0, end = 0;
  std::string value;  // as recorded
  std::string owner;  // who wrote it (the client, else the value); empty when absent
  std::optional<int64_t> pttl_ms;  // -1: no TTL
  bool absent = false;
};

struct NodeLane {
  std::string name;
  std::vector<NodeSegment> segments;
};

// A process stopped for a while: paused, or down after a crash.
struct Stoppage {
  std::string process;
  int64_t start = 0, end = -1;
  std::string label;
};

struct TimelineMarker {
  int64_t time = 0;
  std::string label;
};

struct TimelineBand {
  TimelineBar span;
  std::string title;
};

struct TimelineModel {
  std::string scenario, algorithm;
  int64_t end = 1;  // > 0
  std::vector<ClientLane> clients;
  std::vector<NodeLane> nodes;
  std::vector<Stoppage> pauses;
  std::vector<Stoppage> downs;
  std::vector<TimelineMarker> faults;  // every fault but pauses
  std::vector<TimelineMarker> writes;  // foreign writes
  std::vector<TimelineBand> overlaps;
  std::optional<TimelineBand> stall;
};

// `run` is one result JSON with "history", "violations" and "stats".end.
// Throws nlohmann::json::exception when a field it needs is missing.
TimelineModel BuildTimeline(const nlohmann::ordered_json& run);

// Whether lane `lane` ("A" or its thread "A.2") belongs to `process`.
bool LaneOf(const std::string& lane, const std::string& process);

}  // namespace locksim

#endif  // LOCKSIM_REPORTS_TIMELINE_MODEL_H_
