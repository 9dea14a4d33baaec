// locksim: the command line. Exit codes: 0 no violation, 1 violations found
// (for `check`: a verdict differs from the scenario's expectation), 2 bad
// input or usage, 3 the harness itself failed.
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <chrono>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "lockimpls/lock.h"
#include "reports/run_json.h"
#include "sim/cli/compare_command.h"
#include "sim/cli/options.h"
#include "sim/core/errors.h"
#include "sim/cli/explore_command.h"
#include "sim/core/interrupt.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_files.h"
#include "sim/serve/serve.h"

namespace po = boost::program_options;

namespace locksim {
namespace {

constexpr char kUsage[] =
    "usage: locksim <command> [options]\n"
    "\n"
    "commands:\n"
    "  run PATH...         run scenarios (files or folders): one file with\n"
    "                      --algorithm in detail; otherwise every entry of each\n"
    "                      \"expect\" map, one line each, compared with its verdict\n"
    "  check PATH...       the same as run, always one line per expectation\n"
    "  compare             every algorithm x every scenario: the matrix, and\n"
    "                      results.json, report.html, summary.md, junit.xml\n"
    "  report RESULTS.json redraw report.html (and --markdown, --junit) from\n"
    "                      a results.json\n"
    "  explore --algorithm ID  generate scenarios from seeds, shrink every\n"
    "                      violation into a scenario file, group them by kind\n"
    "  merge DIR...        combine the outputs of explore --shard i/N runs\n"
    "  list                list the lock algorithms\n"
    "  serve --port P      serve one virtual Redis node over RESP2 on 127.0.0.1\n"
    "                      (redis-cli, hiredis, any client library)\n"
    "\n"
    "`locksim <command> --help` shows a command's options.\n"
    "exit codes: 0 safe, 1 violations found (several runs: one not as expected;\n"
    "            compare: a cell not safe or not as expected;\n"
    "            explore, merge: some seed found a violation),\n"
    "            2 bad input or usage, 3 the harness failed,\n"
    "            128+N stopped by signal N (after stopping every server it started)\n";

struct CommonOptions {
  std::string backend = "virtual";
  std::string time_scale;
  std::string redis_server = "redis-server";
};

void AddCommon(po::options_description& d, CommonOptions* c) {
  d.add_options()(
      "backend", po::value(&c->backend)->default_value("virtual"),
      "virtual (deterministic, simulated Redis) or real (redis-server processes)")(
      "time-scale", po::value(&c->time_scale),
      "multiply every scenario duration, e.g. 1/500 (default: 1 on virtual, the "
      "scenario's real_time_scale on real)")(
      "redis-server", po::value(&c->redis_server)->default_value("redis-server"),
      "redis-server binary for --backend real");
}

RunOptions ToRunOptions(const CommonOptions& c) {
  RunOptions o;
  if (c.backend == "virtual") {
    o.backend = Backend::kVirtual;
  } else if (c.backend == "real") {
    o.backend = Backend::kReal;
  } else {
    throw InputError("--backend: expected \"virtual\" or \"real\", got \"" + c.backend + "\"");
  }
  if (!c.time_scale.empty()) {
    std::string error;
    auto scale = ParseTimeScale(c.time_scale, &error);
    if (!scale) throw InputError("--time-scale: " + error);
    o.time_scale = *scale;
  }
  o.redis_server = c.redis_server;
  return o;
}

uint64_t ParseSeed(const std::string& text) {
  uint64_t v = 0;
  if (text.empty() || text.size() > 20) throw InputError("--seed: expected a non-negative integer, got \"" + text + "\"");
  for (char ch : text) {
    if (ch < '0' || ch > '9') throw InputError("--seed: expected a non-negative integer, got \"" + text + "\"");
    uint64_t d = static_cast<uint64_t>(ch - '0');
    if (v > (UINT64_MAX - d) / 10) throw InputError("--seed: too large: " + text);
    v = v * 10 + d;
  }
  return v;
}

po::variables_map Parse(const std::vector<std::string>& args, po::options_description& d,
                        po::positional_options_description& pos) {
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(d).positional(pos).run(), vm);
  po::notify(vm);
  return vm;
}

std::string ExpectationText(const Expectation& x) {
  std::string s(VerdictName(x.verdict));
  if (x.has_overlaps) {
    for (size_t i = 0; i < x.overlaps.size(); ++i) s += (i ? "," : " ") + x.overlaps[i];
  }
  if (x.invariant_holds) s += *x.invariant_holds ? " +inv" : " -inv";
  return s;
}

std::string OutcomeText(const RunResult& r) {
  std::string s(VerdictName(r.verdict()));
  auto pairs = r.OverlapPairs();
  for (size_t i = 0; i < pairs.size(); ++i) s += (i ? "," : " ") + pairs[i];
  if (r.scenario.workload.type != WorkloadSpec::Type::kNone) s += r.effect.holds ? " +inv" : " -inv";
  return s;
}

void PrintSummary(std::ostream& out, const RunResult& r) {
  out << r.scenario.name << " · " << r.algorithm << " · " << BackendName(r.backend)
      << " · seed " << r.seed;
  if (!r.time_scale.IsIdentity()) out << " · time scale " << r.time_scale.ToString();
  out << "\n";
  if (!r.scale_note.empty()) out << "note: " << r.scale_note << "\n";
  if (!r.stopped_early.empty()) out << "note: " << r.stopped_early << "\n";
  std::string verdict(VerdictName(r.verdict()));
  for (char& c : verdict) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  out << "verdict: " << verdict;
  if (r.violated() && !r.limiter) {
    size_t overlaps = 0, foreign = 0;
    for (const Violation& v : r.check.violations) ++(v.kind == ViolationKind::kForeignWrite ? foreign : overlaps);
    out << " (";
    if (overlaps) out << overlaps << " overlapping pair(s)";
    if (overlaps && foreign) out << ", ";
    if (foreign) out << foreign << " foreign write(s)";
    out << ")";
  }
  out << "; " << r.acquisitions << " acquisitions, " << r.failed_acquisitions
      << " timed out, " << r.redis_commands << " Redis commands\n";
  for (const Violation& v : r.check.violations) out << "  " << DescribeViolation(r, v) << "\n";
  if (!r.liveness.text.empty()) out << "liveness: " << r.liveness.text << "\n";
  for (const std::string& u : r.unfired) out << "WARNING: " << u << "\n";
  if (r.limiter || r.scenario.workload.type != WorkloadSpec::Type::kNone) {
    out << (r.limiter ? std::string("limiter") : "workload " + std::string(WorkloadName(r.scenario.workload.type))) << ": ";
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

void WriteJson(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text << std::flush;
    return;
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw InputError("--json: cannot write " + path);
}

// Every scenario x expectation (or x --algorithm), one line each; exit 1
// if any run is not as expected.
int RunSuite(const std::vector<Scenario>& scenarios, const RunOptions& base,
             const std::string& algorithm, const std::string& json_path, bool history) {
  std::printf("%-30s %-30s %-8s %-26s %-26s %s\n", "scenario", "variant", "backend", "verdict",
              "expected", "");
  int runs = 0, mismatches = 0, not_applicable = 0;
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const Scenario& s : scenarios) {
    std::vector<std::pair<std::string, const Expectation*>> cells;  // label or algorithm
    if (!algorithm.empty()) {
      auto it = s.expect.find(algorithm);
      cells.emplace_back(algorithm, it == s.expect.end() ? nullptr : &it->second);
    } else if (s.expect.empty()) {
      cells.emplace_back(s.algorithm, nullptr);
    } else {
      for (const auto& [label, x] : s.expect) cells.emplace_back(label, &x);
    }
    for (const auto& [name, x] : cells) {
      RunOptions o = base;
      if (x != nullptr) {
        o.label = name;
      } else {
        o.algorithm = name;
      }
      // A third-party client (redis-py) on the virtual backend: not a
      // failed expectation, a run this backend cannot make.
      const AlgorithmInfo* algo = FindAlgorithm(x != nullptr ? x->algorithm : name);
      if (algo != nullptr && algo->real_only() && o.backend != Backend::kReal) {
        ++not_applicable;
        std::printf("%-30s %-30s %-8s %-26s %-26s %s\n", s.name.c_str(), name.c_str(),
                    std::string(BackendName(o.backend)).c_str(), "n/a",
                    x ? ExpectationText(*x).c_str() : "-", "not applicable on virtual");
        continue;
      }
      RunResult r = RunScenario(s, o);
      const std::optional<bool> met = r.ExpectationMet();
      const bool ok = met.value_or(!r.violated() && r.unfired.empty());
      ++runs;
      if (!ok) ++mismatches;
      std::printf("%-30s %-30s %-8s %-26s %-26s %s\n", s.name.c_str(), name.c_str(),
                  std::string(BackendName(o.backend)).c_str(), OutcomeText(r).c_str(),
                  x ? ExpectationText(*x).c_str() : "-",
                  ok ? "ok" : (met ? "NOT AS EXPECTED" : "VIOLATED"));
      for (const std::string& u : r.unfired) std::printf("  WARNING: %s\n", u.c_str());
      std::fflush(stdout);
      if (!json_path.empty()) all.push_back(ResultToJson(r, history));
    }
  }
  std::printf("%d of %d runs as expected", runs - mismatches, runs);
  if (not_applicable > 0) {
    std::printf("; %d not applicable on --backend %s", not_applicable,
                std::string(BackendName(base.backend)).c_str());
  }
  std::printf("\n");
  if (!json_path.empty()) WriteJson(json_path, all.dump(2) + "\n");
  return mismatches == 0 ? kExitSafe : kExitViolated;
}

int RunCommand(const std::vector<std::string>& args, bool suite_only) {
  CommonOptions common;
  std::vector<std::string> paths;
  std::string algorithm, label, seed, json_path, adapter, max_ops;
  bool history = false, quiet = false, help = false;
  po::options_description d(
      "locksim run PATH... [options]\n"
      "One scenario file with --algorithm (or --label, or without expectations): one run,\n"
      "in detail. Several files or a folder (or a file with an \"expect\" map): one line\n"
      "per scenario x expectation; exit 1 if any is not as expected.\n\noptions");
  d.add_options()("help,h", po::bool_switch(&help), "show this help")(
      "path", po::value(&paths), "scenario files or folders")(
      "algorithm", po::value(&algorithm), "lock algorithm id (default: the scenario's)")(
      "label", po::value(&label), "run one \"expect\" entry (its algorithm and overrides)")(
      "seed", po::value(&seed), "seed (default: the scenario's)")(
      "json", po::value(&json_path),
      "write the result JSON to PATH, or - for stdout (several runs: a JSON array)")(
      "history", po::bool_switch(&history), "include the full history in the JSON")(
      "adapter", po::value(&adapter),
      "run this program as the adapter of an adapter-driven variant (redis-py) instead "
      "of its own (docs/adapters.md)")(
      "max-ops", po::value(&max_ops),
      "stop a run once its history holds this many operations (about 150 bytes each; "
      "default 4000000, 0: no cap); the result says where it stopped")(
      "quiet,q", po::bool_switch(&quiet), "no summary");
  AddCommon(d, &common);
  po::positional_options_description pos;
  pos.add("path", -1);
  Parse(args, d, pos);
  if (help) {
    std::cout << d;
    return kExitSafe;
  }
  if (paths.empty()) throw InputError("locksim run: missing PATH (a scenario file or folder)");
  RunOptions options = ToRunOptions(common);
  if (!seed.empty()) options.seed = ParseSeed(seed);
  options.adapter = adapter;
  if (!max_ops.empty()) options.max_ops = ParseIntOption("--max-ops", max_ops, 0, INT64_MAX);
  if (!algorithm.empty() && FindAlgorithm(algorithm) == nullptr) {
    throw InputError("--algorithm: unknown algorithm \"" + algorithm + "\" (known: " +
                     AlgorithmIds() + ")");
  }
  std::vector<Scenario> scenarios;
  for (const std::string& f : ListScenarioFiles(paths, "locksim run")) scenarios.push_back(LoadScenario(f));
  std::error_code ec;
  const bool one_file = paths.size() == 1 && !std::filesystem::is_directory(paths[0], ec);
  const bool single = !suite_only && one_file &&
                      (!algorithm.empty() || !label.empty() || scenarios[0].expect.empty());
  if (!single) {
    if (!label.empty()) throw InputError("--label: needs exactly one scenario file");
    return RunSuite(scenarios, options, algorithm, json_path, history);
  }
  options.algorithm = algorithm;
  options.label = label;
  if (!adapter.empty()) {
    const auto x = scenarios[0].expect.find(label);
    const AlgorithmInfo* algo = FindAlgorithm(
        !algorithm.empty() ? algorithm : x != scenarios[0].expect.end() ? x->second.algorithm
                                                                         : scenarios[0].algorithm);
    if (algo != nullptr && !algo->real_only()) {
      throw InputError("--adapter: " + std::string(algo->id) +
                       " is not driven through an adapter (only variants such as redis-py are)");
    }
  }
  // A long run shows where it is on a terminal (wall time is read here,
  // outside the simulation, which it cannot change).
  const auto started = std::chrono::steady_clock::now();
  auto last_drawn = started;
  bool drawn = false;
  if (!quiet && isatty(STDERR_FILENO) == 1) {
    options.progress = [&](Nanos now, Nanos duration, int64_t ops) {
      const auto wall = std::chrono::steady_clock::now();
      if (wall - last_drawn < std::chrono::milliseconds(200)) return;
      if (!drawn && wall - started < std::chrono::seconds(1)) return;  // short runs: no line
      last_drawn = wall;
      drawn = true;
      std::fprintf(stderr, "\r\x1b[K%s of %s simulated, %lld history ops, %.1fs",
                   FormatDuration(now).c_str(), FormatDuration(duration).c_str(),
                   static_cast<long long>(ops),
                   std::chrono::duration<double>(wall - started).count());
      std::fflush(stderr);
    };
  }
  RunResult result = RunScenario(scenarios[0], options);
  if (drawn) std::fputs("\r\x1b[K", stderr);
  if (!json_path.empty()) WriteJson(json_path, ResultToJson(result, history).dump(2) + "\n");
  if (!quiet) PrintSummary(json_path == "-" ? std::cerr : std::cout, result);
  if (auto met = result.ExpectationMet(); met && !label.empty()) {
    return *met ? kExitSafe : kExitViolated;
  }
  return result.violated() ? kExitViolated : kExitSafe;
}

int ListCommand(const std::vector<std::string>& args) {
  bool verbose = false, help = false;
  po::options_description d("locksim list [options]");
  d.add_options()("help,h", po::bool_switch(&help), "show this help")(
      "verbose,v", po::bool_switch(&verbose), "show source, behaviour and known bug");
  po::positional_options_description pos;
  Parse(args, d, pos);
  if (help) {
    std::cout << d;
    return kExitSafe;
  }
  for (const AlgorithmInfo& a : Algorithms()) {
    if (!verbose) {
      std::printf("%-19s %s\n", std::string(a.id).c_str(), std::string(a.summary).c_str());
      continue;
    }
    std::printf("%s\n  %s\n  source: %s\n  bug: %s\n  defaults: %s\n",
                std::string(a.id).c_str(), std::string(a.summary).c_str(),
                std::string(a.source).c_str(), std::string(a.bug).c_str(),
                DescribeConfig(a.defaults).c_str());
  }
  return kExitSafe;
}

int ServeCommand(const std::vector<std::string>& args) {
  std::string bind = "127.0.0.1", port, clock_offset = "0", seed = "1";
  bool help = false;
  po::options_description d(
      "locksim serve --port P [options]\n"
      "Serves one virtual Redis node over RESP2 until SIGINT or SIGTERM (exit 0).\n"
      "Besides the node's commands it answers LOCKSIM.CLOCK GET | JUMP <ms> |\n"
      "OFFSET <ms> | HELP, which move the node clock.\n\n"
      "options");
  d.add_options()("help,h", po::bool_switch(&help), "show this help")(
      "port", po::value(&port), "TCP port; 0 picks a free one (the address is printed)")(
      "bind", po::value(&bind)->default_value("127.0.0.1"),
      "loopback address to listen on: 127.x.y.z or ::1")(
      "clock-offset", po::value(&clock_offset)->default_value("0"),
      "node clock = host wall clock + this many ms (may be negative)")(
      "seed", po::value(&seed)->default_value("1"), "seed of the active expiry sampling");
  po::positional_options_description pos;
  Parse(args, d, pos);
  if (help) {
    std::cout << d;
    return kExitSafe;
  }
  if (port.empty()) throw InputError("locksim serve: missing --port (--port 0 picks a free one)");
  ServeOptions options;
  options.bind = bind;
  options.port = static_cast<int>(ParseIntOption("--port", port, 0, 65535));
  options.clock_offset_ms =
      ParseIntOption("--clock-offset", clock_offset, -kMaxClockOffsetMs, kMaxClockOffsetMs);
  options.seed = ParseSeed(seed);
  const int signo = Serve(options, std::cout);
  // A requested stop is the normal end of a server: exit 0.
  std::fprintf(stderr, "locksim serve: stopped by SIG%s\n",
               sigabbrev_np(signo) ? sigabbrev_np(signo) : "?");
  return kExitSafe;
}

int Main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return kExitBadInput;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (command == "run") return RunCommand(args, /*suite_only=*/false);
    if (command == "check") return RunCommand(args, /*suite_only=*/true);
    if (command == "list") return ListCommand(args);
    if (command == "compare") return CompareCommand(args);
    if (command == "report") return ReportCommand(args);
    if (command == "serve") return ServeCommand(args);
    if (command == "explore") return ExploreCommand(args);
    if (command == "merge") return MergeCommand(args);
    if (command == "help" || command == "--help" || command == "-h") {
      std::fputs(kUsage, stdout);
      return kExitSafe;
    }
    std::fprintf(stderr, "locksim: unknown command \"%s\"\n\n%s", command.c_str(), kUsage);
    return kExitBadInput;
  } catch (const po::error& e) {
    std::fprintf(stderr, "locksim %s: %s\n", command.c_str(), e.what());
    return kExitBadInput;
  } catch (const InputError& e) {
    std::fprintf(stderr, "locksim: %s\n", e.what());
    return kExitBadInput;
  } catch (const Interrupted& e) {
    std::fprintf(stderr, "locksim: %s; every server it started is stopped\n", e.what());
    return 128 + e.signal;
  } catch (const HarnessError& e) {
    std::fprintf(stderr, "locksim: harness failure: %s\n", e.what());
    return kExitHarness;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "locksim: internal error: %s\n", e.what());
    return kExitHarness;
  }
}

}  // namespace
}  // namespace locksim

int main(int argc, char** argv) {
  // A write to a server that died must be an error reply, not a SIGPIPE
  // that kills the harness before it can stop its other servers.
  signal(SIGPIPE, SIG_IGN);
  return locksim::Main(argc, argv);
}
