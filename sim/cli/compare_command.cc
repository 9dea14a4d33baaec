// `locksim compare` (every algorithm x every scenario: the matrix and the
// four files) and `locksim report` (the reports again from a results.json).
#include <unistd.h>

#include <filesystem>
#include <iomanip>
#include <iostream>
#include <thread>
#include <string>
#include <vector>

#include "reports/compare_json.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "reports/terminal_table.h"
#include "sim/cli/commands.h"
#include "sim/cli/files.h"
#include "sim/cli/options.h"
#include "sim/cli/terminal.h"
#include "sim/core/errors.h"
#include "sim/core/resources.h"
#include "sim/explore/generate.h"
#include "sim/explore/search.h"
#include "sim/run/compare.h"

namespace locksim {
namespace {

// The three reports next to each other, from one results document.
struct ReportPaths {
  std::filesystem::path html, markdown, junit;
};

void WriteReports(const nlohmann::ordered_json& results, const ReportPaths& paths,
                  const std::string& source) {
  try {
    if (!paths.html.empty()) WriteFile(paths.html, RenderHtmlReport(results), "--out");
    if (!paths.markdown.empty()) {
      WriteFile(paths.markdown, RenderMarkdownSummary(results), "--markdown");
    }
    if (!paths.junit.empty()) WriteFile(paths.junit, RenderJunit(results), "--junit");
  } catch (const nlohmann::json::exception& e) {
    // A field the writers need is missing or of the wrong type.
    throw InputError(source + ": malformed results: " + e.what());
  }
}

std::string Absolute(const std::filesystem::path& p) {
  return std::filesystem::absolute(p).lexically_normal().string();
}

}  // namespace

int CompareCommand(const std::vector<std::string>& args) {
  BackendOptions backend;
  std::vector<std::string> algorithms, scenarios;
  std::string seeds = "1", out_dir = "out", search, search_faults = "all", jobs, verify;
  bool quiet = false;
  CommandLine cl(
      "locksim compare [options]\n"
      "Runs every algorithm against every scenario (cells = scenario x algorithm),\n"
      "writes DIR/results.json, report.html, summary.md, junit.xml and prints the\n"
      "matrix. With --search N, also the matrix of what N generated seeds of each fault\n"
      "class find (locksim explore's search). Exit 0: every cell safe and as its scenario\n"
      "expects (and nothing found by search); 1: otherwise.");
  cl.Add()("algorithms", po::value(&algorithms)->multitoken(),
           "comma-separated algorithm ids, or all (default: all)")(
      "scenarios", po::value(&scenarios)->multitoken(),
      "scenario files or folders (default: ./scenarios if there is one, else the bundled "
      "scenarios)")(
      "seeds", po::value(&seeds)->default_value("1"),
      "seeds per cell: the scenario's seed, seed+1, ... (the cell shows the worst)")(
      "out", po::value(&out_dir)->default_value("out"), "folder for the four files")(
      "search", po::value(&search),
      "N: also search every variant x fault class with N generated seeds (locksim explore's), "
      "the second matrix 'found by search'; counterexamples in DIR/search/")(
      "search-faults", po::value(&search_faults)->default_value("all"),
      "the fault classes (columns) of the searched matrix, as explore's --faults")(
      "verify", po::value(&verify),
      "K:E (with --search): verify every cell the seeds found safe, of a class locksim verify "
      "places, within K faults at the first E instants (locksim verify's world): \"verified to "
      "bound K faults in E instants\", or verify's counterexample")(
      "jobs", po::value(&jobs), "search worker threads (default: the number of cores); the "
      "output does not depend on it")(
      "quiet,q", po::bool_switch(&quiet), "print only the report's path");
  backend.AddTo(cl);
  if (!cl.Parse(args)) return kExitSafe;

  CompareOptions options;
  options.algorithms = SplitList(algorithms, "--algorithms");
  std::error_code ec;
  options.scenario_paths =
      !scenarios.empty() ? SplitList(scenarios, "--scenarios")
      : std::filesystem::is_directory("scenarios", ec) ? std::vector<std::string>{"scenarios"}
                                                       : std::vector<std::string>{DataPath("scenarios")};
  options.seeds = static_cast<int>(ParseIntOption("--seeds", seeds, 1, 10000));
  options.run = backend.ToRunOptions();
  SearchOptions search_options;
  if (!search.empty()) {
    search_options.seeds = static_cast<uint64_t>(ParseIntOption("--search", search, 1, 10000000));
    search_options.classes = ParseFaultClasses(search_faults, "--search-faults");
    search_options.jobs =
        jobs.empty() ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))
                     : static_cast<int>(ParseIntOption("--jobs", jobs, 1, 1024));
    if (!verify.empty()) {
      const size_t colon = verify.find(':');
      if (colon == std::string::npos) {
        throw InputError("--verify: expected K:E (faults, instants), such as 2:40, got \"" + verify + "\"");
      }
      search_options.verify_faults = static_cast<int>(ParseIntOption("--verify", verify.substr(0, colon), 1, 8));
      search_options.verify_events =
          static_cast<int>(ParseIntOption("--verify", verify.substr(colon + 1), 1, 100000));
    }
  } else if (!jobs.empty() || search_faults != "all" || !verify.empty()) {
    throw InputError(!jobs.empty()              ? "--jobs: only with --search"
                     : !verify.empty()          ? "--verify: only with --search"
                                                : "--search-faults: only with --search");
  }
  const std::filesystem::path dir = EnsureFolder(out_dir, "--out");

  CompareResult result;
  {
    ProgressLine progress(quiet);
    result = RunCompare(options, [&progress](int done, int total, const std::string& cell) {
      progress.Show(static_cast<double>(done) / total,
                    std::to_string(done) + "/" + std::to_string(total) + " " + cell);
    });
  }
  if (search_options.seeds > 0) {
    search_options.algorithms = result.algorithms;
    ProgressLine progress(quiet);
    SearchResult found = RunSearch(search_options, [&progress](int done, int total, const std::string& cell) {
      progress.Show(static_cast<double>(done) / total,
                    "search " + std::to_string(done) + "/" + std::to_string(total) + " " + cell);
    });
    FindDisagreements(result, &found);
    // Each counterexample as a scenario file `locksim run` replays.
    const std::filesystem::path folder = EnsureFolder((dir / "search").string(), "--out");
    for (const SearchCell& c : found.cells) {
      if (!c.example) continue;
      WriteFile(folder / (SearchCellId(c.algorithm, c.fault_class) + ".json"),
                c.example->scenario_text, "--out");
    }
    result.search = std::move(found);
  }
  const nlohmann::ordered_json json = CompareToJson(result);
  const std::filesystem::path results_path = dir / "results.json";
  // Streamed, as dump(2) writes it: the document's text is not built whole.
  WriteFile(
      results_path, [&json](std::ostream& out) { out << std::setw(2) << json << "\n"; }, "--out");
  const ReportPaths paths{dir / "report.html", dir / "summary.md", dir / "junit.xml"};
  WriteReports(json, paths, results_path.string());

  if (!quiet) {
    std::cout << RenderTerminalTable(json, UseColour(STDOUT_FILENO));
    std::cout << "wrote " << results_path.string() << ", " << paths.html.string() << ", "
              << paths.markdown.string() << ", " << paths.junit.string() << "\n";
  }
  std::cout << "report: " << Absolute(paths.html) << "\n";

  bool clean = true;
  for (const CompareCell& c : result.cells) {
    if (!c.skipped.empty()) continue;
    if (c.Worst() != Verdict::kSafe || c.ExpectationMet() == false) clean = false;
  }
  if (result.search) {
    for (const SearchCell& c : result.search->cells) {
      if (c.skipped.empty() && c.worst != Verdict::kSafe) clean = false;
    }
  }
  return clean ? kExitSafe : kExitViolated;
}

int ReportCommand(const std::vector<std::string>& args) {
  std::string input, html, markdown, junit;
  CommandLine cl(
      "locksim report results.json [options]\n"
      "Draws the reports of a results.json written by locksim compare.");
  cl.Add()("results", po::value(&input), "results.json")(
      "out", po::value(&html), "report.html to write (default: report.html beside results.json)")(
      "markdown", po::value(&markdown), "also write this Markdown summary")(
      "junit", po::value(&junit), "also write this JUnit XML file");
  cl.Positional("results", 1);
  if (!cl.Parse(args)) return kExitSafe;
  if (input.empty()) throw InputError("locksim report: missing results.json");
  const nlohmann::ordered_json json = ParseResultsJson(ReadFile(input), input);
  ReportPaths paths;
  paths.html = html.empty() ? std::filesystem::path(input).parent_path() / "report.html"
                            : std::filesystem::path(html);
  if (!markdown.empty()) paths.markdown = markdown;
  if (!junit.empty()) paths.junit = junit;
  WriteReports(json, paths, input);
  if (!paths.markdown.empty()) std::cout << "wrote " << paths.markdown.string() << "\n";
  if (!paths.junit.empty()) std::cout << "wrote " << paths.junit.string() << "\n";
  std::cout << "report: " << Absolute(paths.html) << "\n";
  return kExitSafe;
}

}  // namespace locksim
