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
  if (cell.value("nothing_tested", false)) upper += " (NOTHING TESTED)";
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

const ojson& MemberOrEmpty(const ojson& object, std::string_view key) {
  static const ojson kEmpty = ojson::array();  // a constant, never written
  // Not an object: at() throws nlohmann's type_error, as value() did, which
  // `locksim report` turns into its message on a malformed results.json.
  if (!object.is_object()) return object.at(key);
  const auto it = object.find(key);
  return it == object.end() ? kEmpty : *it;
}

std::string EffectSentence(const ojson& cell) {
  if (cell.contains("invariant_holds") && !cell["invariant_holds"].get<bool>() &&
      cell.contains("effects") && !cell["effects"].empty()) {
    std::string s;
    for (const ojson& e : cell["effects"]) s += (s.empty() ? "" : "; ") + e.get<std::string>();
    return s;
  }
  if (cell.contains("counterexample")) {
    const ojson& v = MemberOrEmpty(cell["counterexample"], "violations");
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

std::string SearchCellLabel(const ojson& c) {
  const std::string v = c.value("verdict", "");
  if (v == "skipped") return "n/a";
  const std::string runs = std::to_string(c.value("runs", int64_t{0}));
  if (v == "safe") {
    if (c.contains("verified_bound")) return "verified to bound " + c["verified_bound"].get<std::string>();
    return "no finding in " + runs;
  }
  std::string upper;
  for (char ch : v) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (c.value("found_by", "") == "verify") return upper + " by verify";
  return upper + " " + std::to_string(c.value("seeds_with_finding", int64_t{0})) + "/" + runs;
}

std::string FencingNote(const ojson& search) {
  const ojson* shortest = nullptr;
  int64_t seeds = 0;
  std::string classes;
  if (!search.contains("cells")) return "";
  for (const ojson& c : search.at("cells")) {
    if (c.value("algorithm", "") != "fenced") continue;
    int64_t n = 0;
    for (const ojson& o : MemberOrEmpty(c, "outcomes")) {
      const std::string t = "+" + o.value("outcome", "") + "+";
      if (t.find("+lost-update+") != std::string::npos || t.find("+oversold+") != std::string::npos) {
        n += o.value("seeds", int64_t{0});
      }
    }
    if (n == 0) continue;
    seeds += n;
    classes += (classes.empty() ? "" : ", ") + c.value("class", "");
    const std::string kind = c.value("kind", "");
    if ((kind.find("lost-update") != std::string::npos || kind.find("oversold") != std::string::npos) &&
        (shortest == nullptr ||
         c.at("counterexample").at("stats").value("end", int64_t{0}) <
             shortest->at("counterexample").at("stats").value("end", int64_t{0}))) {
      shortest = &c;
    }
  }
  if (seeds == 0) return "";
  std::string s =
      "Fencing tokens do not make a read-modify-write safe. Search found the fenced lock losing "
      "an update or overselling in " + std::to_string(seeds) + " seeds (under " + classes +
      "). A fencing token lets the resource refuse a write older than one it has already "
      "accepted; it says nothing about reads. When two clients both believe they hold the lock "
      "(a pause, an expiry, a clock jump), the stale holder can read, the new holder read the "
      "same value, the stale holder write first (its token is still the newest the resource has "
      "seen: accepted) and the new holder write second (accepted): one update is lost, and every "
      "write was fenced. Fencing protects against a stale write landing after a fresher one; it "
      "does not serialise the critical section. Check the token on the read too, or make the "
      "update a compare-and-set on the resource.";
  if (shortest != nullptr) {
    s += " Shortest counterexample: " + shortest->value("kind", "") + " (seed " +
         std::to_string(shortest->value("seed", int64_t{0})) + ", " + shortest->value("file", "") + ").";
  }
  return s;
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

CellIndex::CellIndex(const ojson& results) {
  for (const ojson& c : results.at("cells")) {
    const std::string_view scenario = c.at("scenario").get_ref<const std::string&>();
    const std::string_view algorithm = c.at("algorithm").get_ref<const std::string&>();
    // emplace keeps the first cell of a pair, as the search of the list did.
    cells_.emplace(std::make_pair(scenario, algorithm), &c);
    by_scenario_[scenario].push_back(&c);
  }
}

const ojson* CellIndex::Find(std::string_view scenario, std::string_view algorithm) const {
  const auto it = cells_.find(std::make_pair(scenario, algorithm));
  return it == cells_.end() ? nullptr : it->second;
}

const std::vector<const ojson*>& CellIndex::OfScenario(std::string_view scenario) const {
  static const std::vector<const ojson*> kNone;  // a constant, never written
  const auto it = by_scenario_.find(scenario);
  return it == by_scenario_.end() ? kNone : it->second;
}

}  // namespace locksim
