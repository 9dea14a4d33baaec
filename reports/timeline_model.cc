#include "reports/timeline_model.h"

#include <algorithm>
#include <map>
#include <optional>

#include "reports/report_text.h"

namespace locksim {
namespace {

using ojson = nlohmann::ordered_json;

// One history op of the result JSON, read from its fields: the value text
// is shown as it is, never parsed (docs/results.md).
struct TimelineOp {
  int64_t index = 0;
  int64_t time = 0;
  std::string actor, type, f, value;
  // Faults: the process acted on; a node state: whose command made it.
  std::string subject;
  // A node state ("state"): whether the key is there, its value (a hash's
  // as its JSON text) and its TTL (-1: none).
  bool present = false;
  std::string state_value;
  std::optional<int64_t> pttl_ms;
};

std::vector<TimelineOp> OpsFromJson(const ojson& history) {
  std::vector<TimelineOp> ops;
  for (const ojson& o : history) {
    TimelineOp op;
    op.index = o.at("index").get<int64_t>();
    op.time = o.at("time").get<int64_t>();
    op.actor = o.at("process").get<std::string>();
    op.type = o.at("type").get<std::string>();
    op.f = o.at("f").get<std::string>();
    op.value = o.value("value", "");
    if (o.contains("subject") && o["subject"].is_string()) op.subject = o["subject"].get<std::string>();
    if (o.contains("state") && o["state"].is_object()) {
      const ojson& st = o["state"];
      op.present = st.value("present", false);
      if (st.contains("value")) {
        if (st["value"].is_string()) {
          op.state_value = st["value"].get<std::string>();
        } else if (st["value"].is_object()) {  // a hash: "{field: value, ...}"
          for (const auto& [field, v] : st["value"].items()) {
            op.state_value += (op.state_value.empty() ? "{" : ", ") + field + ": " +
                              (v.is_string() ? v.get<std::string>() : v.dump());
          }
          op.state_value += op.state_value.empty() ? "{}" : "}";
        }
      }
      op.pttl_ms = st.contains("pttl_ms") && st["pttl_ms"].is_number_integer()
                       ? st["pttl_ms"].get<int64_t>()
                       : -1;
    }
    ops.push_back(std::move(op));
  }
  return ops;
}

// A Redis node's lock key after a change. The owner shown is the client
// that made the change when known, else the value itself.
NodeSegment StateSegment(const TimelineOp& op) {
  NodeSegment s;
  s.start = op.time;
  s.value = op.value;
  if (!op.present) {
    s.absent = true;
    return s;
  }
  s.pttl_ms = op.pttl_ms;
  s.owner = op.subject.empty() ? op.state_value : op.subject;
  return s;
}

// Walks the history once, opening and closing each lane's intervals.
class Builder {
 public:
  explicit Builder(TimelineModel* m) : m_(*m) {}

  void Add(const TimelineOp& op) {
    if (op.actor == "nemesis") {
      Fault(op);
    } else if (op.f == "state") {
      State(op);
    } else {
      Client(op);
    }
  }

  // Whatever is still open runs to the end.
  void Finish() {
    const int64_t end = m_.end;
    for (auto& [p, t] : trying_) Lane(p).trying.push_back({t, end});
    for (auto& [p, t] : holding_) Lane(p).holding.push_back({t, end});
    for (auto& [p, t] : cs_) Lane(p).sections.push_back({t, end});
    for (Stoppage& s : m_.pauses) {
      if (s.end < 0) s.end = end;
    }
    for (Stoppage& s : m_.downs) {
      if (s.end < 0) s.end = end;
    }
  }

 private:
  ClientLane& Lane(const std::string& name) {
    auto [it, added] = lane_of_.emplace(name, m_.clients.size());
    if (added) m_.clients.push_back(ClientLane{name, {}, {}, {}, {}, {}, {}, {}, {}, {}});
    return m_.clients[it->second];
  }

  void Fault(const TimelineOp& op) {
    if (op.f == "pause") {
      m_.pauses.push_back(Stoppage{op.subject, op.time, -1, op.value});
      return;
    }
    if (op.f == "resume") {
      for (Stoppage& p : m_.pauses) {
        if (p.end < 0 && p.process == op.subject) p.end = op.time;
      }
      return;
    }
    m_.faults.push_back(TimelineMarker{op.time, op.f + (op.value.empty() ? "" : " " + op.value)});
    if (op.f == "crash") {
      // A crashed client or node is down until it restarts: what its
      // threads were doing ends there.
      m_.downs.push_back(Stoppage{op.subject, op.time, -1, op.value});
      CloseAll(op.subject, op.time);
    } else if (op.f == "restart") {
      for (Stoppage& d : m_.downs) {
        if (d.end < 0 && d.process == op.subject) d.end = op.time;
      }
    }
  }

  void CloseAll(const std::string& process, int64_t time) {
    for (auto* open : {&trying_, &holding_, &cs_, &release_}) {
      for (auto it = open->begin(); it != open->end();) {
        if (!LaneOf(it->first, process)) {
          ++it;
          continue;
        }
        ClientLane& lane = Lane(it->first);
        const TimelineBar bar{it->second, time};
        if (open == &trying_) lane.trying.push_back(bar);
        if (open == &holding_) lane.holding.push_back(bar);
        if (open == &cs_) lane.sections.push_back(bar);
        if (open == &release_) lane.releases.push_back(bar);
        it = open->erase(it);
      }
    }
  }

  void State(const TimelineOp& op) {
    auto [it, added] = node_of_.emplace(op.actor, m_.nodes.size());
    if (added) m_.nodes.push_back(NodeLane{op.actor, {}});
    NodeLane& lane = m_.nodes[it->second];
    if (!lane.segments.empty()) lane.segments.back().end = op.time;
    lane.segments.push_back(StateSegment(op));
    lane.segments.back().end = m_.end;
  }

  void Client(const TimelineOp& op) {
    const std::string& p = op.actor;
    if (op.f == "acquire") {
      ClientLane& lane = Lane(p);
      if (op.type == "invoke") {
        trying_[p] = op.time;
      } else if (trying_.count(p)) {
        lane.trying.push_back({trying_[p], op.time});
        trying_.erase(p);
        if (op.type == "ok") holding_[p] = op.time;
        if (op.type == "fail") lane.gave_up.push_back(op.time);
      }
    } else if (op.f == "cs") {
      ClientLane& lane = Lane(p);
      if (op.type == "invoke") {
        cs_[p] = op.time;
      } else if (cs_.count(p)) {
        lane.sections.push_back({cs_[p], op.time});
        cs_.erase(p);
      }
    } else if (op.f == "release") {
      Release(op);
    } else if (op.f == "redis") {
      if (op.type == "invoke") Lane(p).commands.push_back(op.time);
    } else if (op.f == "admit") {
      ClientLane& lane = Lane(p);
      if (op.type == "ok") lane.admitted.push_back(op.time);
      if (op.type == "fail") lane.refused.push_back(op.time);
    }
  }

  void Release(const TimelineOp& op) {
    const std::string& p = op.actor;
    ClientLane& lane = Lane(p);
    if (op.type == "invoke") {
      release_[p] = op.time;
      return;
    }
    if (release_.count(p)) lane.releases.push_back({release_[p], op.time});
    release_.erase(p);
    if (op.type == "fail") lane.release_missed.push_back(op.time);
    if (holding_.count(p)) {
      lane.holding.push_back({holding_[p], op.time});
      holding_.erase(p);
    }
  }

  TimelineModel& m_;
  std::map<std::string, size_t> lane_of_, node_of_;
  // Open intervals per lane.
  std::map<std::string, int64_t> trying_, holding_, cs_, release_;
};

// The violations: an overlap is a band; a write rather than an overlap
// (another client's lock deleted or overwritten: it names the node's state
// op) is a marker where that state changed.
void AddViolations(const ojson& run, TimelineModel* m) {
  for (const ojson& v : MemberOrEmpty(run, "violations")) {
    if (v.contains("state") && v["state"].contains("time")) {
      m->writes.push_back(TimelineMarker{
          v["state"]["time"].get<int64_t>(),
          v.value("kind", std::string("violation")) + " by " + v.value("writer", std::string("?"))});
    }
    if (!v.contains("overlap") || v.contains("state")) continue;
    m->overlaps.push_back(TimelineBand{{v["overlap"].value("start", int64_t{0}),
                                        v["overlap"].value("end", int64_t{0})},
                                       v.value("text", "")});
  }
}

// The longest stretch nobody made progress, when it made the verdict a
// deadlock or degraded.
void AddStall(const ojson& run, TimelineModel* m) {
  if (!run.contains("liveness") || !run["liveness"].is_object()) return;
  const ojson& l = run["liveness"];
  if (!(l.value("deadlock", false) || l.value("degraded", false)) || !l.contains("longest_stall")) {
    return;
  }
  const int64_t a = l["longest_stall"].value("start", int64_t{0});
  const int64_t b = l["longest_stall"].value("end", int64_t{0});
  if (b > a) m->stall = TimelineBand{{a, b}, l.value("text", std::string("nobody made progress"))};
}

}  // namespace

bool LaneOf(const std::string& lane, const std::string& process) {
  return lane == process ||
         (lane.size() > process.size() && lane.compare(0, process.size(), process) == 0 &&
          lane[process.size()] == '.');
}

TimelineModel BuildTimeline(const ojson& run) {
  TimelineModel m;
  m.scenario = run.value("scenario", "");
  m.algorithm = run.value("algorithm", "");
  const std::vector<TimelineOp> ops = OpsFromJson(run.at("history"));
  m.end = run.at("stats").at("end").get<int64_t>();
  for (const TimelineOp& op : ops) m.end = std::max(m.end, op.time);
  // A history listed only up to a time (a compare's counterexample of a
  // long run) is drawn up to it: what was open then ends there.
  if (run.contains("history_until")) m.end = run["history_until"].get<int64_t>();
  if (m.end <= 0) m.end = 1;
  Builder builder(&m);
  for (const TimelineOp& op : ops) builder.Add(op);
  builder.Finish();
  AddViolations(run, &m);
  AddStall(run, &m);
  // Nor are the violations after it drawn.
  std::erase_if(m.overlaps, [&m](const TimelineBand& b) { return b.span.start > m.end; });
  for (TimelineBand& b : m.overlaps) b.span.end = std::min(b.span.end, m.end);
  std::erase_if(m.writes, [&m](const TimelineMarker& w) { return w.time > m.end; });
  if (m.stall && m.stall->span.start > m.end) m.stall.reset();
  if (m.stall) m.stall->span.end = std::min(m.stall->span.end, m.end);
  return m;
}

}  // namespace locksim
