#include "reports/terminal_table.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "reports/report_text.h"

namespace locksim {
namespace {

using ojson = nlohmann::ordered_json;

// Display width of UTF-8 text (every code point one column).
size_t Width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string Pad(const std::string& s, size_t width) {
  const size_t w = Width(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

const char* Colour(const ojson& c) {
  if (c.contains("skipped")) return "\x1b[2m";
  const std::string v = c.value("verdict", "");
  if (v == "safe" && c.value("nothing_tested", false)) return "\x1b[37m";
  if (v == "safe") return "\x1b[32m";
  if (v == "violated") return "\x1b[1;31m";
  if (v == "deadlock") return "\x1b[33m";
  if (v == "degraded") return "\x1b[34m";
  return "\x1b[37m";
}

// The short label of a cell when the full ones would not fit a terminal.
std::string CompactLabel(const ojson& c) {
  if (c.contains("skipped")) return "-";
  const std::string v = c.value("verdict", "");
  if (v == "safe") return c.value("nothing_tested", false) ? "ok?" : "ok";
  if (v == "violated") return "V" + std::to_string(c.value("violations", int64_t{0}));
  if (v == "deadlock") return "DL";
  if (v == "degraded") return "DG";
  std::string upper;
  for (char ch : v.substr(0, 4)) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return upper;
}

constexpr size_t kTerminalWidth = 120;

// A searched cell's label: "ok" when nothing was found, else the verdict's
// short form and in how many seeds: "V64" (violated in 64 seeds), "DL3",
// "DG5", "V(v)" when compare --verify found it and no seed did; "verified"
// within compare --verify's bound; "-" when skipped.
std::string SearchLabel(const ojson& c) {
  const std::string v = c.value("verdict", "");
  if (v == "skipped") return "-";
  if (v == "safe") return c.contains("verified_bound") ? "verified" : "ok";
  const std::string n = c.value("found_by", "") == "verify"
                            ? std::string("(v)")  // found by verify, not by a seed
                            : std::to_string(c.value("seeds_with_finding", int64_t{0}));
  if (v == "violated") return "V" + n;
  if (v == "deadlock") return "DL" + n;
  if (v == "degraded") return "DG" + n;
  return v + n;
}

// Column heads short enough for ten classes in a terminal.
std::string ClassHead(const std::string& cls) {
  if (cls == "client-clock") return "c-clock";
  if (cls == "node-clock") return "n-clock";
  if (cls == "client-crash") return "c-crash";
  if (cls == "node-crash") return "n-crash";
  if (cls == "partition") return "partit.";
  return cls;
}

std::string RenderSearchTable(const ojson& search, bool colour) {
  const ojson& classes = search.at("classes");
  std::map<std::pair<std::string, std::string>, const ojson*> by;
  for (const ojson& c : search.at("cells")) {
    by[{c.at("algorithm").get<std::string>(), c.at("class").get<std::string>()}] = &c;
  }
  size_t first = std::string("variant").size();
  for (const ojson& a : search.at("algorithms")) first = std::max(first, Width(a.get<std::string>()));
  std::vector<size_t> widths;
  for (const ojson& cls : classes) {
    size_t w = std::max<size_t>(Width(ClassHead(cls.get<std::string>())), 4);
    for (const auto& [key, c] : by) {
      if (key.second == cls.get<std::string>()) w = std::max(w, Width(SearchLabel(*c)));
    }
    widths.push_back(w);
  }
  const int64_t seeds = search.at("seeds").value("count", int64_t{0});
  std::string s = "\nfound by search: " + std::to_string(seeds) + " generated seeds per variant and fault class\n";
  s += Pad("variant", first);
  for (size_t i = 0; i < classes.size(); ++i) {
    const std::string head = ClassHead(classes[i].get<std::string>());
    s += "  " + (i + 1 == classes.size() ? head : Pad(head, widths[i]));
  }
  s += "\n";
  for (const ojson& a : search.at("algorithms")) {
    const std::string algo = a.get<std::string>();
    s += Pad(algo, first);
    for (size_t i = 0; i < classes.size(); ++i) {
      auto it = by.find({algo, classes[i].get<std::string>()});
      const std::string label = it == by.end() ? "" : SearchLabel(*it->second);
      const std::string cell = i + 1 == classes.size() ? label : Pad(label, widths[i]);
      s += "  ";
      s += colour && it != by.end() ? std::string(Colour(*it->second)) + cell + "\x1b[0m" : cell;
    }
    s += "\n";
  }
  s += "key: ok nothing found, Vn violated in n seeds, DLn deadlock, DGn degraded, - not applicable\n";
  const ojson& disagreements = search.at("disagreements");
  if (!disagreements.empty()) {
    s += std::to_string(disagreements.size()) + " disagreement(s) between the stories and search:\n";
    size_t shown = 0;
    for (const ojson& d : disagreements) {
      if (++shown > 8) {
        s += "  ... and " + std::to_string(disagreements.size() - 8) + " more in report.html\n";
        break;
      }
      s += "  " + d.at("text").get<std::string>() + "\n";
    }
  }
  return s;
}

}  // namespace

std::string RenderTerminalTable(const ojson& r, bool colour) {
  // Column heads: "f01" for "f01-pause-past-ttl", when unique.
  std::vector<std::string> names, heads;
  for (const ojson& sc : r.at("scenarios")) names.push_back(sc.at("name").get<std::string>());
  std::set<std::string> seen;
  bool unique = true;
  for (const std::string& n : names) {
    heads.push_back(n.substr(0, n.find('-')));
    unique = unique && seen.insert(heads.back()).second;
  }
  if (!unique) heads = names;
  const CellIndex cells(r);

  size_t first = std::string("variant").size();
  for (const ojson& a : r.at("algorithms")) first = std::max(first, Width(a.get<std::string>()));
  // Full labels ("VIOLATED 2") when the table fits a terminal, else short
  // ones ("V2") with a key below.
  std::vector<size_t> widths;
  bool compact = false;
  auto Label = [&compact](const ojson& c) { return compact ? CompactLabel(c) : CellLabel(c); };
  for (int pass = 0; pass < 2; ++pass) {
    widths.clear();
    size_t total = first;
    for (size_t i = 0; i < names.size(); ++i) {
      size_t w = std::max<size_t>(Width(heads[i]), compact ? 3 : 8);
      for (const ojson& a : r.at("algorithms")) {
        if (const ojson* c = cells.Find(names[i], a.get_ref<const std::string&>())) {
          w = std::max(w, Width(Label(*c)) + 1);
        }
      }
      widths.push_back(w);
      total += 2 + w;
    }
    if (total <= kTerminalWidth || compact) break;
    compact = true;
  }

  // The last column is not padded: no trailing blanks.
  auto Fit = [&](const std::string& text, size_t i) {
    return i + 1 == names.size() ? text : Pad(text, widths[i]);
  };
  std::string s = Pad("variant", first);
  for (size_t i = 0; i < names.size(); ++i) s += "  " + Fit(heads[i], i);
  s += "\n";
  for (const ojson& a : r.at("algorithms")) {
    const std::string algo = a.get<std::string>();
    s += Pad(algo, first);
    for (size_t i = 0; i < names.size(); ++i) {
      const ojson* c = cells.Find(names[i], algo);
      std::string label = c ? Label(*c) : "";
      // A cell whose scenario expected something else is marked with "!".
      if (c && c->contains("expected") && !(*c)["expected"].value("met", true)) label += "!";
      const std::string cell = Fit(label, i);
      s += "  ";
      s += colour && c ? std::string(Colour(*c)) + cell + "\x1b[0m" : cell;
    }
    s += "\n";
  }
  if (heads != names) {
    for (size_t i = 0; i < names.size(); ++i) s += Pad(heads[i], first) + "  " + names[i] + "\n";
  }
  if (compact) {
    bool untested = false;
    for (const ojson& c : r.at("cells")) untested = untested || c.value("nothing_tested", false);
    s += std::string("key: ok safe, ") + (untested ? "ok? safe but nothing tested, " : "") +
         "Vn violated (n violations), DL deadlock, DG degraded, - not applicable\n";
  }
  const ojson& sum = r.at("summary");
  std::string totals;
  const ojson by = sum.value("by_verdict", ojson::object());
  for (const auto& [v, n] : by.items()) {
    totals += (totals.empty() ? "" : ", ") + std::to_string(n.get<int64_t>()) + " " + v;
  }
  s += std::to_string(sum.value("run", int64_t{0})) + " cells run (" + totals + "), " +
       std::to_string(sum.value("skipped", int64_t{0})) + " not applicable; " +
       std::to_string(sum.value("as_expected", int64_t{0})) + " of " +
       std::to_string(sum.value("expected", int64_t{0})) +
       " expectations met (! marks a cell not as expected)\n";
  if (r.contains("search")) s += RenderSearchTable(r.at("search"), colour);
  return s;
}

}  // namespace locksim
