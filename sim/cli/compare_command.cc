#include "sim/cli/compare_command.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <boost/program_options.hpp>

#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "reports/compare_json.h"
#include "reports/terminal_table.h"
#include "sim/run/compare.h"
#include "sim/core/errors.h"

namespace po = boost::program_options;

namespace locksim {
namespace {

// NO_COLOR (https://no-color.org): present and not empty.
bool NoColor() {
  const char* v = std::getenv("NO_COLOR");
  return v != nullptr && v[0] != '\0';
}

// Colour and the progress bar only for a person at a terminal.
bool Decorate(int fd) { return isatty(fd) == 1 && !NoColor(); }

std::vector<std::string> SplitList(const std::vector<std::string>& values,
                                   const std::string& option) {
  std::vector<std::string> out;
  for (const std::string& v : values) {
    std::stringstream ss(v);
    std::string item;
    while (std::getline(ss, item, ',')) {
      const size_t a = item.find_first_not_of(" \t");
      const size_t b = item.find_last_not_of(" \t");
      if (a == std::string::npos) {
        throw InputError(option + ": empty name in \"" + v + "\"");
      }
      out.push_back(item.substr(a, b - a + 1));
    }
  }
  return out;
}

void WriteFile(const std::filesystem::path& path, const std::string& text,
               const std::string& option) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw InputError(option + ": cannot write " + path.string());
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

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

class ProgressBar {
 public:
  explicit ProgressBar(bool on) : on_(on) {}
  ~ProgressBar() { Clear(); }
  void Update(int done, int total, const std::string& what) {
    if (!on_ || total <= 0) return;
    constexpr int kWidth = 30;
    const int filled = done * kWidth / total;
    std::string bar(static_cast<size_t>(filled), '#');
    bar += std::string(static_cast<size_t>(kWidth - filled), '.');
    std::fprintf(stderr, "\r\x1b[K[%s] %d/%d %s", bar.c_str(), done, total, what.c_str());
    std::fflush(stderr);
  }
  void Clear() {
    if (!on_) return;
    std::fputs("\r\x1b[K", stderr);
    std::fflush(stderr);
  }

 private:
  bool on_;
};

Backend ParseBackend(const std::string& text) {
  if (text == "virtual") return Backend::kVirtual;
  if (text == "real") return Backend::kReal;
  throw InputError("--backend: expected \"virtual\" or \"real\", got \"" + text + "\"");
}

int ParseSeeds(const std::string& text) {
  int v = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || v > 100000) {
      throw InputError("--seeds: expected an integer from 1 to 10000, got \"" + text + "\"");
    }
    v = v * 10 + (c - '0');
  }
  if (text.empty() || v < 1 || v > 10000) {
    throw InputError("--seeds: expected an integer from 1 to 10000, got \"" + text + "\"");
  }
  return v;
}

}  // namespace

int CompareCommand(const std::vector<std::string>& args) {
  std::vector<std::string> algorithms, scenarios;
  std::string seeds = "1", backend = "virtual", time_scale, redis_server = "redis-server";
  std::string out_dir = "out";
  bool quiet = false, help = false;
  po::options_description d(
      "locksim compare [options]\n"
      "Runs every algorithm against every scenario (cells = scenario x algorithm),\n"
      "writes DIR/results.json, report.html, summary.md, junit.xml and prints the\n"
      "matrix. Exit 0: every cell safe and as its scenario expects; 1: otherwise.\n\n"
      "options");
  d.add_options()("help,h", po::bool_switch(&help), "show this help")(
      "algorithms", po::value(&algorithms)->multitoken(),
      "comma-separated algorithm ids, or all (default: all)")(
      "scenarios", po::value(&scenarios)->multitoken(),
      "scenario files or folders (default: scenarios)")(
      "seeds", po::value(&seeds)->default_value("1"),
      "seeds per cell: the scenario's seed, seed+1, ... (the cell shows the worst)")(
      "backend", po::value(&backend)->default_value("virtual"), "virtual or real")(
      "time-scale", po::value(&time_scale),
      "multiply every scenario duration, e.g. 1/500 (default: 1 on virtual, the "
      "scenario's real_time_scale on real)")(
      "redis-server", po::value(&redis_server)->default_value("redis-server"),
      "redis-server binary for --backend real")(
      "out", po::value(&out_dir)->default_value("out"), "folder for the four files")(
      "quiet,q", po::bool_switch(&quiet), "print only the report's path");
  po::positional_options_description pos;
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(d).positional(pos).run(), vm);
  po::notify(vm);
  if (help) {
    std::cout << d;
    return kExitSafe;
  }

  CompareOptions options;
  options.algorithms = SplitList(algorithms, "--algorithms");
  options.scenario_paths =
      scenarios.empty() ? std::vector<std::string>{"scenarios"} : SplitList(scenarios, "--scenarios");
  options.seeds = ParseSeeds(seeds);
  options.run.backend = ParseBackend(backend);
  if (!time_scale.empty()) {
    std::string error;
    auto scale = ParseTimeScale(time_scale, &error);
    if (!scale) throw InputError("--time-scale: " + error);
    options.run.time_scale = *scale;
  }
  options.run.redis_server = redis_server;
  if (out_dir.empty()) throw InputError("--out: empty folder name");
  const std::filesystem::path dir(out_dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    throw InputError("--out: cannot create folder " + out_dir +
                     (ec ? ": " + ec.message() : std::string()));
  }

  CompareResult result;
  {
    ProgressBar bar(!quiet && Decorate(STDERR_FILENO));
    result = RunCompare(options, [&bar](int done, int total, const std::string& cell) {
      bar.Update(done, total, cell);
    });
  }
  const nlohmann::ordered_json json = CompareToJson(result);
  const std::filesystem::path results_path = dir / "results.json";
  WriteFile(results_path, json.dump(2) + "\n", "--out");
  const ReportPaths paths{dir / "report.html", dir / "summary.md", dir / "junit.xml"};
  WriteReports(json, paths, results_path.string());

  if (!quiet) {
    std::cout << RenderTerminalTable(json, Decorate(STDOUT_FILENO));
    std::cout << "wrote " << results_path.string() << ", " << paths.html.string() << ", "
              << paths.markdown.string() << ", " << paths.junit.string() << "\n";
  }
  std::cout << "report: " << std::filesystem::absolute(paths.html).lexically_normal().string()
            << "\n";

  bool clean = true;
  for (const CompareCell& c : result.cells) {
    if (!c.skipped.empty()) continue;
    if (c.Worst() != Verdict::kSafe || c.ExpectationMet() == false) clean = false;
  }
  return clean ? kExitSafe : kExitViolated;
}

int ReportCommand(const std::vector<std::string>& args) {
  std::string input, html, markdown, junit;
  bool help = false;
  po::options_description d(
      "locksim report results.json [options]\n"
      "Draws the reports of a results.json written by locksim compare.\n\n"
      "options");
  d.add_options()("help,h", po::bool_switch(&help), "show this help")(
      "results", po::value(&input), "results.json")(
      "out", po::value(&html), "report.html to write (default: report.html beside results.json)")(
      "markdown", po::value(&markdown), "also write this Markdown summary")(
      "junit", po::value(&junit), "also write this JUnit XML file");
  po::positional_options_description pos;
  pos.add("results", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(d).positional(pos).run(), vm);
  po::notify(vm);
  if (help) {
    std::cout << d;
    return kExitSafe;
  }
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
  std::cout << "report: " << std::filesystem::absolute(paths.html).lexically_normal().string()
            << "\n";
  return kExitSafe;
}

}  // namespace locksim
