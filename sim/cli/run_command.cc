// `locksim run` and `locksim check`.
//
// One exit-code rule (README, "Exit codes"):
//   a single run (one file, with --algorithm, or without expectations):
//     0 only when the verdict is safe; violated, deadlock and degraded are
//     findings: 1;
//   expectation runs (run over files with "expect" entries, check, and
//     --label): 0 when every expectation is met, 1 otherwise.
// With --json -, stdout carries the JSON and nothing else; tables and
// summaries go to stderr.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "lockimpls/lock.h"
#include "reports/run_json.h"
#include "sim/cli/commands.h"
#include "sim/cli/files.h"
#include "sim/cli/options.h"
#include "sim/cli/terminal.h"
#include "sim/core/errors.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_files.h"

namespace locksim {
namespace {

// The kinds of violation besides overlapping sections (which the pairs
// show): " foreign-write". So that a run missing an expected kind does not
// read the same as its expectation in the table.
std::string OtherKindsText(const std::vector<ViolationKind>& kinds) {
  std::string s;
  for (ViolationKind k : kinds) {
    if (k != ViolationKind::kMutualExclusion) s += " " + std::string(ViolationKindName(k));
  }
  return s;
}

std::string ExpectationText(const Expectation& x) {
  std::string s(VerdictName(x.verdict));
  if (x.has_overlaps) {
    for (size_t i = 0; i < x.overlaps.size(); ++i) s += (i ? "," : " ") + x.overlaps[i];
  }
  s += OtherKindsText(x.kinds);
  if (x.invariant_holds) s += *x.invariant_holds ? " +inv" : " -inv";
  return s;
}

std::string OutcomeText(const RunResult& r) {
  std::string s(VerdictName(r.verdict()));
  auto pairs = r.OverlapPairs();
  for (size_t i = 0; i < pairs.size(); ++i) s += (i ? "," : " ") + pairs[i];
  s += OtherKindsText(r.Kinds());
  if (r.scenario.workload.type != WorkloadSpec::Type::kNone) s += r.effect.holds ? " +inv" : " -inv";
  return s;
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// What a third-party library did besides answering: its errors, and the
// clients it took down, with the last lines of their stderr.
void PrintLibrary(std::ostream& out, const LibraryReport& lib) {
  for (const LibraryError& e : lib.errors) {
    out << "library " << lib.name << ": " << e.op << " raised " << e.count << "x: " << e.text
        << " (first: client " << e.first_client << " at " << FormatDuration(e.first) << ")\n";
  }
  for (const LibraryFailure& f : lib.failures) {
    out << "library " << lib.name << ": client " << f.client << " crashed at "
        << FormatDuration(f.time) << ": its adapter " << f.what << "; the run went on without it\n";
    if (f.stderr_tail.empty()) continue;
    // The last few lines: where a traceback names the exception.
    std::vector<std::string> lines;
    for (size_t at = 0; at <= f.stderr_tail.size();) {
      const size_t nl = std::min(f.stderr_tail.find('\n', at), f.stderr_tail.size());
      lines.push_back(f.stderr_tail.substr(at, nl - at));
      at = nl + 1;
    }
    const size_t from = lines.size() > 6 ? lines.size() - 6 : 0;
    out << "  its stderr ends:\n";
    for (size_t i = from; i < lines.size(); ++i) out << "  | " << lines[i] << "\n";
  }
}

void PrintSummary(std::ostream& out, const RunResult& r) {
  out << r.scenario.name << " · " << r.algorithm << " · " << BackendName(r.backend)
      << " · seed " << r.seed;
  if (!r.time_scale.IsIdentity()) out << " · time scale " << r.time_scale.ToString();
  out << "\n";
  if (!r.scale_note.empty()) out << "note: " << r.scale_note << "\n";
  if (!r.stopped_early.empty()) out << "note: " << r.stopped_early << "\n";
  out << "verdict: " << Upper(VerdictName(r.verdict()));
  if (r.violated() && !r.limiter) {
    size_t overlaps = 0, foreign = 0;
    for (const Violation& v : r.check.violations) {
      ++(v.kind == ViolationKind::kForeignWrite ? foreign : overlaps);
    }
    out << " (";
    if (overlaps) out << overlaps << " overlapping pair(s)";
    if (overlaps && foreign) out << ", ";
    if (foreign) out << foreign << " foreign write(s)";
    out << ")";
  }
  out << "; " << r.acquisitions << " acquisitions, " << r.failed_acquisitions << " timed out, ";
  if (r.errored_acquisitions > 0) out << r.errored_acquisitions << " raised an error, ";
  out << r.redis_commands << " Redis commands\n";
  const std::vector<Violation>& violations = r.check.violations;
  for (size_t i = 0; i < violations.size() && i < kSummarizedViolations; ++i) {
    out << "  " << DescribeViolation(r, violations[i]) << "\n";
  }
  if (violations.size() > kSummarizedViolations) {
    out << "  ... and " << violations.size() - kSummarizedViolations
        << " more violation(s); --json lists them all\n";
  }
  if (r.library) PrintLibrary(out, *r.library);
  if (!r.liveness.text.empty()) out << "liveness: " << r.liveness.text << "\n";
  for (const std::string& u : r.unfired) out << "WARNING: " << u << "\n";
  // A lock nobody ever held was not tested: SAFE says nothing then.
  if (!r.limiter && r.acquisitions == 0 && r.verdict() == Verdict::kSafe) {
    out << "WARNING: no client ever acquired the lock: nothing was tested, and SAFE says "
           "nothing "
        << (r.errored_acquisitions > 0
                ? "(every acquire that ended raised an error: see the library's above)"
                : "(a node no client could reach? give network.timeout)")
        << "\n";
  }
  if (r.limiter || r.scenario.workload.type != WorkloadSpec::Type::kNone) {
    out << (r.limiter ? std::string("limiter")
                      : "workload " + std::string(WorkloadName(r.scenario.workload.type)))
        << ": ";
    for (size_t i = 0; i < r.effect.sentences.size(); ++i) {
      out << (i ? "; " : "") << r.effect.sentences[i];
    }
    out << (r.effect.holds ? "" : "  [INVARIANT BROKEN]") << "\n";
  }
  if (auto met = r.ExpectationMet()) {
    out << "expected: " << ExpectationText(*r.expectation()) << " — "
        << (*met ? "as expected" : "NOT as expected") << "\n";
  }
}

// A table whose columns are as wide as their widest cell.
class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back({std::move(header), {}}); }
  // A row, and lines printed under it (warnings).
  void Add(std::vector<std::string> cells, std::vector<std::string> notes = {}) {
    rows_.push_back({std::move(cells), std::move(notes)});
  }
  void Print(std::FILE* out) const {
    std::vector<size_t> width;
    for (const Row& r : rows_) {
      width.resize(std::max(width.size(), r.cells.size()), 0);
      for (size_t i = 0; i < r.cells.size(); ++i) width[i] = std::max(width[i], r.cells[i].size());
    }
    for (const Row& r : rows_) {
      std::string line;
      for (size_t i = 0; i < r.cells.size(); ++i) {
        line += r.cells[i];
        if (i + 1 < r.cells.size()) line += std::string(width[i] - r.cells[i].size() + 2, ' ');
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      std::fprintf(out, "%s\n", line.c_str());
      for (const std::string& n : r.notes) std::fprintf(out, "  %s\n", n.c_str());
    }
  }

 private:
  struct Row {
    std::vector<std::string> cells;
    std::vector<std::string> notes;
  };
  std::vector<Row> rows_;
};

// What one line of a suite runs: an "expect" label, or an algorithm
// without an expectation.
struct SuiteCell {
  const Scenario* scenario;
  std::string name;
  const Expectation* expectation;  // null: no expectation
};

std::vector<SuiteCell> SuiteCells(const std::vector<Scenario>& scenarios,
                                  const std::string& algorithm) {
  std::vector<SuiteCell> cells;
  for (const Scenario& s : scenarios) {
    if (!algorithm.empty()) {
      auto it = s.expect.find(algorithm);
      cells.push_back({&s, algorithm, it == s.expect.end() ? nullptr : &it->second});
    } else if (s.expect.empty()) {
      cells.push_back({&s, s.algorithm, nullptr});
    } else {
      for (const auto& [label, x] : s.expect) cells.push_back({&s, label, &x});
    }
  }
  return cells;
}

// Every scenario x expectation (or x --algorithm), one line each: an
// expectation run. 1 if any run is not as expected.
int RunSuite(const std::vector<Scenario>& scenarios, const RunOptions& base,
             const std::string& algorithm, const std::string& json_path, bool history,
             bool quiet) {
  const std::vector<SuiteCell> cells = SuiteCells(scenarios, algorithm);
  Table table({"scenario", "variant", "backend", "verdict", "expected", ""});
  const std::string backend(BackendName(base.backend));
  int runs = 0, mismatches = 0, not_applicable = 0;
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  ProgressLine progress(quiet);
  for (size_t i = 0; i < cells.size(); ++i) {
    const SuiteCell& c = cells[i];
    progress.Show(static_cast<double>(i) / static_cast<double>(cells.size()),
                  std::to_string(i) + "/" + std::to_string(cells.size()) + " " +
                      c.scenario->name + " · " + c.name);
    const std::string expected = c.expectation ? ExpectationText(*c.expectation) : "-";
    RunOptions o = base;
    (c.expectation != nullptr ? o.label : o.algorithm) = c.name;
    // A third-party client (redis-py) on the virtual backend: not a
    // failed expectation, a run this backend cannot make.
    const AlgorithmInfo* algo =
        FindAlgorithm(c.expectation != nullptr ? c.expectation->algorithm : c.name);
    if (algo != nullptr && algo->real_only() && o.backend != Backend::kReal) {
      ++not_applicable;
      table.Add({c.scenario->name, c.name, backend, "n/a", expected,
                 "not applicable on virtual"});
      continue;
    }
    RunResult r = RunScenario(*c.scenario, o);
    const std::optional<bool> met = r.ExpectationMet();
    const bool ok = met.value_or(r.verdict() == Verdict::kSafe && r.unfired.empty());
    ++runs;
    if (!ok) ++mismatches;
    std::vector<std::string> warnings;
    for (const std::string& u : r.unfired) warnings.push_back("WARNING: " + u);
    table.Add({c.scenario->name, c.name, backend, OutcomeText(r), expected,
               ok ? "ok" : (met ? "NOT AS EXPECTED" : Upper(VerdictName(r.verdict())))},
              std::move(warnings));
    if (!json_path.empty()) all.push_back(ResultToJson(r, history));
  }
  progress.Clear();
  if (!quiet) {
    // stdout is the JSON's when it goes there.
    std::FILE* out = json_path == "-" ? stderr : stdout;
    table.Print(out);
    std::fprintf(out, "%d of %d runs as expected", runs - mismatches, runs);
    if (not_applicable > 0) {
      std::fprintf(out, "; %d not applicable on --backend %s", not_applicable, backend.c_str());
    }
    std::fprintf(out, "\n");
    std::fflush(out);
  }
  if (!json_path.empty()) {
    // Streamed, as dump(2) writes it: the text is not built whole first.
    WriteFile(
        json_path, [&all](std::ostream& out) { out << std::setw(2) << all << "\n"; }, "--json");
  }
  return mismatches == 0 ? kExitSafe : kExitViolated;
}

// One run in detail. A long one shows where it is on a terminal.
int RunOne(const Scenario& scenario, RunOptions options, const std::string& json_path,
           bool history, bool quiet) {
  ProgressLine progress(quiet);
  options.progress = [&](Nanos now, Nanos duration, int64_t ops) {
    if (progress.Elapsed() < 1) return;  // a short run draws nothing
    progress.Show(duration.count() > 0 ? static_cast<double>(now.count()) / duration.count() : -1,
                  FormatDuration(now) + " of " + FormatDuration(duration) + " simulated, " +
                      std::to_string(ops) + " history ops");
  };
  const RunResult result = RunScenario(scenario, options);
  progress.Clear();
  if (!json_path.empty()) {
    WriteFile(
        json_path,
        [&](std::ostream& out) {
          WriteResultJson(out, result, history);
          out << "\n";
        },
        "--json");
  }
  if (!quiet) PrintSummary(json_path == "-" ? std::cerr : std::cout, result);
  if (!options.label.empty()) return result.ExpectationMet() == true ? kExitSafe : kExitViolated;
  return result.verdict() == Verdict::kSafe ? kExitSafe : kExitViolated;
}

}  // namespace

int RunCommand(const std::vector<std::string>& args, bool suite_only) {
  BackendOptions backend;
  std::vector<std::string> paths;
  std::string algorithm, label, seed, json_path, adapter, max_ops;
  bool history = false, quiet = false;
  CommandLine cl(
      suite_only
          ? "locksim check PATH... [options]\n"
            "Runs every \"expect\" entry of every scenario, one line each, and compares each\n"
            "verdict with its expectation. Exit 0: every expectation met; 1: some not."
          : "locksim run PATH... [options]\n"
            "One scenario file with --algorithm (or without expectations): one run in detail;\n"
            "exit 0 when its verdict is safe, 1 when violated, deadlock or degraded.\n"
            "With --label: one \"expect\" entry in detail; exit 0 when it is met, 1 when not.\n"
            "Several files, a folder, or a file with an \"expect\" map: one line per scenario\n"
            "x expectation (as check); exit 0 when every one is met, 1 when not.");
  cl.Add()("path", po::value(&paths), "scenario files or folders")(
      "algorithm", po::value(&algorithm),
      "lock algorithm id (default: the scenario's; locksim list)")(
      "label", po::value(&label),
      "run one \"expect\" entry of a scenario file in detail (its algorithm and overrides)")(
      "seed", po::value(&seed), "seed (default: the scenario's)")(
      "json", po::value(&json_path),
      "write the result JSON to PATH, or - for stdout, which then carries only the JSON "
      "(several runs: a JSON array)")(
      "history", po::bool_switch(&history), "include the full history in the JSON")(
      "adapter", po::value(&adapter),
      "run a lock library through an adapter not bundled with locksim, under its own name: "
      "PATH is its manifest (*.adapter.json) or a program that speaks the adapter protocol "
      "(docs/adapters.md); with --algorithm ID of an adapter-driven variant, the program "
      "replaces that variant's")(
      "max-ops", po::value(&max_ops),
      "stop a run once its history holds this many operations (about 35 bytes each "
      "when retrying; default 4000000, 0: no cap below 2^31); the result says where it stopped")(
      "quiet,q", po::bool_switch(&quiet), "no summary, table or progress line");
  backend.AddTo(cl);
  cl.Positional("path", -1);
  if (!cl.Parse(args)) return kExitSafe;
  if (paths.empty()) {
    throw InputError("locksim " + std::string(suite_only ? "check" : "run") +
                     ": missing PATH (a scenario file or folder)");
  }
  RunOptions options = backend.ToRunOptions();
  if (!seed.empty()) options.seed = ParseSeedOption("--seed", seed);
  if (!max_ops.empty()) options.max_ops = ParseIntOption("--max-ops", max_ops, 0, INT64_MAX);
  options.adapter = adapter;
  if (!algorithm.empty() && FindAlgorithm(algorithm) == nullptr) {
    throw InputError("--algorithm: unknown algorithm \"" + algorithm + "\" (known: " +
                     AlgorithmIds() + ")");
  }
  std::vector<Scenario> scenarios;
  for (const std::string& f : ListScenarioFiles(paths, "locksim run")) {
    scenarios.push_back(LoadScenario(f));
  }
  std::error_code ec;
  const bool one_file = paths.size() == 1 && !std::filesystem::is_directory(paths[0], ec);
  const bool single = !suite_only && one_file &&
                      (!algorithm.empty() || !adapter.empty() || !label.empty() ||
                       scenarios[0].expect.empty());
  if (!single) {
    if (!label.empty()) throw InputError("--label: needs exactly one scenario file");
    return RunSuite(scenarios, options, algorithm, json_path, history, quiet);
  }
  options.algorithm = algorithm;
  options.label = label;
  return RunOne(scenarios[0], options, json_path, history, quiet);
}

}  // namespace locksim
