#include "reports/report_text.h"

#include <cstdio>

namespace locksim {

using ojson = nlohmann::ordered_json;

std::string CellLabel(const ojson& cell) {
  const std::string v = cell.value("verdict", "");
  if (cell.contains("skipped") || v == "skipped") return "n/a";
  std::string upper;
  for (char c : v) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (v == "violated") upper += " " + std::to_string(cell.value("violations", int64_t{0}));
  return upper;
}

bool CellFailed(const ojson& cell) {
  if (cell.contains("skipped")) return false;
  if (cell.value("verdict", "") != "safe") return true;
  return cell.contains("expected") && !cell["expected"].value("met", true);
}

std::string ExpectationNote(const ojson& cell) {
  if (!cell.contains("expected")) return "";
  const ojson& e = cell["expected"];
  if (e.value("met", false)) return "as expected";
  std::string s = "expected " + e.value("verdict", "");
  if (e.contains("overlaps")) {
    const ojson& o = e["overlaps"];
    for (size_t i = 0; i < o.size(); ++i) s += (i ? "," : " ") + o[i].get<std::string>();
  }
  if (e.contains("invariant")) s += ", invariant " + e["invariant"].get<std::string>();
  return s;
}

std::string EffectSentence(const ojson& cell) {
  if (cell.contains("invariant_holds") && !cell["invariant_holds"].get<bool>() &&
      cell.contains("effects") && !cell["effects"].empty()) {
    std::string s;
    for (const ojson& e : cell["effects"]) s += (s.empty() ? "" : "; ") + e.get<std::string>();
    return s;
  }
  if (cell.contains("counterexample")) {
    const ojson& v = cell["counterexample"].value("violations", ojson::array());
    if (!v.empty()) {
      std::string s = v[0].value("text", "");
      if (v.size() > 1) s += " (and " + std::to_string(v.size() - 1) + " more violation" +
                             (v.size() > 2 ? "s" : "") + ")";
      return s;
    }
  }
  if (cell.contains("effects") && !cell["effects"].empty()) {
    return cell["effects"][0].get<std::string>();
  }
  // A deadlock or a degraded run: the liveness checker's sentence.
  if (cell.contains("counterexample") && cell["counterexample"].contains("liveness")) {
    const std::string text = cell["counterexample"]["liveness"].value("text", "");
    if (!text.empty()) return text;
  }
  return "verdict: " + cell.value("verdict", "");
}

std::string FigureText(const ojson& value) {
  if (value.is_null()) return "\xE2\x80\x94";
  if (value.is_number_integer()) return std::to_string(value.get<int64_t>());
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", value.get<double>());
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

const ojson* FindCell(const ojson& results, const std::string& scenario,
                      const std::string& algorithm) {
  for (const ojson& c : results.at("cells")) {
    if (c.at("scenario") == scenario && c.at("algorithm") == algorithm) return &c;
  }
  return nullptr;
}

}  // namespace locksim
