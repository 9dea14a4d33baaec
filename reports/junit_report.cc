#include "reports/junit_report.h"

#include "reports/report_text.h"
#include "reports/run_json.h"
#include "reports/xml_escape.h"

namespace locksim {

using ojson = nlohmann::ordered_json;

std::string RenderJunit(const ojson& r) {
  std::string suites;
  int64_t tests = 0, failures = 0, skipped = 0;
  const CellIndex cells(r);
  for (const ojson& sc : r.at("scenarios")) {
    const std::string name = sc.at("name").get<std::string>();
    std::string cases;
    int64_t t = 0, f = 0, sk = 0;
    for (const ojson* cell : cells.OfScenario(name)) {
      const ojson& c = *cell;
      ++t;
      cases += "    <testcase classname=\"locksim." + EscapeXml(name) + "\" name=\"" +
               EscapeXml(c.at("algorithm").get<std::string>()) + "\" time=\"0\"";
      if (c.contains("skipped")) {
        ++sk;
        cases += ">\n      <skipped message=\"" + EscapeXml(c.value("skipped", "")) +
                 "\"/>\n    </testcase>\n";
      } else if (!CellFailed(c) && c.value("nothing_tested", false)) {
        // Not a pass: no client ever held the lock, so nothing was tested.
        ++sk;
        cases += ">\n      <skipped message=\"nothing was tested: no client ever acquired the "
                 "lock\"/>\n    </testcase>\n";
      } else if (CellFailed(c)) {
        ++f;
        std::string message = CellLabel(c);
        const std::string note = ExpectationNote(c);
        if (!note.empty()) message += " (" + note + ")";
        message += ": " + EffectSentence(c);
        std::string body;
        if (c.contains("counterexample")) {
          // As many as a terminal shows; results.json has all.
          const ojson& violations = MemberOrEmpty(c["counterexample"], "violations");
          for (size_t i = 0; i < violations.size() && i < kSummarizedViolations; ++i) {
            body += violations[i].value("text", "") + "\n";
          }
          if (violations.size() > kSummarizedViolations) {
            body += "... and " + std::to_string(violations.size() - kSummarizedViolations) +
                    " more violation(s) in results.json\n";
          }
          body += "replay: locksim run " + c["counterexample"].value("scenario_file", "") +
                  " --algorithm " + c.at("algorithm").get<std::string>() + " --seed " +
                  std::to_string(c["counterexample"].value("seed", int64_t{0})) + "\n";
        }
        for (const ojson& e : MemberOrEmpty(c, "effects")) {
          body += e.get<std::string>() + "\n";
        }
        cases += ">\n      <failure type=\"" + EscapeXml(c.value("verdict", "")) +
                 "\" message=\"" + EscapeXml(message) + "\">" + EscapeXml(body) +
                 "</failure>\n    </testcase>\n";
      } else if (c.contains("verified_bound")) {
        cases += ">\n      <system-out>" + EscapeXml(SearchCellLabel(c) + ": " +
                                                 c.value("verified_bound_text", "")) +
                 "</system-out>\n    </testcase>\n";
      } else {
        cases += "/>\n";
      }
    }
    tests += t;
    failures += f;
    skipped += sk;
    suites += "  <testsuite name=\"" + EscapeXml(name) + "\" tests=\"" + std::to_string(t) +
              "\" failures=\"" + std::to_string(f) + "\" errors=\"0\" skipped=\"" +
              std::to_string(sk) + "\" time=\"0\">\n" + cases + "  </testsuite>\n";
  }
  // The searched matrix: one suite, a test per variant and fault class.
  if (r.contains("search")) {
    const ojson& search = r.at("search");
    std::string cases;
    int64_t t = 0, f = 0, sk = 0;
    for (const ojson& c : search.at("cells")) {
      ++t;
      cases += "    <testcase classname=\"locksim.search." + EscapeXml(c.at("class").get<std::string>()) +
               "\" name=\"" + EscapeXml(c.at("algorithm").get<std::string>()) + "\" time=\"0\"";
      const std::string v = c.value("verdict", "");
      if (v == "skipped") {
        ++sk;
        cases += ">\n      <skipped message=\"" + EscapeXml(c.value("skipped", "")) +
                 "\"/>\n    </testcase>\n";
      } else if (v != "safe") {
        ++f;
        const std::string message = SearchCellLabel(c) + ": " + EffectSentence(c);
        std::string body = "kind " + c.value("kind", "") + "\nreplay: locksim run " +
                           c.value("file", "") + "\nregenerate: " + c.value("rerun", "") + "\n";
        cases += ">\n      <failure type=\"" + EscapeXml(v) + "\" message=\"" + EscapeXml(message) +
                 "\">" + EscapeXml(body) + "</failure>\n    </testcase>\n";
      } else if (c.contains("verified_bound")) {
        cases += ">\n      <system-out>" + EscapeXml(SearchCellLabel(c) + ": " +
                                                 c.value("verified_bound_text", "")) +
                 "</system-out>\n    </testcase>\n";
      } else {
        cases += "/>\n";
      }
    }
    tests += t;
    failures += f;
    skipped += sk;
    suites += "  <testsuite name=\"search\" tests=\"" + std::to_string(t) + "\" failures=\"" +
              std::to_string(f) + "\" errors=\"0\" skipped=\"" + std::to_string(sk) +
              "\" time=\"0\">\n" + cases + "  </testsuite>\n";
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"locksim compare\" "
         "tests=\"" + std::to_string(tests) + "\" failures=\"" + std::to_string(failures) +
         "\" errors=\"0\" skipped=\"" + std::to_string(skipped) + "\" time=\"0\">\n" + suites +
         "</testsuites>\n";
}

}  // namespace locksim
