// locksim: the command line. Each command is in its own file of sim/cli/
// (commands.h); what they share in reading options is sim/cli/options.h.
// Here: the usage, the dispatch, and the one place where errors become exit
// codes: 0 no violation (or every expectation met), 1 violations found (or
// an expectation not met), 2 bad input or usage, 3 the harness itself
// failed, 128+N stopped by signal N.
#include <signal.h>

#include <cstdio>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "sim/cli/commands.h"
#include "sim/core/crash.h"
#include "sim/core/errors.h"
#include "sim/core/interrupt.h"

namespace locksim {
namespace {

constexpr char kUsage[] =
    "usage: locksim <command> [options]\n"
    "\n"
    "commands:\n"
    "  run PATH...         run scenarios (files or folders): one file with\n"
    "                      --algorithm (or --label ENTRY) in detail; otherwise every\n"
    "                      entry of each \"expect\" map, one line each, compared with\n"
    "                      its verdict\n"
    "  check PATH...       the same as run, always one line per expectation\n"
    "  compare             every algorithm x every scenario: the matrix, and\n"
    "                      results.json, report.html, summary.md, junit.xml\n"
    "  report RESULTS.json redraw report.html (and --markdown, --junit) from\n"
    "                      a results.json\n"
    "  explore --algorithm ID  generate scenarios from seeds, shrink every\n"
    "                      violation into a scenario file, group them by kind\n"
    "  merge DIR...        combine the outputs of explore --shard i/N runs\n"
    "  verify --algorithm ID  every placement of faults within a bound: a\n"
    "                      counterexample, or no violation in N schedules\n"
    "  list                list the lock algorithms\n"
    "  serve --port P      serve one virtual Redis node over RESP2 on 127.0.0.1\n"
    "                      (redis-cli, hiredis, any client library)\n"
    "\n"
    "`locksim <command> --help` shows a command's options.\n"
    "exit codes: 0  a single run: its verdict is safe; expectation runs (run over\n"
    "               files with \"expect\", check, run --label): every expectation met;\n"
    "               compare: every cell safe and as expected; explore, merge: no\n"
    "               violation found; verify: none within the bound\n"
    "            1  otherwise: violated, deadlock or degraded; an expectation not met\n"
    "            2  bad input or usage\n"
    "            3  the harness failed\n"
    "            128+N  stopped by signal N (after stopping every server it started)\n";

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
    if (command == "verify") return VerifyCommand(args);
    if (command == "help" || command == "--help" || command == "-h") {
      std::fputs(kUsage, stdout);
      return kExitSafe;
    }
    std::fprintf(stderr, "locksim: unknown command \"%s\"\n\n%s", command.c_str(), kUsage);
    return kExitBadInput;
  } catch (const boost::program_options::error& e) {
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
  locksim::ReportCrashes(argc, argv);
  // A write to a server that died must be an error reply, not a SIGPIPE
  // that kills the harness before it can stop its other servers.
  signal(SIGPIPE, SIG_IGN);
  return locksim::Main(argc, argv);
}
