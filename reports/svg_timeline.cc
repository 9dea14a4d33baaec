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


namespace {

// Where things go: the plot's x for a time, each lane's y, and the rows of
// fault labels above the lanes.
class Layout {
 public:
  // A label above the lanes and its marker line down through them.
  struct Label {
    double x;
    std::string text;
    int row;
    int kind;  // 0 fault, 1 pause, 2 violating write
  };

  explicit Layout(const TimelineModel& m) : end_(m.end) {
    for (const Stoppage& p : m.pauses) labels.push_back(Label{X(p.start), "pause " + p.label, 0, 1});
    for (const TimelineMarker& f : m.faults) labels.push_back(Label{X(f.time), f.label, 0, 0});
    for (const TimelineMarker& w : m.writes) labels.push_back(Label{X(w.time), w.label, 0, 2});
    std::stable_sort(labels.begin(), labels.end(),
                     [](const Label& a, const Label& b) { return a.x < b.x; });
    // A new row when a label would run into the previous one on its row.
    std::vector<double> row_end;
    for (Label& l : labels) {
      const double w = 7.0 * static_cast<double>(l.text.size()) + 16;
      int row = 0;
      while (row < static_cast<int>(row_end.size()) && row_end[row] > l.x) ++row;
      if (row == static_cast<int>(row_end.size())) row_end.push_back(0);
      row_end[row] = l.x + w;
      l.row = row;
    }
    lanes_top = kTop + kFaultRow * static_cast<double>(row_end.size()) + (row_end.empty() ? 0 : 6);
    lane_count = m.clients.size() + m.nodes.size();
    lanes_height = static_cast<double>(lane_count) * (kLane + kLaneGap);
    axis_y = lanes_top + lanes_height;
    height = axis_y + kAxis;
  }

  double X(int64_t t) const {
    return kLabelWidth + static_cast<double>(t) / static_cast<double>(end_) * kPlotWidth;
  }
  double LaneY(size_t i) const {
    return lanes_top + static_cast<double>(i) * (kLane + kLaneGap);
  }

  static constexpr double kPlotWidth = kWidth - kLabelWidth - kRight;
  std::vector<Label> labels;
  double lanes_top = 0;
  size_t lane_count = 0;
  double lanes_height = 0;
  double axis_y = 0;
  double height = 0;

 private:
  int64_t end_;
};

// Draws a model at a layout, back to front: lanes, grid, bands, bars,
// node values, pauses and downs, then the labels on top.
class Painter {
 public:
  Painter(const TimelineModel& m, const std::string& id) : m_(m), l_(m), hatch_("hatch-" + id) {}

  std::string Paint() {
    Header();
    Lanes();
    Axis();
    Bands();
    for (size_t i = 0; i < m_.clients.size(); ++i) Client(m_.clients[i], l_.LaneY(i));
    for (size_t n = 0; n < m_.nodes.size(); ++n) Node(m_.nodes[n], l_.LaneY(m_.clients.size() + n));
    Pauses();
    Downs();
    s_ += overlay_;
    Labels();
    s_ += "</svg>\n";
    return std::move(s_);
  }

 private:
  const std::string& LaneName(size_t i) const {
    return i >= m_.clients.size() ? m_.nodes[i - m_.clients.size()].name : m_.clients[i].name;
  }

  void Header() {
    s_ += "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " +
          Num(kWidth) + " " + Num(l_.height) + "\" role=\"img\" aria-label=\"timeline of " +
          EscapeXml(m_.scenario) + " with " + EscapeXml(m_.algorithm) + "\">\n";
    s_ += "<defs><pattern id=\"" + hatch_ +
          "\" patternUnits=\"userSpaceOnUse\" width=\"7\" height=\"7\" "
          "patternTransform=\"rotate(45)\"><rect width=\"7\" height=\"7\" fill=\"#f1f5f9\" "
          "fill-opacity=\"0.7\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"7\" stroke=\"#475569\" "
          "stroke-width=\"2.2\"/></pattern></defs>\n";
  }

  // Lane backgrounds and names.
  void Lanes() {
    for (size_t i = 0; i < l_.lane_count; ++i) {
      const double y = l_.LaneY(i);
      s_ += "<rect x=\"" + Num(kLabelWidth) + "\" y=\"" + Num(y) + "\" width=\"" +
            Num(Layout::kPlotWidth) + "\" height=\"" + Num(kLane) +
            "\" fill=\"#f8fafc\" stroke=\"#e2e8f0\"/>\n";
      s_ += "<text class=\"lane\" x=\"" + Num(kLabelWidth - 10) + "\" y=\"" +
            Num(y + kLane / 2 + 5) + "\" text-anchor=\"end\">" +
            EscapeXml(Truncate(LaneName(i), 16)) + "</text>\n";
    }
  }

  // Grid and time axis.
  void Axis() {
    const int64_t step = TickStep(m_.end, 10);
    for (int64_t t = 0; t <= m_.end; t += step) {
      const double x = l_.X(t);
      s_ += "<line x1=\"" + Num(x) + "\" y1=\"" + Num(l_.lanes_top - 2) + "\" x2=\"" + Num(x) +
            "\" y2=\"" + Num(l_.axis_y + 4) + "\" stroke=\"#e2e8f0\"/>\n";
      s_ += "<text class=\"tick\" x=\"" + Num(x) + "\" y=\"" + Num(l_.axis_y + 18) +
            "\" text-anchor=\"middle\">" + EscapeXml(ShortDuration(t)) + "</text>\n";
    }
  }

  // The stall, then the overlaps, behind the lanes' bars.
  void Bands() {
    auto band = [&](const TimelineBand& b, const std::string& attributes) {
      const double x0 = l_.X(b.span.start), w = std::max(2.0, l_.X(b.span.end) - x0);
      return "<rect class=\"" + attributes + "\" x=\"" + Num(x0) + "\" y=\"" +
             Num(l_.lanes_top - 3) + "\" width=\"" + Num(w) + "\" height=\"" +
             Num(l_.lanes_height - kLaneGap + 6);
    };
    if (m_.stall) {
      s_ += band(*m_.stall, "stall") + "\"><title>" + EscapeXml(m_.stall->title) +
            "</title></rect>\n";
    }
    for (const TimelineBand& o : m_.overlaps) {
      s_ += band(o, "overlap") +
            "\" fill=\"#ef4444\" fill-opacity=\"0.16\" stroke=\"#dc2626\" stroke-dasharray=\"4 3\">"
            "<title>" + EscapeXml(o.title) + "</title></rect>\n";
    }
  }

  std::string BarRect(double y, double h, const TimelineBar& b, const std::string& cls,
                      const std::string& title) const {
    const double x0 = l_.X(b.start);
    const double w = std::max(1.5, l_.X(b.end) - x0);
    return "<rect class=\"" + cls + "\" x=\"" + Num(x0) + "\" y=\"" + Num(y) + "\" width=\"" +
           Num(w) + "\" height=\"" + Num(h) + "\" rx=\"2\"><title>" + EscapeXml(title) +
           "</title></rect>\n";
  }
  static std::string Span(const TimelineBar& b) {
    return ShortDuration(b.start) + " \xE2\x86\x92 " + ShortDuration(b.end);
  }
  std::string Tick(const char* cls, int64_t t, double y0, double y1) const {
    return "<line class=\"" + std::string(cls) + "\" x1=\"" + Num(l_.X(t)) + "\" y1=\"" +
           Num(y0) + "\" x2=\"" + Num(l_.X(t)) + "\" y2=\"" + Num(y1) + "\"/>\n";
  }
  std::string Cross(int64_t t, double y, const std::string& title) const {
    const double x = l_.X(t), cy = y + kLane / 2;
    return "<path class=\"cross\" d=\"M" + Num(x - 5) + " " + Num(cy - 5) + "L" + Num(x + 5) +
           " " + Num(cy + 5) + "M" + Num(x - 5) + " " + Num(cy + 5) + "L" + Num(x + 5) + " " +
           Num(cy - 5) + "\"><title>" + EscapeXml(title) + "</title></path>\n";
  }

  void Client(const ClientLane& c, double y) {
    for (const TimelineBar& b : c.trying) {
      s_ += BarRect(y + 9, kLane - 18, b, "trying", c.name + " trying to acquire, " + Span(b));
    }
    for (const TimelineBar& b : c.holding) {
      s_ += BarRect(y + 5, kLane - 10, b, "holding", c.name + " holds the lock, " + Span(b));
    }
    for (const TimelineBar& b : c.sections) {
      s_ += BarRect(y + 5, kLane - 10, b, "cs", c.name + " in the critical section, " + Span(b));
      if (l_.X(b.end) - l_.X(b.start) > 130) {
        overlay_ += "<text class=\"in-bar\" x=\"" + Num(l_.X(b.start) + 6) + "\" y=\"" +
                    Num(y + kLane / 2 + 4) + "\">critical section</text>\n";
      }
    }
    for (const TimelineBar& b : c.releases) {
      s_ += BarRect(y + 3, kLane - 6, b, "release", c.name + " releases, " + Span(b));
    }
    for (int64_t t : c.commands) s_ += Tick("cmd", t, y + kLane - 4, y + kLane);
    for (int64_t t : c.admitted) s_ += Tick("admit", t, y + 6, y + kLane - 6);
    for (int64_t t : c.refused) s_ += Tick("refuse", t, y + 6, y + kLane - 6);
    for (int64_t t : c.gave_up) s_ += Cross(t, y, c.name + " gave up acquiring at " + ShortDuration(t));
    for (int64_t t : c.release_missed) {
      s_ += Cross(t, y, c.name + "'s release found nothing of its own at " + ShortDuration(t));
    }
  }

  // The key's value on a node, coloured by its owner, and where its TTL
  // runs out if nothing changes it before.
  void Node(const NodeLane& node, double y) {
    for (const NodeSegment& seg : node.segments) {
      if (seg.absent) continue;
      const double x0 = l_.X(seg.start), x1 = l_.X(seg.end);
      s_ += "<rect class=\"keyval\" x=\"" + Num(x0) + "\" y=\"" + Num(y + 4) + "\" width=\"" +
            Num(std::max(1.5, x1 - x0)) + "\" height=\"" + Num(kLane - 8) + "\" fill=\"" +
            OwnerColour(seg.owner) + "\"><title>" +
            EscapeXml(node.name + ": " + seg.value + " at " + ShortDuration(seg.start)) +
            "</title></rect>\n";
      const std::string label = seg.owner + (seg.pttl_ms && *seg.pttl_ms < 0 ? ", no TTL" : "");
      if (x1 - x0 > 60) {
        s_ += "<text class=\"in-bar dark\" x=\"" + Num(x0 + 5) + "\" y=\"" +
              Num(y + kLane / 2 + 4) + "\">" +
              EscapeXml(Truncate(label, static_cast<size_t>((x1 - x0 - 10) / 7))) + "</text>\n";
      }
      if (!seg.pttl_ms || *seg.pttl_ms < 0) continue;
      const int64_t expiry = seg.start + *seg.pttl_ms * 1'000'000;
      if (expiry <= seg.end && expiry <= m_.end) {
        const double x = l_.X(expiry);
        s_ += "<path class=\"expiry\" d=\"M" + Num(x) + " " + Num(y + 2) + "V" +
              Num(y + kLane - 2) + "\"><title>TTL runs out at " + ShortDuration(expiry) +
              "</title></path>\n";
      }
    }
  }

  // Pauses hatched over every lane of the paused process.
  void Pauses() {
    for (const Stoppage& p : m_.pauses) {
      for (size_t i = 0; i < m_.clients.size(); ++i) {
        if (!LaneOf(m_.clients[i].name, p.process)) continue;
        const double x0 = l_.X(p.start), w = std::max(2.0, l_.X(p.end) - x0);
        s_ += "<rect class=\"pause\" x=\"" + Num(x0) + "\" y=\"" + Num(l_.LaneY(i) + 1) +
              "\" width=\"" + Num(w) + "\" height=\"" + Num(kLane - 2) + "\" fill=\"url(#" +
              hatch_ + ")\" stroke=\"#475569\"><title>" +
              EscapeXml(p.process + " paused, " + Span({p.start, p.end})) + "</title></rect>\n";
      }
    }
  }

  // Crashed clients and nodes: their lanes dark until they restart.
  void Downs() {
    for (const Stoppage& d : m_.downs) {
      for (size_t i = 0; i < l_.lane_count; ++i) {
        if (!LaneOf(LaneName(i), d.process)) continue;
        const double x0 = l_.X(d.start), w = std::max(2.0, l_.X(d.end) - x0);
        s_ += "<rect class=\"down\" x=\"" + Num(x0) + "\" y=\"" + Num(l_.LaneY(i) + 1) +
              "\" width=\"" + Num(w) + "\" height=\"" + Num(kLane - 2) + "\"><title>" +
              EscapeXml(d.process + " down (crashed), " + Span({d.start, d.end})) +
              "</title></rect>\n";
        if (l_.X(d.end) - x0 > 60) {
          overlay_ += "<text class=\"in-bar down-label\" x=\"" + Num(x0 + 6) + "\" y=\"" +
                      Num(l_.LaneY(i) + kLane / 2 + 4) + "\">down</text>\n";
        }
      }
    }
  }

  // Fault labels and markers on top.
  void Labels() {
    static constexpr const char* kClass[] = {"fault", "fault pause-mark", "fault write-mark"};
    for (const Layout::Label& label : l_.labels) {
      const double y = kTop + kFaultRow * label.row + 14;
      s_ += "<path class=\"" + std::string(kClass[label.kind]) + "\" d=\"M" + Num(label.x) + " " +
            Num(y - 10) + "V" + Num(l_.axis_y) + "\"/>\n";
      s_ += "<text class=\"fault-label" + std::string(label.kind == 2 ? " write-label" : "") +
            "\" x=\"" + Num(label.x + 4) + "\" y=\"" + Num(y) + "\">" + EscapeXml(label.text) +
            "</text>\n";
    }
  }

  const TimelineModel& m_;
  const Layout l_;
  const std::string hatch_;
  std::string s_;
  std::string overlay_;  // labels drawn over the pauses' hatching
};

}  // namespace

std::string PaintTimelineSvg(const TimelineModel& model, const std::string& id) {
  return Painter(model, id).Paint();
}

std::string RenderTimelineSvg(const ojson& run, const std::string& id) {
  return PaintTimelineSvg(BuildTimeline(run), id);
}

}  // namespace locksim
