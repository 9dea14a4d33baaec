// `locksim verify`: bounded verification of one lock under fault classes
// (sim/explore/verify.h): every placement of the faults within a bound,
// ending with a counterexample or "no violation in N distinct schedules
// within bound B".
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "sim/cli/commands.h"
#include "sim/cli/files.h"
#include "sim/cli/options.h"
#include "sim/cli/terminal.h"
#include "sim/core/errors.h"
#include "sim/explore/generate.h"
#include "sim/explore/verify.h"

namespace fs = std::filesystem;

namespace locksim {
namespace {

Nanos ParseDurationOption(const std::string& option, const std::string& text,
                          bool zero = false) {
  std::string error;
  const std::optional<Nanos> d = ParseDuration(text, &error);
  if (!d || d->count() < (zero ? 0 : 1)) {
    throw InputError(option + ": expected a " + (zero ? "" : "positive ") +
                     "duration such as 500ms or 2s, got \"" + text + "\"");
  }
  return *d;
}

}  // namespace

int VerifyCommand(const std::vector<std::string>& args) {
  std::string algorithm, faults = "pause", max_faults = "2", events = "40", max_delays = "0";
  std::string clients = "2", iterations = "1", ttl = "1s", hold, pause, delay, seed = "1";
  std::string jobs, out_dir = "verify-out", tries, start_gap = "10ms";
  bool no_cache = false, quiet = false;
  CommandLine cl(
      "locksim verify --algorithm ID --faults CLASSES [options]\n"
      "Bounded verification on the virtual Redis: runs every placement of up to\n"
      "--max-faults faults, each at one of the first --events instants of its run,\n"
      "and of up to --max-delays deviations from the default schedule at its choice\n"
      "points (a message delivered --delay late, a tie broken otherwise), depth-first,\n"
      "skipping states already seen.\n"
      "Ends with DIR/counterexample.json (shrunk; `locksim run` replays it) or with \"no\n"
      "violation in N distinct schedules within bound B\"; DIR/summary.json either way.\n"
      "docs/verify.md says what the bound promises. Exit 0: no violation within the\n"
      "bound; 1: a violation found; 2: bad input.");
  cl.Add()("algorithm", po::value(&algorithm), "lock algorithm id (locksim list)")(
      "faults", po::value(&faults)->default_value("pause"),
      "fault classes to place (comma-separated): none, pause, client-clock, node-clock, "
      "client-crash, node-crash, expire; clock and crash name their pairs, all every class "
      "verify places")(
      "max-faults", po::value(&max_faults)->default_value("2"), "K: faults per schedule")(
      "events", po::value(&events)->default_value("40"),
      "E: each fault lands at one of the first E instants of its run")(
      "max-delays", po::value(&max_delays)->default_value("0"),
      "D: deviations per schedule, each at a choice point up to the E-th instant: one "
      "message delivered --delay late, or a tie (events of one process due at once) "
      "broken for another stream than FIFO order's")(
      "delay", po::value(&delay), "how late a delayed message arrives (default: one lease)")(
      "clients", po::value(&clients)->default_value("2"), "clients A, B, ...")(
      "start-gap", po::value(&start_gap)->default_value("10ms"),
      "between one client's start and the next's (0s: together, so that their commands tie)")(
      "iterations", po::value(&iterations)->default_value("1"), "acquisitions per client")(
      "ttl", po::value(&ttl)->default_value("1s"), "the lock's lease")(
      "hold", po::value(&hold), "how long a client holds the lock (default: 80% of the lease)")(
      "tries", po::value(&tries),
      "tries per acquisition (default: the variant's own; Redlock's 4 give up within half a "
      "second)")(
      "pause", po::value(&pause), "how long a pause lasts (default: 1.5 leases)")(
      "seed", po::value(&seed)->default_value("1"),
      "the processes' own draws (tokens, retry jitter); not a choice")(
      "no-state-cache", po::bool_switch(&no_cache),
      "run every schedule of the bound, even when its state was seen")(
      "jobs", po::value(&jobs), "worker threads (default: the number of cores); the result "
      "does not depend on it")(
      "out", po::value(&out_dir)->default_value("verify-out"),
      "folder for summary.json and counterexample.json")(
      "quiet,q", po::bool_switch(&quiet), "no progress line");
  if (!cl.Parse(args)) return kExitSafe;
  if (algorithm.empty()) throw InputError("locksim verify: missing --algorithm (locksim list)");

  VerifySpec spec;
  spec.algorithm = algorithm;
  spec.faults = ParseFaultClasses(faults, "--faults");
  if (faults == "all") spec.faults = PlacedFaultClasses();  // every class verify places
  spec.max_faults = static_cast<int>(ParseIntOption("--max-faults", max_faults, 0, 8));
  spec.events = static_cast<int>(ParseIntOption("--events", events, 1, 100000));
  spec.max_delays = static_cast<int>(ParseIntOption("--max-delays", max_delays, 0, 8));
  spec.clients = static_cast<int>(ParseIntOption("--clients", clients, 1, 8));
  spec.iterations = static_cast<int>(ParseIntOption("--iterations", iterations, 1, 100));
  spec.ttl = ParseDurationOption("--ttl", ttl);
  spec.hold = hold.empty() ? spec.ttl * 4 / 5 : ParseDurationOption("--hold", hold);
  if (!pause.empty()) spec.pause = ParseDurationOption("--pause", pause);
  if (!delay.empty()) spec.delay = ParseDurationOption("--delay", delay);
  spec.start_gap = ParseDurationOption("--start-gap", start_gap, /*zero=*/true);
  if (!tries.empty()) spec.tries = static_cast<int>(ParseIntOption("--tries", tries, 1, 1000000));
  spec.seed = ParseSeedOption("--seed", seed);
  spec.state_cache = !no_cache;
  CheckVerifySpec(spec);
  const int n_jobs = jobs.empty() ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))
                                  : static_cast<int>(ParseIntOption("--jobs", jobs, 1, 1024));
  const fs::path dir = EnsureFolder(out_dir, "--out");
  std::error_code ec;
  fs::remove(dir / "counterexample.json", ec);

  ProgressLine line(quiet);
  const VerifyResult result = RunVerify(spec, n_jobs, [&](const VerifyProgress& p) {
    const double fraction =
        p.subtrees > 0 ? static_cast<double>(p.subtrees_done) / static_cast<double>(p.subtrees) : -1;
    line.Show(fraction, std::to_string(p.runs) + " schedules run, " + std::to_string(p.skipped) +
                            " skipped as seen, first choices " + std::to_string(p.subtrees_done) +
                            "/" + std::to_string(p.subtrees));
  });
  line.Clear();
  const double seconds = line.Elapsed();
  WriteFile(dir / "summary.json", VerifySummaryJson(spec, result, seconds).dump(2) + "\n",
            "--out");
  const std::string bound = BoundText(spec);
  if (result.finding) {
    const VerifyFinding& f = *result.finding;
    WriteFile(dir / "counterexample.json", f.text, "--out");
    std::printf("verify %s: %s (%s) at schedule %lld: %lld schedule(s) explored before it "
                "(%lld distinct, %lld skipped as seen), within bound: %s\n",
                algorithm.c_str(), f.verdict.c_str(), f.kind.c_str(),
                static_cast<long long>(f.ordinal), static_cast<long long>(f.ordinal - 1),
                static_cast<long long>(result.schedules), static_cast<long long>(result.skipped),
                bound.c_str());
    std::printf("wrote %s (shrunk in %d runs; locksim run %s replays it) and %s\n",
                (dir / "counterexample.json").string().c_str(), f.shrink_runs,
                (dir / "counterexample.json").string().c_str(),
                (dir / "summary.json").string().c_str());
  } else {
    std::printf("verify %s: no violation in %lld distinct schedules within bound: %s "
                "(%lld skipped as already seen)\n",
                algorithm.c_str(), static_cast<long long>(result.schedules), bound.c_str(),
                static_cast<long long>(result.skipped));
    if (result.instants > spec.events) {
      std::printf("the first %d of the fault-free run's %lld instants reach %s into it: a "
                  "fault later than that is outside the bound (raise --events)\n",
                  spec.events, static_cast<long long>(result.instants),
                  FormatDuration(result.horizon).c_str());
    } else {
      std::printf("the bound covers every instant of the fault-free run (%lld, to %s)\n",
                  static_cast<long long>(result.instants), FormatDuration(result.horizon).c_str());
    }
    std::printf("wrote %s\n", (dir / "summary.json").string().c_str());
  }
  std::fprintf(stderr, "%.3fs wall time, %d jobs\n", seconds, n_jobs);
  return result.finding ? kExitViolated : kExitSafe;
}

}  // namespace locksim
