#include "reports/markdown_report.h"

#include "reports/report_text.h"
#include "reports/svg_timeline.h"

namespace locksim {
namespace {

using ojson = nlohmann::ordered_json;

// A verdict as it reads in a PR comment: the label, bold when not safe.
std::string MarkdownCell(const ojson& c) {
  std::string label = CellLabel(c);
  if (c.contains("skipped")) return "n/a";
  if (c.value("verdict", "") != "safe") label = "**" + label + "**";
  const std::string note = ExpectationNote(c);
  if (c.value("overrides", false)) label += "\\*";
  if (note == "as expected") label += " \xE2\x9C\x93";
  else if (!note.empty()) label += " \xE2\x9C\x97 " + note;
  return EscapeMarkdownCell(label);
}

// The searched matrix: a row per variant, a column per fault class.
std::string SearchMarkdown(const ojson& search) {
  const int64_t seeds = search.at("seeds").value("count", int64_t{0});
  std::string s = "\n### Found by search\n\n" + std::to_string(seeds) +
                  " generated seeds per variant and fault class; a cell is the worst verdict "
                  "found and in how many seeds.\n\n| variant |";
  for (const ojson& c : search.at("classes")) s += " " + c.get<std::string>() + " |";
  s += "\n|---|";
  for (size_t i = 0; i < search.at("classes").size(); ++i) s += "---|";
  s += "\n";
  for (const ojson& a : search.at("algorithms")) {
    s += "| `" + a.get<std::string>() + "` |";
    for (const ojson& cls : search.at("classes")) {
      std::string label;
      for (const ojson& c : search.at("cells")) {
        if (c.at("algorithm") != a || c.at("class") != cls) continue;
        label = SearchCellLabel(c);
        if (c.value("verdict", "") != "safe" && c.value("verdict", "") != "skipped") {
          label = "**" + label + "**";
        }
      }
      s += " " + EscapeMarkdownCell(label) + " |";
    }
    s += "\n";
  }
  const std::string fencing = FencingNote(search);
  if (!fencing.empty()) s += "\n**Fencing.** " + EscapeMarkdownCell(fencing) + "\n";
  const ojson& d = search.at("disagreements");
  if (!d.empty()) {
    s += "\n#### Where the stories and search disagree (" + std::to_string(d.size()) + ")\n\n";
    for (const ojson& x : d) s += "- " + x.at("text").get<std::string>() + "\n";
  }
  return s;
}

}  // namespace

std::string EscapeMarkdownCell(const std::string& text) {
  std::string s;
  for (char c : text) {
    if (c == '|') s += "\\|";
    else if (c == '\n' || c == '\r') s += ' ';
    else s += c;
  }
  return s;
}

std::string RenderMarkdownSummary(const ojson& r) {
  const ojson& sum = r.at("summary");
  std::string s = "## locksim compare: " + std::to_string(r.at("algorithms").size()) +
                  " lock variants \xC3\x97 " + std::to_string(r.at("scenarios").size()) +
                  " scenarios\n\n";
  s += r.value("backend", "") + " backend, " + std::to_string(r.value("seeds", int64_t{1})) +
       " seed(s) per cell. ";
  std::string totals;
  const ojson by = sum.value("by_verdict", ojson::object());
  for (const auto& [v, n] : by.items()) {
    std::string upper;
    for (char c : v) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    totals += (totals.empty() ? "" : ", ") + std::to_string(n.get<int64_t>()) + " " + upper;
  }
  s += "Cells: " + totals + "; " + std::to_string(sum.value("as_expected", int64_t{0})) + " of " +
       std::to_string(sum.value("expected", int64_t{0})) + " as their scenario expects";
  if (sum.value("skipped", int64_t{0}) > 0) {
    s += "; " + std::to_string(sum.value("skipped", int64_t{0})) + " not applicable";
  }
  s += ".\n\n";

  // The matrix, as in report.html: a row per scenario, a column per variant.
  s += "| scenario |";
  for (const ojson& a : r.at("algorithms")) s += " `" + a.get<std::string>() + "` |";
  s += "\n|---|";
  for (size_t i = 0; i < r.at("algorithms").size(); ++i) s += "---|";
  s += "\n";
  const CellIndex cells(r);
  for (const ojson& sc : r.at("scenarios")) {
    const std::string name = sc.at("name").get<std::string>();
    s += "| " + EscapeMarkdownCell(name) + " |";
    for (const ojson& a : r.at("algorithms")) {
      const ojson* c = cells.Find(name, a.get_ref<const std::string&>());
      s += " " + (c ? MarkdownCell(*c) : std::string()) + " |";
    }
    s += "\n";
  }
  s += "\n\xE2\x9C\x93 as the scenario expects, \xE2\x9C\x97 not as expected, \\* with its "
       "expectation's own faults or lock.\n";

  // Not as expected first: those are what a reviewer must look at.
  std::string mismatches;
  for (const ojson& c : r.at("cells")) {
    if (c.contains("expected") && !c["expected"].value("met", true)) {
      mismatches += "- `" + c.at("scenario").get<std::string>() + "` \xC2\xB7 `" +
                    c.at("algorithm").get<std::string>() + "`: " + CellLabel(c) + ", " +
                    ExpectationNote(c) + "\n";
    }
  }
  if (!mismatches.empty()) s += "\n### Not as expected\n\n" + mismatches;

  // A PR comment stays short: the first failures, then a count.
  constexpr int kMaxFailed = 30;
  std::string failed;
  int n_failed = 0;
  for (const ojson& c : r.at("cells")) {
    if (!CellFailed(c)) continue;
    if (++n_failed > kMaxFailed) continue;
    failed += "- `" + c.at("scenario").get<std::string>() + "` \xC2\xB7 `" +
              c.at("algorithm").get<std::string>() + "` **" + CellLabel(c) + "**: " +
              EffectSentence(c) + "\n";
  }
  if (n_failed > kMaxFailed) {
    failed += "- \xE2\x80\xA6 and " + std::to_string(n_failed - kMaxFailed) +
              " more: every one in `report.html`\n";
  }
  if (!failed.empty()) {
    s += "\n### What failed (" + std::to_string(n_failed) + ")\n\n" + failed;
  }

  s += "\n### Liveness per variant\n\n| variant | acquisitions | timed out | errors | "
       "latency p50 | latency p99 | retries / acq. | commands / acq. | throughput / s |\n"
       "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const ojson& v : r.at("variants")) {
    const ojson& f = v.at("figures");
    auto lat = [](const ojson& x) {
      return x.is_null() ? std::string("\xE2\x80\x94") : ShortDuration(x.get<int64_t>());
    };
    const std::string library =
        v.contains("library") ? " (" + v.at("library").get<std::string>() + ")" : "";
    s += "| `" + v.at("algorithm").get<std::string>() + "`" + library + " | " +
         FigureText(f.at("acquisitions")) +
         " | " + FigureText(f.at("failed_acquisitions")) + " | " +
         FigureText(f.value("errored_acquisitions", ojson(0))) + " | " + lat(f.at("latency_p50")) +
         " | " + lat(f.at("latency_p99")) + " | " + FigureText(f.at("retries_per_acquisition")) +
         " | " + FigureText(f.at("commands_per_acquisition")) + " | " +
         FigureText(f.at("throughput_per_s")) + " |\n";
  }
  if (r.contains("search")) s += SearchMarkdown(r.at("search"));
  s += "\nTimelines of every failed cell: `report.html`.\n";
  return s;
}

}  // namespace locksim
