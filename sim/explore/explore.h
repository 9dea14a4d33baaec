// Exploration: scenarios generated from seeds instead of written by hand
// (sim/explore/generate.h), run on the virtual backend; a run whose verdict
// is not safe is shrunk (sim/explore/shrink.h) and becomes a finding: a
// normal scenario file with an "expect" entry that `locksim run` replays to
// the same outcome.
//
// A finding's kind is what went wrong and what it took, as
// "<tokens>--<fault classes>[--<features>]":
//   tokens    sorted: the checker's "mutual-exclusion", "foreign-write-<CMD>"
//             (a write over another holder's lock by that command),
//             "late-entry" (a client entered with its lease already gone,
//             F10), the workload's cost ("lost-update", "oversold",
//             "double-refresh", "double-run"), a rate limiter's
//             "over-limit" and "counter-without-ttl", and, when nothing
//             was violated, the liveness verdict: "deadlock" (F3, F15) or
//             "degraded" (F11);
//   classes   the fault classes left in the shrunk scenario, a pause of a
//             Redis node as "node-pause" (FaultClasses()), "no-fault" when
//             none is left;
//   features  what the shrunk scenario still needs of its shape: "reenter"
//             (a client re-entering its lock, F14), "threads".
// F1 is mutual-exclusion with a pause, F2 adds foreign-write-DEL, F4 is
// foreign-write-GETSET with a client-clock, F9 needs a node-clock, F8 a
// node-crash.
//
// Everything here is a function of (algorithm, fault classes, seed): the
// same seed gives the same finding, byte for byte, on any thread.
#ifndef LOCKSIM_SIM_EXPLORE_EXPLORE_H_
#define LOCKSIM_SIM_EXPLORE_EXPLORE_H_

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/time.h"
#include "sim/core/verdict.h"
#include "sim/explore/generate.h"

namespace locksim {

struct Finding {
  uint64_t seed = 0;
  std::string kind;                         // slug: "<tokens>--<faults>[--<features>]"
  std::string verdict;                      // "violated", "deadlock" or "degraded"
  std::vector<std::string> violations;      // sorted tokens
  std::vector<std::string> fault_classes;   // canonical order, "node-" split out
  std::string file;                         // "findings/<kind>-seed<N>.json"
  std::string text;                         // the shrunk scenario file
  // The shrunk scenario's size, for choosing the shortest of a kind.
  int64_t clients = 0;
  int64_t fault_count = 0;
  int64_t iterations = 0;  // summed over clients
  Nanos duration{0};
  // Before shrinking.
  int64_t original_clients = 0;
  int64_t original_faults = 0;
  Nanos original_duration{0};
  int shrink_runs = 0;
};

// The tokens of a run's outcome, sorted: the kind's first part (above);
// empty when the run is safe.
std::vector<std::string> Signature(const RunResult& r);
// The contract a client keeps with its lock, within which explore (and
// verify) look for violations: a lease of at least 100ms, work that takes
// at most 80% of it, a socket timeout on a link that loses messages.
bool KeepsContract(const Scenario& s);
// The kind's second part: the fault classes of a scenario document's
// faults (a pause of one of `nodes` as "node-pause").
std::vector<std::string> KindFaultClasses(const nlohmann::ordered_json& doc,
                                          const std::vector<std::string>& nodes);

// A finding's story in words: each violation described, the workload's
// broken invariant, or the liveness verdict ("; " between them).
std::string FindingStory(const RunResult& result);
// The "expect" entry that makes a finding's file replay to `result`'s
// outcome: verdict, kinds, overlaps, invariant, and `note`.
nlohmann::ordered_json FindingExpect(const RunResult& result, const std::string& note);

// What one seed's run gave, before any shrinking: its verdict and its
// tokens (the kind's first part; empty when safe).
struct SeedOutcome {
  Verdict verdict = Verdict::kSafe;
  std::vector<std::string> tokens;
};
// `script_states`: RunOptions::script_states for the seed's runs (a
// thread's own pool, or null).
SeedOutcome ProbeSeed(const ExploreSpec& spec, uint64_t seed,
                      ScriptStatePool* script_states = nullptr);

// Orders findings of one kind: shorter duration first, then fewer clients
// and faults, fewer iterations, lower seed.
bool Shorter(const Finding& a, const Finding& b);

// What became of a seed on real servers that gave no finding although it
// might have.
struct SeedNote {
  // The real backend cannot carry out the generated scenario (a feature it
  // lacks, such as replicas with persistence): the seed is skipped.
  bool unrunnable = false;
  // It was violated once, but a real run of it (again, shrunk, or the
  // saved file replayed) did not show the same kind: not kept.
  bool unconfirmed = false;
};

// Generates, runs and (on a violation) shrinks one seed. On the virtual
// Redis, throws HarnessError if the saved file does not replay to the same
// violation (it always should: runs are deterministic). On real servers
// (spec.backend), nothing is byte-identical: the shrinking has a small
// budget of runs, and a finding is kept only if its saved file, replayed
// there, shows the same kind; otherwise *note says why there is none.
// `script_states` as for ProbeSeed.
std::optional<Finding> ExploreSeed(const ExploreSpec& spec, uint64_t seed,
                                   SeedNote* note = nullptr,
                                   ScriptStatePool* script_states = nullptr);

// Which seeds a run covers: first, first+1, ..., first+count-1, and of those
// the shard's share (seed - first ≡ shard_index mod shard_count).
struct SeedPlan {
  uint64_t first = 1;
  uint64_t count = 0;  // 0 with a time limit: until keep_going() says stop
  int64_t shard_index = 0;
  int64_t shard_count = 1;
};

struct ExploreResult {
  ExploreSpec spec;
  SeedPlan plan;
  uint64_t last = 0;     // the last seed of the range covered
  int64_t runs = 0;      // seeds run (this shard's share of first..last)
  int64_t violating = 0;  // seeds with a violation
  int64_t unrunnable = 0;   // real: seeds the backend could not run (SeedNote)
  int64_t unconfirmed = 0;  // real: violations not kept (SeedNote)
  // By seed; empty when RunExplore handed them to a FindingSink's
  // `in_order` instead.
  std::vector<Finding> findings;
};

struct ExploreProgress {
  int64_t done = 0;
  int64_t violations = 0;
  std::optional<uint64_t> first_violation_seed;  // the first found, in time
};

// Runs the plan on `jobs` threads. With a count, every seed of the range
// (the shard's share); without, seeds in order until keep_going() returns
// false, and the range covered is first..the last seed started (all of
// them finished). `progress` is called from the workers under a lock after
// each seed. Findings are sorted by seed: the result does not depend on
// `jobs`.
//
// With a sink's `in_order`, each finding goes to it as soon as every lower
// seed is done (so in seed order, whatever `jobs` is) and is not kept:
// memory stays flat however many seeds a sweep runs (a sink writes it out,
// see SummaryWriter).
struct FindingSink {
  // Called on the worker's own thread as soon as its seed's finding is
  // known, outside the workers' lock: several workers may be in it at once,
  // and seeds come in any order. For the work that does not depend on the
  // order (a finding's own file), which a worker would otherwise do while
  // the others wait for the lock.
  std::function<void(const Finding&)> at_once;
  // Called under the lock, in seed order, after `at_once`.
  std::function<void(Finding&&)> in_order;
};
ExploreResult RunExplore(const ExploreSpec& spec, const SeedPlan& plan, int jobs,
                         const std::function<bool()>& keep_going,
                         const std::function<void(const ExploreProgress&)>& progress,
                         const FindingSink& sink = {});

// The kinds of a sweep's findings, tallied as they come: per kind its
// count and its shortest finding. Memory: the kinds, not the findings (a
// kind's seeds are its caller's to keep: SummaryWriter spools them).
class KindTallies {
 public:
  // Returns the number of f's kind: 0, 1, ... in the order kinds first come.
  int Add(const Finding& f);
  // A kind's number and count.
  struct Ref {
    int number;
    int64_t count;
  };
  // summary.json's "kinds": most frequent first, then by name, each with an
  // empty "seeds" (its last member) for the caller to fill in. With
  // `order`, also each kind's number and count, in that order.
  nlohmann::ordered_json Json(std::vector<Ref>* order = nullptr) const;

 private:
  struct Tally {
    int number = 0;
    std::vector<std::string> violations;
    std::vector<std::string> faults;
    Finding shortest;  // without its text
    int64_t count = 0;
  };
  std::map<std::string, Tally> by_kind_;
};

// summary.json: the arguments, the seed range, the kinds with counts and
// the shortest counterexample of each, and every finding. Shard runs also
// name their shard; nothing depends on wall time or --jobs.
nlohmann::ordered_json SummaryJson(const ExploreResult& result);

// Writes a sweep's output as its findings come: each finding's scenario
// file (WriteFile: in any order, from any thread), its entry (Record: in
// seed order, one thread at a time), and summary.json at the end, with the
// findings' entries and each kind's seeds kept in two spool files of DIR
// meanwhile, so that memory does not grow with the number of findings
// (only with the number of kinds). The same bytes as writing SummaryJson
// of the whole result.
class SummaryWriter {
 public:
  // `dir` and dir/findings exist.
  explicit SummaryWriter(std::string dir);
  ~SummaryWriter();
  SummaryWriter(const SummaryWriter&) = delete;
  SummaryWriter& operator=(const SummaryWriter&) = delete;

  // Writes the finding's scenario file (`text`) and records it: WriteFile,
  // then Record. Throws InputError naming a file that cannot be written.
  void Add(const Finding& f, const std::string& text);
  // The finding's scenario file alone. It touches nothing but that file, so
  // several threads may write their findings' files at once.
  void WriteFile(const Finding& f, const std::string& text) const;
  // The finding in summary.json (its entry, its kind's tally and seed),
  // without its file: in seed order, one thread at a time.
  void Record(const Finding& f);
  // Writes summary.json for `result` (its spec, plan, range and runs).
  void Finish(const ExploreResult& result);
  const KindTallies& kinds() const { return kinds_; }
  int64_t findings() const { return count_; }

 private:
  std::string dir_;
  std::string spool_path_;
  std::FILE* spool_ = nullptr;
  // A record per finding: its seed and its kind's number (KindTallies).
  std::string seeds_path_;
  std::FILE* seeds_ = nullptr;
  KindTallies kinds_;
  int64_t count_ = 0;
};
// The inverse, for `locksim merge` (finding texts are not in the summary:
// text stays empty). Throws InputError naming `file` and the JSON path.
ExploreResult ParseSummary(const std::string& text, const std::string& file);

}  // namespace locksim

#endif  // LOCKSIM_SIM_EXPLORE_EXPLORE_H_
