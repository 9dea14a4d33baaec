#include "reports/html_report.h"

#include <map>

#include "reports/report_text.h"
#include "reports/svg_timeline.h"
#include "reports/xml_escape.h"
#include "sim/check/checker.h"

namespace locksim {
namespace {

using ojson = nlohmann::ordered_json;

// The page's style. Colours: SAFE green, VIOLATED red, DEADLOCK amber,
// DEGRADED grey-blue, anything else neutral grey.
constexpr char kStyle[] = R"css(
:root { --ink:#0f172a; --muted:#475569; --line:#e2e8f0; --bg:#ffffff; --panel:#f8fafc;
  --safe:#15803d; --safe-bg:#dcfce7; --violated:#b91c1c; --violated-bg:#fee2e2;
  --deadlock:#b45309; --deadlock-bg:#fef3c7; --degraded:#475569; --degraded-bg:#e2e8f0;
  --other:#52525b; --other-bg:#f4f4f5; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", "Liberation Sans", sans-serif; }
main { max-width: 1480px; margin: 0 auto; padding: 28px 32px 64px; }
h1 { font-size: 26px; margin: 0 0 4px; letter-spacing: -0.01em; }
h2 { font-size: 19px; margin: 36px 0 10px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
h3 { font-size: 16px; margin: 0; }
.sub { color: var(--muted); margin: 0 0 14px; }
.totals { display: flex; gap: 10px; flex-wrap: wrap; margin: 12px 0 0; padding: 0; list-style: none; }
.totals li { padding: 6px 12px; border-radius: 8px; background: var(--panel); border: 1px solid var(--line); }
.totals b { font-size: 17px; margin-right: 4px; }
.legend { display: flex; gap: 18px; flex-wrap: wrap; align-items: center; margin: 6px 0 12px;
  font-size: 13px; color: var(--muted); }
.legend span.key { display: inline-flex; align-items: center; gap: 6px; }
.sw { display: inline-block; width: 16px; height: 16px; border-radius: 4px; vertical-align: -3px; }
table { border-collapse: collapse; }
table.matrix { width: 100%; table-layout: fixed; font-size: 13px; }
.matrix th, .matrix td { border: 1px solid var(--line); padding: 0; }
.matrix thead th { background: var(--panel); font-weight: 600; padding: 8px 4px; vertical-align: bottom;
  text-align: left; }
.matrix thead th.corner { width: 230px; font-size: 12.5px; color: var(--muted); padding: 8px 10px; }
.matrix thead th.variant { height: 148px; text-align: center; }
.matrix thead th.variant span { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap;
  font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12.5px; display: inline-block; }
.matrix tbody th { text-align: left; padding: 5px 10px; background: var(--panel); font-weight: 600;
  font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12.5px; word-break: break-word; }
.matrix tbody th small { display: block; color: var(--muted); font-weight: 400; font-size: 11px;
  font-family: system-ui, "DejaVu Sans", sans-serif; line-height: 1.35; }
.matrix td { position: relative; }
.cell { display: block; padding: 9px 2px 8px; text-align: center; text-decoration: none; color: inherit;
  min-height: 36px; }
a.cell:hover { outline: 2px solid var(--ink); outline-offset: -2px; }
.cell .v { display: block; font-weight: 700; font-size: 11px; line-height: 1.3; white-space: nowrap; }
.cell .v sup { font-size: 10px; margin-left: 1px; }
.cell .x { display: block; font-size: 10.5px; line-height: 1.3; }
.cell .ok { position: absolute; top: 1px; right: 3px; font-size: 10px; opacity: 0.8; }
.cell .x.miss { font-weight: 700; opacity: 1; }
.v-safe { background: var(--safe-bg); color: var(--safe); }
.v-violated { background: var(--violated-bg); color: var(--violated); }
.v-deadlock { background: var(--deadlock-bg); color: var(--deadlock); }
.v-degraded { background: var(--degraded-bg); color: var(--degraded); }
.v-other { background: var(--other-bg); color: var(--other); }
.v-skipped { background: #fff; color: #94a3b8; }
.badge { display: inline-block; padding: 2px 9px; border-radius: 999px; font-size: 12px; font-weight: 700;
  letter-spacing: 0.03em; }
table.figures { font-size: 13.5px; min-width: 70%; }
.figures th, .figures td { border-bottom: 1px solid var(--line); padding: 6px 14px 6px 0; text-align: right; }
.figures th:first-child, .figures td:first-child { text-align: left;
  font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
.figures th { color: var(--muted); font-weight: 600; font-size: 12.5px; }
.scenarios dt { font-weight: 600; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 13px; margin-top: 10px; }
.scenarios dd { margin: 2px 0 0 0; color: var(--muted); font-size: 13.5px; }
a.scn { color: inherit; text-decoration: none; border-bottom: 1px dotted #94a3b8; }
a.scn:hover { border-bottom-style: solid; }
.scenario-group { margin-top: 30px; }
h3.scenario-name { font: 600 16.5px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; margin: 0 0 4px; }
p.story { color: var(--muted); font-size: 13.5px; margin: 0 0 8px; max-width: 1100px; }
article.detail { border: 1px solid var(--line); border-radius: 10px; padding: 16px 18px; margin: 14px 0; }
article.detail header { display: flex; gap: 12px; align-items: baseline; flex-wrap: wrap; }
article.detail header .meta { color: var(--muted); font-size: 13px; }
.effect { font-size: 15.5px; margin: 10px 0 4px; }
.effect b { color: var(--violated); }
ul.violations { margin: 4px 0 10px; padding-left: 20px; font-size: 13.5px; color: var(--muted); }
svg.timeline { width: 100%; height: auto; display: block; margin: 8px 0 4px; }
svg.timeline text { font-family: system-ui, "DejaVu Sans", sans-serif; }
svg.timeline .lane { font-size: 13px; font-weight: 600; fill: #0f172a; }
svg.timeline .tick { font-size: 11.5px; fill: #64748b; }
svg.timeline .fault-label { font-size: 12px; fill: #0f172a; font-weight: 600; }
svg.timeline .in-bar { font-size: 11.5px; fill: #ffffff; font-weight: 600; paint-order: stroke;
  stroke: #1e3a8a; stroke-width: 3px; stroke-linejoin: round; }
svg.timeline .in-bar.dark { fill: #0f172a; font-weight: 500; stroke: none; }
svg.timeline .trying { fill: #ffffff; stroke: #94a3b8; stroke-dasharray: 3 2; }
svg.timeline .holding { fill: #bfdbfe; }
svg.timeline .cs { fill: #2563eb; }
svg.timeline .release { fill: #7c3aed; }
svg.timeline .cmd { stroke: #64748b; stroke-width: 1; }
svg.timeline .admit { stroke: #16a34a; stroke-width: 1.5; }
svg.timeline .refuse { stroke: #dc2626; stroke-width: 1.5; }
svg.timeline .cross { stroke: #dc2626; stroke-width: 2.2; fill: none; }
svg.timeline .fault { stroke: #0f172a; stroke-width: 1.2; stroke-dasharray: 5 3; fill: none; }
svg.timeline .fault.pause-mark { stroke: #475569; }
svg.timeline .fault.write-mark { stroke: #dc2626; stroke-width: 2; }
svg.timeline .fault-label.write-label { fill: #b91c1c; }
svg.timeline .down { fill: #334155; fill-opacity: 0.55; }
svg.timeline .in-bar.down-label { stroke: #1e293b; }
svg.timeline .stall { fill: #f59e0b; fill-opacity: 0.16; stroke: #b45309; stroke-dasharray: 2 3; }
svg.timeline .expiry { stroke: #b91c1c; stroke-width: 2; fill: none; }
.tl-legend { display: flex; gap: 16px; flex-wrap: wrap; font-size: 12.5px; color: var(--muted); margin: 4px 0 0; }
.tl-legend svg { vertical-align: -3px; margin-right: 5px; }
details { margin-top: 10px; }
summary { cursor: pointer; color: var(--muted); font-size: 13px; }
table.trace { font: 12px/1.45 ui-monospace, "DejaVu Sans Mono", monospace; margin-top: 6px; width: 100%; }
.trace td, .trace th { padding: 2px 10px 2px 0; text-align: left; border-bottom: 1px solid #f1f5f9;
  vertical-align: top; }
.trace td.t { text-align: right; white-space: nowrap; color: var(--muted); }
.trace tr.nemesis td { color: #7c2d12; font-weight: 600; }
.none { color: var(--muted); }
footer { margin-top: 40px; color: var(--muted); font-size: 12.5px; }
)css";

std::string VerdictClass(const ojson& cell) {
  if (cell.contains("skipped")) return "v-skipped";
  const std::string v = cell.value("verdict", "");
  if (v == "safe" || v == "violated" || v == "deadlock" || v == "degraded") return "v-" + v;
  return "v-other";
}

std::string VerdictClassOf(const std::string& v) {
  if (v == "safe" || v == "violated" || v == "deadlock" || v == "degraded") return "v-" + v;
  if (v == "skipped") return "v-skipped";
  return "v-other";
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string Latency(const ojson& v) {
  return v.is_null() ? "\xE2\x80\x94" : ShortDuration(v.get<int64_t>());
}

// The legend under the matrix title.
std::string MatrixLegend() {
  std::string s = "<div class=\"legend\">";
  const char* keys[][2] = {{"safe", "SAFE: no two clients inside at once"},
                           {"violated", "VIOLATED n: n safety violations (overlaps, foreign writes)"},
                           {"deadlock", "DEADLOCK: nobody acquires any more"},
                           {"degraded", "DEGRADED: safe, but slow or starved"}};
  for (auto& k : keys) {
    s += std::string("<span class=\"key\"><span class=\"sw v-") + k[0] +
         "\" style=\"border:1px solid currentColor\"></span>" + EscapeXml(k[1]) + "</span>";
  }
  s += "<span class=\"key\">\xE2\x9C\x93 (corner) as the scenario expects &#160; \xE2\x9C\x97 "
       "not as expected</span>";
  s += "<span class=\"key\">* ran with its expectation's own faults or lock</span>";
  s += "<span class=\"key\">click a coloured cell for its timeline</span></div>\n";
  return s;
}

std::string TimelineLegend() {
  auto sw = [](const std::string& body) {
    return "<svg width=\"22\" height=\"14\" viewBox=\"0 0 22 14\">" + body + "</svg>";
  };
  std::string s = "<div class=\"tl-legend\">";
  s += "<span>" + sw("<rect x=\"1\" y=\"3\" width=\"20\" height=\"8\" fill=\"#fff\" "
                     "stroke=\"#94a3b8\" stroke-dasharray=\"3 2\"/>") + "trying to acquire</span>";
  s += "<span>" + sw("<rect x=\"1\" y=\"1\" width=\"20\" height=\"12\" fill=\"#bfdbfe\"/>") +
       "holds the lock</span>";
  s += "<span>" + sw("<rect x=\"1\" y=\"1\" width=\"20\" height=\"12\" fill=\"#2563eb\"/>") +
       "critical section</span>";
  s += "<span>" + sw("<rect x=\"8\" y=\"0\" width=\"5\" height=\"14\" fill=\"#7c3aed\"/>") +
       "release</span>";
  s += "<span>" + sw("<defs><pattern id=\"lg-hatch\" patternUnits=\"userSpaceOnUse\" width=\"5\" "
                     "height=\"5\" patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" "
                     "x2=\"0\" y2=\"5\" stroke=\"#475569\" stroke-width=\"2\"/></pattern></defs>"
                     "<rect x=\"1\" y=\"1\" width=\"20\" height=\"12\" fill=\"url(#lg-hatch)\" "
                     "stroke=\"#475569\"/>") + "process paused</span>";
  s += "<span>" + sw("<rect x=\"1\" y=\"1\" width=\"20\" height=\"12\" fill=\"#ef4444\" "
                     "fill-opacity=\"0.16\" stroke=\"#dc2626\" stroke-dasharray=\"4 3\"/>") +
       "two holders at once</span>";
  s += "<span>" + sw("<rect x=\"1\" y=\"1\" width=\"20\" height=\"12\" fill=\"#f59e0b\" "
                     "fill-opacity=\"0.16\" stroke=\"#b45309\" stroke-dasharray=\"2 3\"/>") +
       "nobody makes progress</span>";
  s += "<span>" + sw("<rect x=\"1\" y=\"1\" width=\"20\" height=\"12\" fill=\"#334155\" "
                     "fill-opacity=\"0.55\"/>") + "crashed, until restarted</span>";
  s += "<span>" + sw("<path d=\"M11 0V14\" stroke=\"#0f172a\" stroke-dasharray=\"5 3\"/>") +
       "fault</span>";
  s += "<span>" + sw("<path d=\"M11 9V14\" stroke=\"#64748b\"/>") + "Redis command</span>";
  s += "<span>" + sw("<path d=\"M6 2L16 12M6 12L16 2\" stroke=\"#dc2626\" stroke-width=\"2\"/>") +
       "gave up / released nothing</span>";
  s += "<span>" + sw("<rect x=\"1\" y=\"2\" width=\"20\" height=\"10\" fill=\"#c7d2fe\"/>"
                     "<path d=\"M15 0V14\" stroke=\"#b91c1c\" stroke-width=\"2\"/>") +
       "key on a Redis node, TTL end</span>";
  s += "</div>\n";
  return s;
}

std::string Totals(const ojson& r) {
  const ojson& sum = r.at("summary");
  std::string s = "<ul class=\"totals\">";
  const ojson& by = sum.value("by_verdict", ojson::object());
  for (const char* v : {"safe", "violated", "deadlock", "degraded"}) {
    if (!by.contains(v)) continue;
    s += "<li class=\"" + VerdictClassOf(v) + "\"><b>" + std::to_string(by[v].get<int64_t>()) +
         "</b>" + Upper(v) + "</li>";
  }
  for (const auto& [v, n] : by.items()) {
    if (v == "safe" || v == "violated" || v == "deadlock" || v == "degraded") continue;
    s += "<li class=\"v-other\"><b>" + std::to_string(n.get<int64_t>()) + "</b>" +
         EscapeXml(Upper(v)) + "</li>";
  }
  s += "<li><b>" + std::to_string(sum.value("as_expected", int64_t{0})) + "/" +
       std::to_string(sum.value("expected", int64_t{0})) +
       "</b>cells as their scenario expects</li>";
  if (sum.value("skipped", int64_t{0}) > 0) {
    s += "<li><b>" + std::to_string(sum.value("skipped", int64_t{0})) +
         "</b>not applicable (limiter vs lock, or not on this backend)</li>";
  }
  s += "</ul>\n";
  return s;
}

// Rows: the scenarios (the faults), with what each does; columns: the
// variants, so that a lock's column reads as one strip down the faults.
// A matrix cell: coloured by its verdict, linking to its counterexample's
// detail when `linked`, `title` on hover.
std::string MatrixCell(const std::string& css, bool linked, const ojson& cell,
                       const std::string& title, const std::string& inner) {
  std::string s = "<td class=\"" + css + "\">";
  if (linked) {
    s += "<a class=\"cell\" href=\"#" + CellAnchor(cell.at("id").get<std::string>()) +
         "\" title=\"" + EscapeXml(title) + "\">" + inner + "</a>";
  } else {
    s += "<span class=\"cell\" title=\"" + EscapeXml(title) + "\">" + inner + "</span>";
  }
  return s + "</td>";
}

std::string Matrix(const ojson& r, const CellIndex& cells) {
  std::string s = "<table class=\"matrix\" id=\"matrix-table\">\n<thead><tr><th class=\"corner\">"
                  "scenario \xE2\x86\x93 &#160; lock variant \xE2\x86\x92</th>";
  for (const ojson& a : r.at("algorithms")) {
    s += "<th class=\"variant\"><span>" + EscapeXml(a.get<std::string>()) + "</span></th>";
  }
  s += "</tr></thead>\n<tbody>\n";
  for (const ojson& sc : r.at("scenarios")) {
    const std::string name = sc.at("name").get<std::string>();
    std::string faults;
    for (const ojson& f : MemberOrEmpty(sc, "faults")) {
      faults += (faults.empty() ? "" : "; ") + f.get<std::string>();
    }
    if (faults.empty()) faults = "no fault";
    const std::string workload = sc.value("workload", "none");
    bool any_failed = false;
    for (const ojson& a : r.at("algorithms")) {
      const ojson* c = cells.Find(name, a.get_ref<const std::string&>());
      any_failed = any_failed || (c && CellFailed(*c) && c->contains("counterexample"));
    }
    // The scenario's name links to its counterexamples, when it has some.
    const std::string shown_name =
        any_failed ? "<a class=\"scn\" href=\"#" + CellAnchor(name).replace(0, 4, "scn") + "\">" +
                         EscapeXml(name) + "</a>"
                   : EscapeXml(name);
    s += "<tr><th title=\"" + EscapeXml(sc.value("description", "")) + "\">" + shown_name +
         "<small>" + EscapeXml(faults) +
         (workload != "none" ? " \xC2\xB7 workload: " + EscapeXml(workload) : "") +
         "</small></th>";
    for (const ojson& a : r.at("algorithms")) {
      const ojson* c = cells.Find(name, a.get_ref<const std::string&>());
      if (c == nullptr) {
        s += "<td></td>";
        continue;
      }
      const std::string note = ExpectationNote(*c);
      std::string inner = "<span class=\"v\">" + EscapeXml(CellLabel(*c));
      if (c->value("overrides", false)) inner += "<sup>*</sup>";
      inner += "</span>";
      // As expected: a small tick in the corner; not as expected: spelled out.
      if (note == "as expected") {
        inner += "<span class=\"ok\" title=\"as the scenario expects\">\xE2\x9C\x93</span>";
      } else if (!note.empty()) {
        inner += "<span class=\"x miss\">\xE2\x9C\x97 " + EscapeXml(note) + "</span>";
      }
      std::string title = c->contains("skipped") ? c->value("skipped", "") : EffectSentence(*c);
      title = a.get<std::string>() + " \xC2\xB7 " + name + ": " + title;
      if (c->value("overrides", false)) title += " (with its expectation's own faults or lock)";
      s += MatrixCell(VerdictClass(*c), CellFailed(*c) && c->contains("counterexample"), *c,
                      title, inner);
    }
    s += "</tr>\n";
  }
  s += "</tbody></table>\n";
  return s;
}

std::string Figures(const ojson& r) {
  std::string s =
      "<table class=\"figures\"><thead><tr><th>variant</th><th>cells safe / run</th>"
      "<th>acquisitions</th><th>timed out</th><th>errors</th><th>latency p50</th>"
      "<th>latency p99</th>"
      "<th>retries / acq.</th><th>commands / acq.</th><th>throughput / s</th></tr></thead>"
      "<tbody>\n";
  for (const ojson& v : r.at("variants")) {
    const ojson& f = v.at("figures");
    int64_t run = 0;
    const ojson by = v.value("by_verdict", ojson::object());
    for (const auto& [verdict, n] : by.items()) run += n.get<int64_t>();
    const int64_t safe = by.value("safe", int64_t{0});
    const std::string library =
        v.contains("library") ? " (" + v.at("library").get<std::string>() + ")" : "";
    s += "<tr><td>" + EscapeXml(v.at("algorithm").get<std::string>() + library) + "</td><td>" +
         std::to_string(safe) + " / " + std::to_string(run) + "</td><td>" +
         FigureText(f.at("acquisitions")) + "</td><td>" +
         FigureText(f.at("failed_acquisitions")) + "</td><td>" +
         FigureText(f.value("errored_acquisitions", ojson(0))) + "</td><td>" +
         Latency(f.at("latency_p50")) +
         "</td><td>" + Latency(f.at("latency_p99")) + "</td><td>" +
         FigureText(f.at("retries_per_acquisition")) + "</td><td>" +
         FigureText(f.at("commands_per_acquisition")) + "</td><td>" +
         FigureText(f.at("throughput_per_s")) + "</td></tr>\n";
  }
  s += "</tbody></table>\n<p class=\"sub\" style=\"font-size:13px;margin-top:8px\">Pooled over "
       "every scenario each variant ran, in simulated time. Latency: acquire invoke to ok. "
       "Retries: repeats of an acquisition's first command. Throughput: acquisitions per "
       "simulated second.</p>\n";
  return s;
}

// The searched matrix: a row per variant, a column per fault class; each
// cell with a finding links to its shortest counterexample below.
std::string SearchMatrix(const ojson& search) {
  std::string s = "<table class=\"matrix\" id=\"search-table\">\n<thead><tr><th class=\"corner\">"
                  "lock variant \xE2\x86\x93 &#160; fault class \xE2\x86\x92</th>";
  for (const ojson& cls : search.at("classes")) {
    s += "<th class=\"variant\"><span>" + EscapeXml(cls.get<std::string>()) + "</span></th>";
  }
  s += "</tr></thead>\n<tbody>\n";
  for (const ojson& a : search.at("algorithms")) {
    s += "<tr><th>" + EscapeXml(a.get<std::string>()) + "</th>";
    for (const ojson& cls : search.at("classes")) {
      const ojson* c = nullptr;
      for (const ojson& x : search.at("cells")) {
        if (x.at("algorithm") == a && x.at("class") == cls) c = &x;
      }
      if (c == nullptr) {
        s += "<td></td>";
        continue;
      }
      const std::string v = c->value("verdict", "");
      // The verdict over the seeds that found it: "VIOLATED" / "64/1000".
      const std::string label = SearchCellLabel(*c);
      const size_t space = label.rfind(' ');
      const bool two_lines = v != "skipped" && !c->contains("verified_bound") && space != std::string::npos;
      const std::string inner =
          two_lines ? "<span class=\"v\">" + EscapeXml(v == "safe" ? "no finding" : Upper(v)) +
                          "</span><span class=\"x\">" +
                          EscapeXml(v == "safe" ? "0/" + std::to_string(c->value("runs", int64_t{0}))
                                                : label.substr(space + 1)) +
                          "</span>"
                    : "<span class=\"v\">" + EscapeXml(label) + "</span>";
      std::string title = a.get<std::string>() + " \xC2\xB7 " + cls.get<std::string>() + ": ";
      title += v == "skipped" ? c->value("skipped", "") : v == "safe" ? "nothing found" : EffectSentence(*c);
      s += MatrixCell(VerdictClassOf(v), c->contains("counterexample"), *c, title, inner);
    }
    s += "</tr>\n";
  }
  s += "</tbody></table>\n";
  return s;
}

std::string Trace(const ojson& ce) {
  // The first violation's events; without one (a deadlock, a limiter), the
  // client and fault operations of the history, Redis commands left out.
  ojson rows = ojson::array();
  ojson elided = ojson::array();  // where the violation's story was cut, and by how much
  const ojson& violations = MemberOrEmpty(ce, "violations");
  if (!violations.empty()) {
    rows = violations[0].value("events", ojson::array());
    elided = violations[0].value("elided", ojson::array());
  } else {
    for (const ojson& op : ce.at("history")) {
      if (op.value("f", "") != "redis") rows.push_back(op);
    }
  }
  constexpr size_t kMaxRows = 80;
  std::string s = "<details><summary>Trace excerpt (" + std::to_string(rows.size()) +
                  " operations" + (violations.empty() ? "" : ", leading to the first overlap") +
                  ")</summary>\n<table class=\"trace\"><thead><tr><th>#</th><th>time</th>"
                  "<th>process</th><th>type</th><th>f</th><th>value</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < rows.size() && i < kMaxRows; ++i) {
    const ojson& op = rows[i];
    const std::string process = op.value("process", "");
    s += std::string("<tr") + (process == "nemesis" ? " class=\"nemesis\"" : "") + "><td>" +
         std::to_string(op.value("index", int64_t{0})) + "</td><td class=\"t\">" +
         EscapeXml(ShortDuration(op.value("time", int64_t{0}))) + "</td><td>" +
         EscapeXml(process) + "</td><td>" + EscapeXml(op.value("type", "")) + "</td><td>" +
         EscapeXml(op.value("f", "")) + "</td><td>" + EscapeXml(op.value("value", "")) +
         "</td></tr>\n";
    for (const ojson& e : elided) {
      if (e.value("after", int64_t{-1}) != op.value("index", int64_t{0})) continue;
      s += "<tr><td colspan=\"6\" class=\"none\">\xE2\x80\xA6 " +
           std::to_string(e.value("count", int64_t{0})) +
           " more events of the story, not listed</td></tr>\n";
    }
  }
  if (rows.size() > kMaxRows) {
    s += "<tr><td colspan=\"6\" class=\"none\">\xE2\x80\xA6 " +
         std::to_string(rows.size() - kMaxRows) + " more in results.json</td></tr>\n";
  }
  s += "</tbody></table></details>\n";
  return s;
}

std::string Detail(const ojson& cell, const std::string& back = "matrix") {
  const ojson& ce = cell.at("counterexample");
  const std::string id = CellAnchor(cell.at("id").get<std::string>());
  std::string s = "<article class=\"detail\" id=\"" + id + "\">\n<header><span class=\"badge " +
                  VerdictClass(cell) + "\">" + EscapeXml(CellLabel(cell)) + "</span><h3>" +
                  EscapeXml(cell.at("scenario").get<std::string>()) + " \xC2\xB7 " +
                  EscapeXml(cell.at("algorithm").get<std::string>()) + "</h3><span class=\"meta\">" +
                  "seed " + std::to_string(ce.value("seed", int64_t{0})) + " \xC2\xB7 " +
                  EscapeXml(ce.value("backend", "")) + " \xC2\xB7 ran for " +
                  EscapeXml(ShortDuration(ce.at("stats").value("end", int64_t{0})));
  // A real run compresses scenario time: say by how much (and why, when a
  // variant that counts in whole seconds ran less compressed).
  const std::string scale = ce.value("time_scale", "1");
  if (scale != "1") s += " \xC2\xB7 time scale " + EscapeXml(scale);
  if (ce.contains("time_scale_note")) s += " (" + EscapeXml(ce.value("time_scale_note", "")) + ")";
  const std::string note = ExpectationNote(cell);
  if (!note.empty()) s += " \xC2\xB7 " + EscapeXml(note);
  s += " \xC2\xB7 <a href=\"#" + back + "\">back to the matrix</a></span></header>\n";
  const bool broken = cell.contains("invariant_holds") && !cell["invariant_holds"].get<bool>();
  s += "<p class=\"effect\">" + std::string(broken ? "<b>What it costs:</b> " : "") +
       EscapeXml(EffectSentence(cell)) + "</p>\n";
  const ojson& violations = MemberOrEmpty(ce, "violations");
  if (!violations.empty()) {
    // The violations the run explains, then their count: a storm's
    // hundreds of thousands would make a page no browser opens.
    s += "<ul class=\"violations\">";
    for (size_t i = 0; i < violations.size() && i < kExplainedViolations; ++i) {
      s += "<li>" + EscapeXml(violations[i].value("text", "")) + "</li>";
    }
    if (violations.size() > kExplainedViolations) {
      s += "<li>... and " + std::to_string(violations.size() - kExplainedViolations) +
           " more in results.json</li>";
    }
    s += "</ul>\n";
  }
  if (cell.contains("effects") && !broken) {
    for (const ojson& e : cell["effects"]) {
      s += "<p class=\"sub\">" + EscapeXml(e.get<std::string>()) + "</p>\n";
    }
  }
  s += RenderTimelineSvg(ce, id);
  // A long run's timeline is drawn without each Redis command: say so.
  if (ce.contains("history_note")) {
    s += "<p class=\"story\">Timeline: " + EscapeXml(ce.value("history_note", "")) + ".</p>\n";
  }
  s += Trace(ce);
  s += "</article>\n";
  return s;
}

// "Found by search": the matrix, the fencing note, where stories and search
// disagree, and the shortest counterexample of every cell with a finding.
std::string SearchSection(const ojson& search) {
  const int64_t seeds = search.at("seeds").value("count", int64_t{0});
  std::string s = "<section id=\"search\">\n<h2>Found by search</h2>\n<p class=\"sub\">" +
                  std::to_string(seeds) +
                  " generated seeds per lock variant and fault class (seeds " +
                  std::to_string(search.at("seeds").value("first", int64_t{1})) + "\xE2\x80\x93" +
                  std::to_string(search.at("seeds").value("last", int64_t{0})) +
                  ", as <code>locksim explore</code> generates them): the worst verdict found and "
                  "in how many seeds. A green cell says only that nothing was found in those "
                  "seeds.</p>\n" +
                  SearchMatrix(search);
  const std::string fencing = FencingNote(search);
  if (!fencing.empty()) s += "<p class=\"effect\"><b>Fencing.</b> " + EscapeXml(fencing) + "</p>\n";
  const ojson& d = search.at("disagreements");
  if (!d.empty()) {
    s += "<h3>Where the stories and search disagree (" + std::to_string(d.size()) + ")</h3>\n<ul class=\"violations\">";
    for (const ojson& x : d) {
      s += "<li>" + EscapeXml(x.at("text").get<std::string>());
      if (x.value("search_verdict", "") != "safe") {
        s += " \xC2\xB7 <a href=\"#" + CellAnchor(x.value("search_cell", "")) + "\">the counterexample</a>";
      }
      s += "</li>";
    }
    s += "</ul>\n";
  }
  std::string details;
  int n = 0;
  for (const ojson& c : search.at("cells")) {
    if (!c.contains("counterexample")) continue;
    ++n;
    details += Detail(c, "search");
  }
  if (n > 0) {
    s += "<h3>Shortest counterexamples (" + std::to_string(n) + ")</h3>\n<p class=\"sub\">Each shrunk "
         "until nothing more could go; the file beside results.json (search/) replays it with "
         "<code>locksim run</code>.</p>\n" + details;
  }
  s += "</section>\n";
  return s;
}

}  // namespace

std::string CellAnchor(const std::string& cell_id) {
  std::string s = "cell-";
  for (char c : cell_id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_';
    s += ok ? c : '_';
  }
  return s;
}

std::string RenderHtmlReport(const ojson& r) {
  const size_t n_algos = r.at("algorithms").size();
  const size_t n_scenarios = r.at("scenarios").size();
  const int64_t seeds = r.value("seeds", int64_t{1});
  std::string s;
  s += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
       "<title>locksim report: " + std::to_string(n_algos) + " lock variants \xC3\x97 " +
       std::to_string(n_scenarios) + " scenarios</title>\n<style>" + kStyle +
       "</style>\n</head>\n<body>\n<main>\n";
  s += "<h1>Which Redis lock survives which fault</h1>\n<p class=\"sub\">locksim compare \xC2\xB7 " +
       std::to_string(n_algos) + " lock variants \xC3\x97 " + std::to_string(n_scenarios) +
       " scenarios \xC2\xB7 " + EscapeXml(r.value("backend", "")) + " backend \xC2\xB7 " +
       std::to_string(seeds) + (seeds == 1 ? " seed" : " seeds") +
       " per cell \xC2\xB7 schema " + EscapeXml(r.value("schema", "")) + " v" +
       std::to_string(r.value("schema_version", 0)) + "</p>\n";
  s += Totals(r);

  const CellIndex cells(r);
  s += "<section id=\"matrix\">\n<h2>Scenario \xC3\x97 lock variant</h2>\n" + MatrixLegend() +
       Matrix(r, cells) + "</section>\n";
  if (r.contains("search")) s += SearchSection(r.at("search"));
  s += "<section id=\"liveness\">\n<h2>Liveness per variant</h2>\n" + Figures(r) + "</section>\n";

  // Grouped by scenario, each group under the scenario's own story.
  std::string details;
  int failed = 0;
  for (const ojson& sc : r.at("scenarios")) {
    const std::string name = sc.at("name").get<std::string>();
    std::string group;
    int n = 0;
    for (const ojson* c : cells.OfScenario(name)) {
      if (!CellFailed(*c) || !c->contains("counterexample")) continue;
      ++n;
      group += Detail(*c);
    }
    if (n == 0) continue;
    failed += n;
    details += "<div class=\"scenario-group\" id=\"" + CellAnchor(name).replace(0, 4, "scn") +
               "\">\n<h3 class=\"scenario-name\">" + EscapeXml(name) + " <span class=\"none\">(" +
               std::to_string(n) + (n == 1 ? " failed cell" : " failed cells") +
               ")</span></h3>\n<p class=\"story\">" + EscapeXml(sc.value("description", "")) +
               "</p>\n" + group + "</div>\n";
  }
  s += "<section id=\"timelines\">\n<h2>Counterexamples (" + std::to_string(failed) + ")</h2>\n";
  if (failed == 0) {
    s += "<p class=\"none\">Every cell is safe and as expected: nothing to draw.</p>\n";
  } else {
    s += "<p class=\"sub\">One per failed cell: a lane per client thread, faults marked above, "
         "the overlap shaded. Times are true (simulated) time since the run started.</p>\n" +
         TimelineLegend() + details;
  }
  s += "</section>\n";

  s += "<section id=\"scenarios\">\n<h2>Scenarios</h2>\n<dl class=\"scenarios\">\n";
  for (const ojson& sc : r.at("scenarios")) {
    s += "<dt>" + EscapeXml(sc.at("name").get<std::string>()) + " <span class=\"none\">(" +
         EscapeXml(sc.value("file", "")) + ")</span></dt><dd>" +
         EscapeXml(sc.value("description", "")) +
         (sc.value("source", "").empty() ? "" : " <i>Source: " + EscapeXml(sc.value("source", "")) + ".</i>") +
         "</dd>\n";
  }
  s += "</dl>\n</section>\n<footer>Written by <code>locksim report</code> from results.json "
       "(schema " + EscapeXml(r.value("schema", "")) + " v" +
       std::to_string(r.value("schema_version", 0)) +
       "). Self-contained: no script, no network.</footer>\n</main>\n</body>\n</html>\n";
  return s;
}

}  // namespace locksim
