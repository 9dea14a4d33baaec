#include "reports/svg_timeline.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "reports/xml_escape.h"

namespace locksim {
namespace {

using ojson = nlohmann::ordered_json;

// Geometry, in SVG user units (the SVG scales to the page's width).
constexpr double kWidth = 1120;
constexpr double kLabelWidth = 132;
constexpr double kRight = 24;
constexpr double kTop = 8;
constexpr double kFaultRow = 22;  // per row of fault labels
constexpr double kLane = 30;
constexpr double kLaneGap = 10;
constexpr double kAxis = 30;

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

struct Op {
  int64_t index = 0;
  int64_t time = 0;
  std::string process, type, f, value;
  int node = -1;
  std::string subject;  // state: the client whose command changed it, if named
};

struct Bar {
  int64_t start = 0, end = 0;
};

struct ClientLane {
  std::string name;
  std::vector<Bar> trying, holding, sections, releases;
  std::vector<int64_t> gave_up, release_missed, commands, admitted, refused;
};

struct NodeSegment {
  int64_t start = 0, end = 0;
  std::string value;  // as recorded
  std::string owner;  // the quoted value, empty when absent
  std::optional<int64_t> pttl_ms;
  bool absent = false;
};

struct NodeLane {
  std::string name;
  std::vector<NodeSegment> segments;
};

struct Marker {
  int64_t time = 0;
  std::string label;
  int row = 0;
};

// A Redis node's lock key after each change, as the history records it:
//   lock:x = "tok-A" pttl 5000     lock:x = "tok-A" no ttl
//   lock:x = {uuid:1: 2} pttl 30000    lock:x absent
// The owner shown is the client that made the change when the op names it
// (`subject`), else the value itself.
NodeSegment ParseState(const Op& op, const std::string& subject) {
  NodeSegment s;
  s.start = op.time;
  s.value = op.value;
  std::string v = op.value;
  if (v.size() >= 7 && v.compare(v.size() - 7, 7, " absent") == 0) {
    s.absent = true;
    return s;
  }
  const size_t p = v.rfind(" pttl ");
  if (p != std::string::npos) {
    int64_t ms = 0;
    bool any = false;
    for (size_t i = p + 6; i < v.size() && v[i] >= '0' && v[i] <= '9'; ++i) {
      ms = ms * 10 + (v[i] - '0');
      any = true;
    }
    if (any) s.pttl_ms = ms;
    v.resize(p);
  } else if (const size_t n = v.rfind(" no ttl"); n != std::string::npos) {
    s.pttl_ms = -1;
    v.resize(n);
  }
  const size_t eq = v.find(" = ");
  std::string value = eq == std::string::npos ? v : v.substr(eq + 3);
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
    value = value.substr(1, value.size() - 2);
  }
  s.owner = subject.empty() ? value : subject;
  return s;
}

// Who wrote the value a state op shows, when the op does not say: the
// client thread whose last Redis command before it carried that value (the
// token in SET key token NX PX). Empty when none did or the value is short
// enough to be ambiguous.
std::string WriterOf(const std::vector<Op>& ops, const Op& state) {
  const size_t eq = state.value.find(" = \"");
  if (eq == std::string::npos) return "";
  std::string token = state.value.substr(eq + 4);
  token.resize(token.find('"') == std::string::npos ? 0 : token.find('"'));
  if (token.size() > 3 && token.compare(token.size() - 3, 3, "...") == 0) token.resize(token.size() - 3);
  if (token.size() < 6) return "";
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    if (it->index >= state.index || it->f != "redis" || it->type != "invoke") continue;
    if (it->value.find(token) != std::string::npos) return it->process;
  }
  return "";
}

// A stable pastel colour for a lock owner, from a small palette.
std::string OwnerColour(const std::string& owner) {
  static constexpr const char* kPalette[] = {"#c7d2fe", "#bbf7d0", "#fde68a", "#fbcfe8",
                                             "#a5f3fc", "#ddd6fe", "#fed7aa", "#d9f99d"};
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : owner) h = (h ^ c) * 1099511628211ull;
  return kPalette[h % (sizeof kPalette / sizeof kPalette[0])];
}

std::string Truncate(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  return s.substr(0, n - 1) + "\xE2\x80\xA6";
}

// A round tick step giving at most `max_ticks` ticks: 1, 2 or 5 x 10^k ns
// up to 10 s, then steps a clock reads well (15 s, 30 s, 1 m, 2 m, 5 m...).
int64_t TickStep(int64_t span, int max_ticks) {
  constexpr int64_t kSecond = 1'000'000'000;
  int64_t step = 1;
  while (step < 10 * kSecond) {
    for (int64_t m : {1, 2, 5}) {
      if (span / (step * m) <= max_ticks) return step * m;
    }
    step *= 10;
  }
  for (int64_t s : {10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600}) {
    if (span / (s * kSecond) <= max_ticks) return s * kSecond;
  }
  step = 3600 * kSecond;
  while (span / step > max_ticks) step *= 2;
  return step;
}

// The process a pause or resume names: "A for 10s" -> "A".
std::string TargetOf(const std::string& value) { return value.substr(0, value.find(' ')); }

bool LaneOf(const std::string& lane, const std::string& process) {
  return lane == process ||
         (lane.size() > process.size() && lane.compare(0, process.size(), process) == 0 &&
          lane[process.size()] == '.');
}

}  // namespace

std::string ShortDuration(int64_t ns) {
  if (ns == 0) return "0s";
  if (ns < 0) return "-" + ShortDuration(-ns);
  // From a minute up: minutes and whole seconds ("3m04s"), rounded.
  constexpr int64_t kSecond = 1'000'000'000;
  if (ns >= 60 * kSecond) {
    const int64_t seconds = (ns + kSecond / 2) / kSecond;
    char buf[48];
    if (seconds % 60 == 0) {
      std::snprintf(buf, sizeof buf, "%lldm", static_cast<long long>(seconds / 60));
    } else {
      std::snprintf(buf, sizeof buf, "%lldm%02llds", static_cast<long long>(seconds / 60),
                    static_cast<long long>(seconds % 60));
    }
    return buf;
  }
  const char* unit = "ns";
  double v = static_cast<double>(ns);
  if (ns >= 1'000'000'000) {
    unit = "s";
    v /= 1e9;
  } else if (ns >= 1'000'000) {
    unit = "ms";
    v /= 1e6;
  } else if (ns >= 1'000) {
    unit = "\xC2\xB5s";
    v /= 1e3;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return std::string(buf) + unit;
}

std::string RenderTimelineSvg(const ojson& run, const std::string& id) {
  std::vector<Op> ops;
  for (const ojson& o : run.at("history")) {
    Op op;
    op.index = o.at("index").get<int64_t>();
    op.time = o.at("time").get<int64_t>();
    op.process = o.at("process").get<std::string>();
    op.type = o.at("type").get<std::string>();
    op.f = o.at("f").get<std::string>();
    op.value = o.value("value", "");
    op.node = o.value("node", -1);
    if (o.contains("subject") && o["subject"].is_string()) op.subject = o["subject"].get<std::string>();
    ops.push_back(std::move(op));
  }
  int64_t end = run.at("stats").at("end").get<int64_t>();
  for (const Op& op : ops) end = std::max(end, op.time);
  if (end <= 0) end = 1;

  // Lanes, in order of first appearance.
  std::vector<ClientLane> clients;
  std::vector<NodeLane> nodes;
  std::map<std::string, size_t> client_of, node_of;
  auto client = [&](const std::string& name) -> ClientLane& {
    auto [it, added] = client_of.emplace(name, clients.size());
    if (added) clients.push_back(ClientLane{name, {}, {}, {}, {}, {}, {}, {}, {}, {}});
    return clients[it->second];
  };
  std::vector<Marker> markers;
  struct Pause {
    std::string process;
    int64_t start = 0, end = -1;
    std::string label;
  };
  std::vector<Pause> pauses;
  std::vector<Pause> downs;  // crashed clients and nodes, until they restart
  // Open intervals per process.
  std::map<std::string, int64_t> trying_since, holding_since, cs_since, release_since;

  for (const Op& op : ops) {
    if (op.process == "nemesis") {
      if (op.f == "pause") {
        pauses.push_back(Pause{TargetOf(op.value), op.time, -1, op.value});
      } else if (op.f == "resume") {
        for (Pause& p : pauses) {
          if (p.end < 0 && p.process == TargetOf(op.value)) p.end = op.time;
        }
      } else {
        markers.push_back(Marker{op.time, op.f + (op.value.empty() ? "" : " " + op.value), 0});
        // A crashed client or node is down until it restarts: what its
        // threads were doing ends there.
        if (op.f == "crash") {
          const std::string target = TargetOf(op.value);
          downs.push_back(Pause{target, op.time, -1, op.value});
          for (auto* open : {&trying_since, &holding_since, &cs_since, &release_since}) {
            for (auto it = open->begin(); it != open->end();) {
              if (!LaneOf(it->first, target)) {
                ++it;
                continue;
              }
              ClientLane& lane = client(it->first);
              const Bar bar{it->second, op.time};
              if (open == &trying_since) lane.trying.push_back(bar);
              if (open == &holding_since) lane.holding.push_back(bar);
              if (open == &cs_since) lane.sections.push_back(bar);
              if (open == &release_since) lane.releases.push_back(bar);
              it = open->erase(it);
            }
          }
        } else if (op.f == "restart") {
          for (Pause& d : downs) {
            if (d.end < 0 && d.process == TargetOf(op.value)) d.end = op.time;
          }
        }
      }
      continue;
    }
    if (op.f == "state") {
      auto [it, added] = node_of.emplace(op.process, nodes.size());
      if (added) nodes.push_back(NodeLane{op.process, {}});
      NodeLane& lane = nodes[it->second];
      if (!lane.segments.empty()) lane.segments.back().end = op.time;
      lane.segments.push_back(ParseState(op, op.subject.empty() ? WriterOf(ops, op) : op.subject));
      lane.segments.back().end = end;
      continue;
    }
    const std::string& p = op.process;
    if (op.f == "acquire") {
      ClientLane& lane = client(p);
      if (op.type == "invoke") {
        trying_since[p] = op.time;
      } else if (trying_since.count(p)) {
        lane.trying.push_back(Bar{trying_since[p], op.time});
        trying_since.erase(p);
        if (op.type == "ok") holding_since[p] = op.time;
        if (op.type == "fail") lane.gave_up.push_back(op.time);
      }
    } else if (op.f == "cs") {
      ClientLane& lane = client(p);
      if (op.type == "invoke") {
        cs_since[p] = op.time;
      } else if (cs_since.count(p)) {
        lane.sections.push_back(Bar{cs_since[p], op.time});
        cs_since.erase(p);
      }
    } else if (op.f == "release") {
      ClientLane& lane = client(p);
      if (op.type == "invoke") {
        release_since[p] = op.time;
      } else {
        if (release_since.count(p)) lane.releases.push_back(Bar{release_since[p], op.time});
        release_since.erase(p);
        if (op.type == "fail") lane.release_missed.push_back(op.time);
        if (holding_since.count(p)) {
          lane.holding.push_back(Bar{holding_since[p], op.time});
          holding_since.erase(p);
        }
      }
    } else if (op.f == "redis") {
      if (op.type == "invoke") client(p).commands.push_back(op.time);
    } else if (op.f == "admit") {
      ClientLane& lane = client(p);
      if (op.type == "ok") lane.admitted.push_back(op.time);
      if (op.type == "fail") lane.refused.push_back(op.time);
    }
  }
  // Whatever is still open runs to the end.
  for (auto& [p, t] : trying_since) client(p).trying.push_back(Bar{t, end});
  for (auto& [p, t] : holding_since) client(p).holding.push_back(Bar{t, end});
  for (auto& [p, t] : cs_since) client(p).sections.push_back(Bar{t, end});
  for (Pause& p : pauses) {
    if (p.end < 0) p.end = end;
  }
  for (Pause& d : downs) {
    if (d.end < 0) d.end = end;
  }
  // A violation that is a write rather than an overlap (another client's
  // lock deleted or overwritten: it names the node's state op) is marked
  // where that state changed.
  std::vector<Marker> writes;
  for (const ojson& v : run.value("violations", ojson::array())) {
    if (!v.contains("state") || !v["state"].contains("time")) continue;
    writes.push_back(Marker{v["state"]["time"].get<int64_t>(),
                            v.value("kind", std::string("violation")) + " by " +
                                v.value("writer", std::string("?")),
                            0});
  }
  // The longest stretch nobody made progress, when it made the verdict a
  // deadlock or degraded.
  std::optional<Bar> stall;
  std::string stall_text;
  if (run.contains("liveness") && run["liveness"].is_object()) {
    const ojson& l = run["liveness"];
    if ((l.value("deadlock", false) || l.value("degraded", false)) && l.contains("longest_stall")) {
      const int64_t a = l["longest_stall"].value("start", int64_t{0});
      const int64_t b = l["longest_stall"].value("end", int64_t{0});
      if (b > a) stall = Bar{a, b};
      stall_text = l.value("text", std::string("nobody made progress"));
    }
  }

  const double plot_left = kLabelWidth;
  const double plot_width = kWidth - kLabelWidth - kRight;
  auto X = [&](int64_t t) {
    return plot_left + static_cast<double>(t) / static_cast<double>(end) * plot_width;
  };

  // Fault labels (pauses included) go on rows above the lanes, a new row
  // when a label would run into the previous one on its row.
  struct Label {
    double x;
    std::string text;
    int row;
    int kind;  // 0 fault, 1 pause, 2 violating write
  };
  std::vector<Label> labels;
  for (const Pause& p : pauses) labels.push_back(Label{X(p.start), "pause " + p.label, 0, 1});
  for (const Marker& m : markers) labels.push_back(Label{X(m.time), m.label, 0, 0});
  for (const Marker& m : writes) labels.push_back(Label{X(m.time), m.label, 0, 2});
  std::stable_sort(labels.begin(), labels.end(),
                   [](const Label& a, const Label& b) { return a.x < b.x; });
  std::vector<double> row_end;
  for (Label& l : labels) {
    const double w = 7.0 * static_cast<double>(l.text.size()) + 16;
    int row = 0;
    while (row < static_cast<int>(row_end.size()) && row_end[row] > l.x) ++row;
    if (row == static_cast<int>(row_end.size())) row_end.push_back(0);
    row_end[row] = l.x + w;
    l.row = row;
  }
  const double faults_height = kFaultRow * static_cast<double>(row_end.size());
  const double lanes_top = kTop + faults_height + (row_end.empty() ? 0 : 6);
  const size_t lane_count = clients.size() + nodes.size();
  const double lanes_height = static_cast<double>(lane_count) * (kLane + kLaneGap);
  const double axis_y = lanes_top + lanes_height;
  const double height = axis_y + kAxis;
  auto LaneY = [&](size_t i) { return lanes_top + static_cast<double>(i) * (kLane + kLaneGap); };

  std::string s;
  const std::string hatch = "hatch-" + id;
  s += "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " +
       Num(kWidth) + " " + Num(height) + "\" role=\"img\" aria-label=\"timeline of " +
       EscapeXml(run.value("scenario", "")) + " with " + EscapeXml(run.value("algorithm", "")) +
       "\">\n";
  s += "<defs><pattern id=\"" + hatch +
       "\" patternUnits=\"userSpaceOnUse\" width=\"7\" height=\"7\" "
       "patternTransform=\"rotate(45)\"><rect width=\"7\" height=\"7\" fill=\"#f1f5f9\" "
       "fill-opacity=\"0.7\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"7\" stroke=\"#475569\" "
       "stroke-width=\"2.2\"/></pattern></defs>\n";

  // Lane backgrounds and names.
  for (size_t i = 0; i < lane_count; ++i) {
    const double y = LaneY(i);
    const bool is_node = i >= clients.size();
    const std::string& name = is_node ? nodes[i - clients.size()].name : clients[i].name;
    s += "<rect x=\"" + Num(plot_left) + "\" y=\"" + Num(y) + "\" width=\"" + Num(plot_width) +
         "\" height=\"" + Num(kLane) + "\" fill=\"" + (is_node ? "#f8fafc" : "#f8fafc") +
         "\" stroke=\"#e2e8f0\"/>\n";
    s += "<text class=\"lane\" x=\"" + Num(plot_left - 10) + "\" y=\"" + Num(y + kLane / 2 + 5) +
         "\" text-anchor=\"end\">" + EscapeXml(Truncate(name, 16)) + "</text>\n";
  }

  // Grid and time axis.
  const int64_t step = TickStep(end, 10);
  for (int64_t t = 0; t <= end; t += step) {
    const double x = X(t);
    s += "<line x1=\"" + Num(x) + "\" y1=\"" + Num(lanes_top - 2) + "\" x2=\"" + Num(x) +
         "\" y2=\"" + Num(axis_y + 4) + "\" stroke=\"#e2e8f0\"/>\n";
    s += "<text class=\"tick\" x=\"" + Num(x) + "\" y=\"" + Num(axis_y + 18) +
         "\" text-anchor=\"middle\">" + EscapeXml(ShortDuration(t)) + "</text>\n";
  }

  // The stall, then the overlaps, behind the lanes' bars.
  if (stall) {
    const double x0 = X(stall->start), w = std::max(2.0, X(stall->end) - x0);
    s += "<rect class=\"stall\" x=\"" + Num(x0) + "\" y=\"" + Num(lanes_top - 3) +
         "\" width=\"" + Num(w) + "\" height=\"" + Num(lanes_height - kLaneGap + 6) +
         "\"><title>" + EscapeXml(stall_text) + "</title></rect>\n";
  }
  for (const ojson& v : run.value("violations", ojson::array())) {
    // A foreign write (it names the node state op) is a marker, not a band.
    if (!v.contains("overlap") || v.contains("state")) continue;
    const int64_t a = v["overlap"].value("start", int64_t{0});
    const int64_t b = v["overlap"].value("end", int64_t{0});
    const double x0 = X(a), w = std::max(2.0, X(b) - x0);
    std::string title = v.value("text", "");
    s += "<rect class=\"overlap\" x=\"" + Num(x0) + "\" y=\"" + Num(lanes_top - 3) +
         "\" width=\"" + Num(w) + "\" height=\"" + Num(lanes_height - kLaneGap + 6) +
         "\" fill=\"#ef4444\" fill-opacity=\"0.16\" stroke=\"#dc2626\" stroke-dasharray=\"4 3\">"
         "<title>" + EscapeXml(title) + "</title></rect>\n";
  }

  auto BarRect = [&](double y, double h, const Bar& b, const std::string& cls,
                     const std::string& title) {
    const double x0 = X(b.start);
    const double w = std::max(1.5, X(b.end) - x0);
    return "<rect class=\"" + cls + "\" x=\"" + Num(x0) + "\" y=\"" + Num(y) + "\" width=\"" +
           Num(w) + "\" height=\"" + Num(h) + "\" rx=\"2\"><title>" + EscapeXml(title) +
           "</title></rect>\n";
  };
  auto Span = [](const Bar& b) {
    return ShortDuration(b.start) + " \xE2\x86\x92 " + ShortDuration(b.end);
  };

  std::string overlay;  // labels drawn over the pauses' hatching
  for (size_t i = 0; i < clients.size(); ++i) {
    const ClientLane& c = clients[i];
    const double y = LaneY(i);
    for (const Bar& b : c.trying) {
      s += BarRect(y + 9, kLane - 18, b, "trying", c.name + " trying to acquire, " + Span(b));
    }
    for (const Bar& b : c.holding) {
      s += BarRect(y + 5, kLane - 10, b, "holding", c.name + " holds the lock, " + Span(b));
    }
    for (const Bar& b : c.sections) {
      s += BarRect(y + 5, kLane - 10, b, "cs", c.name + " in the critical section, " + Span(b));
      const double w = X(b.end) - X(b.start);
      if (w > 130) {
        overlay += "<text class=\"in-bar\" x=\"" + Num(X(b.start) + 6) + "\" y=\"" +
             Num(y + kLane / 2 + 4) + "\">critical section</text>\n";
      }
    }
    for (const Bar& b : c.releases) {
      s += BarRect(y + 3, kLane - 6, b, "release", c.name + " releases, " + Span(b));
    }
    for (int64_t t : c.commands) {
      s += "<line class=\"cmd\" x1=\"" + Num(X(t)) + "\" y1=\"" + Num(y + kLane - 4) +
           "\" x2=\"" + Num(X(t)) + "\" y2=\"" + Num(y + kLane) + "\"/>\n";
    }
    for (int64_t t : c.admitted) {
      s += "<line class=\"admit\" x1=\"" + Num(X(t)) + "\" y1=\"" + Num(y + 6) + "\" x2=\"" +
           Num(X(t)) + "\" y2=\"" + Num(y + kLane - 6) + "\"/>\n";
    }
    for (int64_t t : c.refused) {
      s += "<line class=\"refuse\" x1=\"" + Num(X(t)) + "\" y1=\"" + Num(y + 6) + "\" x2=\"" +
           Num(X(t)) + "\" y2=\"" + Num(y + kLane - 6) + "\"/>\n";
    }
    auto Cross = [&](int64_t t, const std::string& title) {
      const double x = X(t), cy = y + kLane / 2;
      return "<path class=\"cross\" d=\"M" + Num(x - 5) + " " + Num(cy - 5) + "L" + Num(x + 5) +
             " " + Num(cy + 5) + "M" + Num(x - 5) + " " + Num(cy + 5) + "L" + Num(x + 5) + " " +
             Num(cy - 5) + "\"><title>" + EscapeXml(title) + "</title></path>\n";
    };
    for (int64_t t : c.gave_up) s += Cross(t, c.name + " gave up acquiring at " + ShortDuration(t));
    for (int64_t t : c.release_missed) {
      s += Cross(t, c.name + "'s release found nothing of its own at " + ShortDuration(t));
    }
  }

  for (size_t n = 0; n < nodes.size(); ++n) {
    const double y = LaneY(clients.size() + n);
    for (const NodeSegment& seg : nodes[n].segments) {
      if (seg.absent) continue;
      const double x0 = X(seg.start), x1 = X(seg.end);
      s += "<rect class=\"keyval\" x=\"" + Num(x0) + "\" y=\"" + Num(y + 4) + "\" width=\"" +
           Num(std::max(1.5, x1 - x0)) + "\" height=\"" + Num(kLane - 8) + "\" fill=\"" +
           OwnerColour(seg.owner) + "\"><title>" + EscapeXml(nodes[n].name + ": " + seg.value +
           " at " + ShortDuration(seg.start)) + "</title></rect>\n";
      const std::string label = seg.owner + (seg.pttl_ms && *seg.pttl_ms < 0 ? ", no TTL" : "");
      if (x1 - x0 > 60) {
        s += "<text class=\"in-bar dark\" x=\"" + Num(x0 + 5) + "\" y=\"" +
             Num(y + kLane / 2 + 4) + "\">" +
             EscapeXml(Truncate(label, static_cast<size_t>((x1 - x0 - 10) / 7))) + "</text>\n";
      }
      // Where the TTL runs out if nothing changes the key before.
      if (seg.pttl_ms && *seg.pttl_ms >= 0) {
        const int64_t expiry = seg.start + *seg.pttl_ms * 1'000'000;
        if (expiry <= seg.end && expiry <= end) {
          const double x = X(expiry);
          s += "<path class=\"expiry\" d=\"M" + Num(x) + " " + Num(y + 2) + "V" +
               Num(y + kLane - 2) + "\"><title>TTL runs out at " + ShortDuration(expiry) +
               "</title></path>\n";
        }
      }
    }
  }

  // Pauses hatched over every lane of the paused process.
  for (const Pause& p : pauses) {
    for (size_t i = 0; i < clients.size(); ++i) {
      if (!LaneOf(clients[i].name, p.process)) continue;
      const double x0 = X(p.start), w = std::max(2.0, X(p.end) - x0);
      s += "<rect class=\"pause\" x=\"" + Num(x0) + "\" y=\"" + Num(LaneY(i) + 1) +
           "\" width=\"" + Num(w) + "\" height=\"" + Num(kLane - 2) + "\" fill=\"url(#" + hatch +
           ")\" stroke=\"#475569\"><title>" +
           EscapeXml(p.process + " paused, " + ShortDuration(p.start) + " \xE2\x86\x92 " +
                     ShortDuration(p.end)) +
           "</title></rect>\n";
    }
  }

  // Crashed clients and nodes: their lanes dark until they restart.
  for (const Pause& d : downs) {
    for (size_t i = 0; i < lane_count; ++i) {
      const bool is_node = i >= clients.size();
      const std::string& name = is_node ? nodes[i - clients.size()].name : clients[i].name;
      if (!LaneOf(name, d.process)) continue;
      const double x0 = X(d.start), w = std::max(2.0, X(d.end) - x0);
      s += "<rect class=\"down\" x=\"" + Num(x0) + "\" y=\"" + Num(LaneY(i) + 1) +
           "\" width=\"" + Num(w) + "\" height=\"" + Num(kLane - 2) + "\"><title>" +
           EscapeXml(d.process + " down (crashed), " + ShortDuration(d.start) + " \xE2\x86\x92 " +
                     ShortDuration(d.end)) +
           "</title></rect>\n";
      if (X(d.end) - x0 > 60) {
        overlay += "<text class=\"in-bar down-label\" x=\"" + Num(x0 + 6) + "\" y=\"" +
                   Num(LaneY(i) + kLane / 2 + 4) + "\">down</text>\n";
      }
    }
  }

  s += overlay;

  // Fault labels and markers on top.
  for (const Label& l : labels) {
    const double y = kTop + kFaultRow * l.row + 14;
    static constexpr const char* kClass[] = {"fault", "fault pause-mark", "fault write-mark"};
    s += "<path class=\"" + std::string(kClass[l.kind]) + "\" d=\"M" +
         Num(l.x) + " " + Num(y - 10) + "V" + Num(axis_y) + "\"/>\n";
    s += "<text class=\"fault-label" + std::string(l.kind == 2 ? " write-label" : "") + "\" x=\"" + Num(l.x + 4) + "\" y=\"" + Num(y) + "\">" +
         EscapeXml(l.text) + "</text>\n";
  }
  s += "</svg>\n";
  return s;
}

}  // namespace locksim
