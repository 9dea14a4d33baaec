// `locksim explore` (search: a scenario per seed, every violation shrunk
// into a file) and `locksim merge` (the shards of one sweep into one).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "lockimpls/lock.h"
#include "sim/cli/commands.h"
#include "sim/cli/files.h"
#include "sim/cli/options.h"
#include "sim/cli/terminal.h"
#include "sim/core/errors.h"
#include "sim/explore/explore.h"

namespace fs = std::filesystem;

namespace locksim {
namespace {

// "i/N", 0 <= i < N: Slurm's SLURM_ARRAY_TASK_ID and Kubernetes'
// JOB_COMPLETION_INDEX both count from 0.
void ParseShard(const std::string& text, SeedPlan* plan) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos) {
    throw InputError("--shard: expected i/N with 0 <= i < N, got \"" + text + "\"");
  }
  plan->shard_count = ParseIntOption("--shard", text.substr(slash + 1), 1, 1000000);
  plan->shard_index = ParseIntOption("--shard", text.substr(0, slash), 0, plan->shard_count - 1);
}

// DIR and DIR/findings, without the findings of an earlier run (files
// named as explore names them; nothing else is touched).
fs::path PrepareOut(const std::string& out_dir) {
  if (out_dir.empty()) throw InputError("--out: empty folder name");
  const fs::path dir(out_dir);
  EnsureFolder((dir / "findings").string(), "--out");
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir / "findings")) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.find("-seed") != std::string::npos &&
        name.ends_with(".json")) {
      fs::remove(e.path(), ec);
    }
  }
  return dir;
}

// The table on stdout: one line per kind, its count and shortest file.
void PrintKinds(const ExploreResult& r, const KindTallies& kinds, const fs::path& dir) {
  nlohmann::ordered_json summary;
  summary["kinds"] = kinds.Json();
  std::cout << "explore " << r.spec.algorithm << ", faults "
            << (r.spec.faults.empty() ? std::string("none") : [&] {
                 std::string s;
                 for (const std::string& f : r.spec.faults) s += (s.empty() ? "" : ",") + f;
                 return s;
               }())
            << ": seeds " << r.plan.first << "-" << r.last;
  if (r.plan.shard_count > 1) {
    std::cout << " (shard " << r.plan.shard_index << "/" << r.plan.shard_count << ")";
  }
  std::cout << ", " << r.runs << " runs, " << r.violating << " with a finding\n";
  // The most frequent kinds; the rest are in summary.json.
  constexpr size_t kShown = 12;
  const size_t more = summary["kinds"].size() > kShown ? summary["kinds"].size() - kShown : 0;
  if (more > 0) summary["kinds"].erase(summary["kinds"].begin() + kShown, summary["kinds"].end());
  int width = 4;
  for (const auto& k : summary["kinds"]) {
    width = std::max(width, static_cast<int>(k["kind"].get<std::string>().size()));
  }
  if (!summary["kinds"].empty()) std::printf("  count  %-*s  shortest counterexample\n", width, "kind");
  for (const auto& k : summary["kinds"]) {
    const auto& s = k["shortest"];
    const int64_t clients = s["clients"].get<int64_t>(), faults = s["faults"].get<int64_t>();
    std::printf("  %5lld  %-*s  %s (%lld client%s, %lld fault%s, %s)\n",
                static_cast<long long>(k["count"].get<int64_t>()), width,
                k["kind"].get<std::string>().c_str(),
                (dir / s["file"].get<std::string>()).string().c_str(),
                static_cast<long long>(clients), clients == 1 ? "" : "s",
                static_cast<long long>(faults), faults == 1 ? "" : "s",
                s["duration"].get<std::string>().c_str());
  }
  if (more > 0) std::printf("  ... and %zu more kind(s) in summary.json\n", more);
  std::fflush(stdout);
  std::cout << "wrote " << (dir / "summary.json").string() << " and " << r.violating
            << " file(s) in " << (dir / "findings").string() << "\n";
}

// The progress line of a sweep: seeds done (of how many, or of how long),
// their rate, the violations so far.
void ShowProgress(ProgressLine& line, const ExploreProgress& p, int64_t total, double time_limit) {
  const double elapsed = line.Elapsed();
  const double fraction = total > 0        ? static_cast<double>(p.done) / total
                          : time_limit > 0 ? std::min(1.0, elapsed / time_limit)
                                           : -1;
  char text[160];
  std::snprintf(text, sizeof text, "%lld%s seeds  %.0f seeds/s  %lld violations  %.1fs",
                static_cast<long long>(p.done),
                total > 0 ? ("/" + std::to_string(total)).c_str() : "",
                elapsed > 0 ? p.done / elapsed : 0.0, static_cast<long long>(p.violations),
                elapsed);
  line.Show(fraction, text, p.done == total);
}

}  // namespace

int ExploreCommand(const std::vector<std::string>& args) {
  std::string algorithm, faults = "all", seeds, time_limit, first_seed = "1", jobs, shard;
  std::string out_dir = "explore-out";
  bool quiet = false;
  CommandLine cl(
      "locksim explore --algorithm ID [options]\n"
      "Generates a scenario per seed (clients, timings, a counter workload and random\n"
      "faults of the classes asked for), runs it on the virtual Redis (or, with --backend\n"
      "real, on real redis-server processes, one seed at a time), and shrinks every\n"
      "violation into DIR/findings/<kind>-seed<N>.json, a scenario `locksim run` replays.\n"
      "DIR/summary.json groups the findings by kind. Exit 0: no violation; 1: some.");
  cl.Add()("algorithm", po::value(&algorithm), "lock algorithm id (locksim list)")(
      "faults", po::value(&faults)->default_value("all"),
      "fault classes to generate (comma-separated): none, pause, client-clock, node-clock, "
      "client-crash, node-crash, failover, partition, delay-drop, expire; clock, crash, delay "
      "and drop name their pairs; all names every class")(
      "seeds", po::value(&seeds), "how many seeds: first-seed .. first-seed+N-1 (default 100)")(
      "time", po::value(&time_limit),
      "instead of --seeds: start seeds for this many wall-clock seconds (not reproducible "
      "in the number of seeds; the range covered is printed)")(
      "first-seed", po::value(&first_seed)->default_value("1"), "the first seed")(
      "jobs", po::value(&jobs), "worker threads (default: the number of cores); the output "
      "does not depend on it")(
      "shard", po::value(&shard), "i/N: run only seeds with (seed - first) mod N = i "
      "(0 <= i < N); combine with locksim merge")(
      "out", po::value(&out_dir)->default_value("explore-out"),
      "folder for summary.json and findings/")(
      "quiet,q", po::bool_switch(&quiet), "no table, no progress line");
  BackendOptions backend;
  backend.AddTo(cl);
  if (!cl.Parse(args)) return kExitSafe;
  if (algorithm.empty()) throw InputError("locksim explore: missing --algorithm (locksim list)");
  const RunOptions where = backend.ToRunOptions();
  const bool real = where.backend == Backend::kReal;
  if (!real && where.time_scale) {
    throw InputError("--time-scale: explore scales real runs only (give --backend real); on the "
                     "virtual Redis time costs nothing");
  }
  if (real && !jobs.empty() && jobs != "1") {
    throw InputError("--jobs: explore on real servers runs one seed at a time (side by side, "
                     "their wall-clock timings would disturb each other)");
  }
  const ExploreSpec spec = MakeExploreSpec(algorithm, ParseFaultClasses(faults, "--faults"), where);
  SeedPlan plan;
  plan.first = static_cast<uint64_t>(
      ParseIntOption("--first-seed", first_seed, 0, INT64_MAX / 2));
  if (!seeds.empty() && !time_limit.empty()) {
    throw InputError("--time: give either --seeds or --time, not both");
  }
  double limit = 0;
  if (!time_limit.empty()) {
    limit = static_cast<double>(ParseIntOption("--time", time_limit, 1, 366 * 24 * 3600));
  } else {
    plan.count = static_cast<uint64_t>(
        ParseIntOption("--seeds", seeds.empty() ? "100" : seeds, 1, 100000000));
  }
  if (!shard.empty()) {
    ParseShard(shard, &plan);
    if (plan.count == 0) {
      throw InputError("--shard: needs --seeds (a --time run covers a range nobody can "
                       "predict, so shards could not be merged)");
    }
  }
  const int n_jobs = real           ? 1
                     : jobs.empty() ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))
                                    : static_cast<int>(ParseIntOption("--jobs", jobs, 1, 1024));
  const fs::path dir = PrepareOut(out_dir);

  const int64_t shard_total =
      plan.count == 0 ? 0
      : static_cast<int64_t>(plan.count) > plan.shard_index
          ? (static_cast<int64_t>(plan.count) - plan.shard_index + plan.shard_count - 1) /
                plan.shard_count
          : 0;
  ProgressLine progress(quiet);
  // Wall time, for the person at the terminal and --time only: nothing
  // written to DIR depends on it.
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(limit * 1000));
  std::optional<double> first_violation;
  uint64_t first_seed_found = 0;
  // Each finding is written as it comes, so memory stays flat however
  // long the sweep: its file at once, by the worker that found it (not
  // while the other workers wait for their lock: a file's creation is
  // dear on some disks), its entry in summary.json in seed order.
  SummaryWriter writer(dir.string());
  const ExploreResult result = RunExplore(
      spec, plan, n_jobs, [&] { return std::chrono::steady_clock::now() < deadline; },
      [&](const ExploreProgress& p) {
        if (!first_violation && p.first_violation_seed) {
          first_violation = progress.Elapsed();
          first_seed_found = *p.first_violation_seed;
        }
        ShowProgress(progress, p, shard_total, limit);
      },
      FindingSink{[&](const Finding& f) { writer.WriteFile(f, f.text); },
                  [&](Finding&& f) { writer.Record(f); }});
  progress.Clear();
  writer.Finish(result);

  if (quiet) return result.violating == 0 ? kExitSafe : kExitViolated;  // real: counts in summary.json
  PrintKinds(result, writer.kinds(), dir);
  std::cout << std::flush;
  // Wall time: on stderr only, never in DIR.
  const double elapsed = progress.Elapsed();
  if (first_violation) {
    std::fprintf(stderr, "first finding after %.3fs wall time (seed %llu)\n",
                 *first_violation, static_cast<unsigned long long>(first_seed_found));
  }
  std::fprintf(stderr, "%lld seeds in %.3fs wall time (%.0f seeds/s, %d jobs)\n",
               static_cast<long long>(result.runs), elapsed,
               elapsed > 0 ? result.runs / elapsed : 0.0, n_jobs);
  if (real) {
    // What real servers cost, and what a search there did not keep.
    std::fprintf(stderr,
                 "on real servers: %.1fs a seed (shrinking included); %lld seed(s) the real "
                 "backend cannot run, skipped; %lld violation(s) not kept because a real run "
                 "of it (again, shrunk, or its file replayed) did not show the same kind\n",
                 result.runs > 0 ? elapsed / result.runs : 0.0,
                 static_cast<long long>(result.unrunnable),
                 static_cast<long long>(result.unconfirmed));
  }
  if (plan.count == 0) {
    std::fprintf(stderr,
                 "--time covered seeds %llu-%llu; to run them again: --first-seed %llu --seeds %llu\n",
                 static_cast<unsigned long long>(plan.first),
                 static_cast<unsigned long long>(result.last),
                 static_cast<unsigned long long>(plan.first),
                 static_cast<unsigned long long>(result.last + 1 - plan.first));
  }
  return result.violating == 0 ? kExitSafe : kExitViolated;
}

int MergeCommand(const std::vector<std::string>& args) {
  std::vector<std::string> inputs;
  std::string out_dir = "explore-out";
  bool quiet = false;
  CommandLine cl(
      "locksim merge DIR... [options]\n"
      "Combines the outputs of the shards of one explore sweep (--shard 0/N .. N-1/N,\n"
      "same --algorithm, --faults and seeds) into the output an unsharded run writes.\n"
      "Exit 0: no violation; 1: some.");
  cl.Add()("dir", po::value(&inputs), "shard output folders")(
      "out", po::value(&out_dir)->default_value("explore-out"), "folder for the merged output")(
      "quiet,q", po::bool_switch(&quiet), "no table");
  cl.Positional("dir", -1);
  if (!cl.Parse(args)) return kExitSafe;
  if (inputs.empty()) throw InputError("locksim merge: missing DIR (explore output folders)");

  ExploreResult merged;
  std::set<int64_t> shards_seen;
  std::map<std::string, std::string> texts;  // findings file -> content
  for (size_t i = 0; i < inputs.size(); ++i) {
    const fs::path in(inputs[i]);
    const std::string summary_path = (in / "summary.json").string();
    const ExploreResult part = ParseSummary(ReadFile(summary_path), summary_path);
    if (i == 0) {
      merged.spec = part.spec;
      merged.plan = part.plan;
      merged.last = part.last;
    } else if (part.spec.algorithm != merged.spec.algorithm ||
               part.spec.faults != merged.spec.faults || part.plan.first != merged.plan.first ||
               part.last != merged.last || part.plan.shard_count != merged.plan.shard_count) {
      throw InputError(summary_path + ": not a shard of the same sweep as " + inputs[0] +
                       " (algorithm, faults, seed range and shard count must match)");
    }
    if (!shards_seen.insert(part.plan.shard_index).second) {
      throw InputError(summary_path + ": shard " + std::to_string(part.plan.shard_index) + "/" +
                       std::to_string(part.plan.shard_count) + " given twice");
    }
    merged.runs += part.runs;
    for (const Finding& f : part.findings) {
      texts[f.file] = ReadFile(in / f.file);
      merged.findings.push_back(f);
    }
  }
  if (static_cast<int64_t>(shards_seen.size()) != merged.plan.shard_count) {
    std::string missing;
    for (int64_t s = 0; s < merged.plan.shard_count; ++s) {
      if (!shards_seen.contains(s)) missing += (missing.empty() ? "" : ", ") + std::to_string(s);
    }
    throw InputError("locksim merge: shard(s) " + missing + " of " +
                     std::to_string(merged.plan.shard_count) + " missing");
  }
  merged.plan.shard_index = 0;
  merged.plan.shard_count = 1;
  std::sort(merged.findings.begin(), merged.findings.end(),
            [](const Finding& a, const Finding& b) { return a.seed < b.seed; });
  const fs::path dir = PrepareOut(out_dir);
  SummaryWriter writer(dir.string());
  for (const Finding& f : merged.findings) writer.Add(f, texts.at(f.file));
  merged.violating = static_cast<int64_t>(merged.findings.size());
  writer.Finish(merged);
  if (!quiet) PrintKinds(merged, writer.kinds(), dir);
  return merged.findings.empty() ? kExitSafe : kExitViolated;
}

}  // namespace locksim
