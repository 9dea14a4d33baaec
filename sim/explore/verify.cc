#include "sim/explore/verify.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

#include "lockimpls/lock.h"
#include "sim/core/errors.h"
#include "sim/core/text.h"
#include "sim/explore/explore.h"
#include "sim/explore/generate.h"
#include "sim/explore/shrink.h"
#include "sim/run/runner.h"
#include "sim/scenario/scenario.h"

namespace locksim {
namespace {

using ojson = nlohmann::ordered_json;
using std::chrono::milliseconds;

constexpr int kShrinkBudget = 600;
constexpr Nanos kLatency = std::chrono::microseconds(200);
constexpr Nanos kNodeRestart = milliseconds(10);
// The classes verify places (verify.h), in generate.h's canonical order.
const std::vector<std::string> kPlaced = {"none",         "pause",      "client-clock",
                                          "node-clock",   "client-crash", "node-crash",
                                          "expire"};

Nanos PauseOf(const VerifySpec& s) { return s.pause.count() > 0 ? s.pause : s.ttl * 3 / 2; }
Nanos DelayOf(const VerifySpec& s) { return s.delay.count() > 0 ? s.delay : s.ttl; }
int NodesOf(const VerifySpec& s) { return s.algorithm == "redlock" ? 3 : 1; }
// The longest the bound's faults can hold the lock up: each fault as long
// as the longest one of the classes placed (a pause; a clock step of two
// leases, which keeps a key or a timestamp that much longer; a node's
// restart), and each delay. The deadlock verdict allows for it, as
// explore's allows for its longest outage.
Nanos Outages(const VerifySpec& s) {
  Nanos longest{0};
  for (const std::string& c : s.faults) {
    if (c == "pause") longest = std::max(longest, PauseOf(s));
    if (c == "client-clock" || c == "node-clock") longest = std::max(longest, 2 * s.ttl);
    if (c == "node-crash") longest = std::max(longest, kNodeRestart);
  }
  return longest * s.max_faults + DelayOf(s) * s.max_delays;
}
Nanos DeadlockAfter(const VerifySpec& s) { return s.ttl + std::chrono::seconds(1) + Outages(s); }
// Long enough for every client's every iteration, one after another, each
// waiting out a lease, plus the outages and the deadlock verdict's wait:
// a run that has not finished by then is stuck, not cut short. RunVerify
// checks that the run without faults finishes well before it.
Nanos DurationOf(const VerifySpec& s) {
  const Nanos work = (s.hold + s.ttl + s.retry_delay) * s.clients * s.iterations +
                     s.start_gap * s.clients;
  return std::max<Nanos>(std::chrono::minutes(1), 2 * (work + DeadlockAfter(s)));
}
bool Placing(const VerifySpec& s) {
  return std::any_of(s.faults.begin(), s.faults.end(), [](const std::string& c) { return c != "none"; });
}

std::vector<std::string> Masters(const VerifySpec& s) {
  std::vector<std::string> out;
  for (int i = 0; i < NodesOf(s); ++i) out.push_back("redis" + std::to_string(i));
  return out;
}

std::vector<std::string> ClientNames(const VerifySpec& s) {
  std::vector<std::string> out;
  for (int i = 0; i < s.clients; ++i) out.push_back(std::string(1, char('A' + i)));
  return out;
}

std::string Plural(int64_t n, const std::string& what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

// One choice: a fault placed at an instant, or a deviation from the
// default schedule at a choice point (sim/world/chooser.h). `text` is the
// fault without its time, or the deviation's entry: with `at` and, for a
// deviation, its point, what orders the choices.
struct Choice {
  Nanos at{0};
  bool deviation = false;
  int64_t point = 0;
  std::string text;
  ojson entry;  // the scenario's "faults" or "choices" entry
};

// At one instant the faults go before the deviations, and deviations go
// in the order of their points. A choice changes the run only from its
// time on (a fault) or after its point (a deviation), and a deviation means
// "point N" of the run: so a later choice must not be able to renumber an
// earlier deviation's point. A fault at a later instant, or a deviation at
// a later point, cannot; a fault at the same instant could (it may act
// before some of that instant's points), which is why faults go first.
bool Before(const Choice& a, const Choice& b) {
  if (a.at != b.at) return a.at < b.at;
  if (a.deviation != b.deviation) return b.deviation;
  if (a.point != b.point) return a.point < b.point;
  return a.text < b.text;
}

// Whether `c` may come after `last` in a schedule (the order above): one
// deviation per point, so at the same point no second option.
bool MayFollow(const Choice& last, const Choice& c) {
  if (last.deviation && c.deviation) return last.point < c.point;
  return Before(last, c);
}

Choice Deviate(const ChoicePoint& p, ojson what) {
  Choice c;
  c.at = p.at;
  c.deviation = true;
  c.point = p.point;
  c.text = what.dump();
  c.entry = {{"point", p.point}, {"at", FormatDuration(p.at)}};
  for (const auto& [k, v] : what.items()) c.entry[k] = v;
  return c;
}

Choice Place(ojson variant, Nanos at) {
  Choice c;
  c.at = at;
  c.text = variant.dump();
  ojson fault;
  fault["type"] = variant["type"];
  fault["at"] = FormatDuration(at);
  for (const auto& [k, v] : variant.items()) {
    if (k != "type") fault[k] = v;
  }
  c.entry = std::move(fault);
  return c;
}

// A run's first `events` instants at which a client acted: for each, the
// clients acting there. `total`: how many such instants the whole run had.
struct Acting {
  std::set<int> acting;  // clients with an event there
};
std::map<Nanos, Acting> InstantsOf(const VerifySpec& spec, const RunResult& run,
                                   int64_t* total = nullptr) {
  const History& h = run.history;
  std::vector<int> client_actor;  // by client index: its main actor
  for (const std::string& c : ClientNames(spec)) client_actor.push_back(h.Find(c));
  std::map<Nanos, Acting> instants;
  std::set<Nanos> all;
  for (const Op& op : h.ops()) {
    const auto client = std::find(client_actor.begin(), client_actor.end(), h.owner(op.actor));
    if (client == client_actor.end()) continue;  // the nemesis, a node
    if (total != nullptr) all.insert(op.time);
    if (instants.size() == static_cast<size_t>(spec.events) && !instants.contains(op.time)) continue;
    Acting& at = instants[op.time];
    const int i = static_cast<int>(client - client_actor.begin());
    at.acting.insert(i);
  }
  if (total != nullptr) *total = static_cast<int64_t>(all.size());
  return instants;
}

// What a run offers the next choice: at each of its first `events`
// instants, the faults that can land there (verify.h), in order.
std::vector<Choice> ChoicesOf(const VerifySpec& spec, const RunResult& run, bool faults_left,
                              bool delays_left) {
  const std::vector<std::string> clients = ClientNames(spec);
  const std::vector<std::string> masters = Masters(spec);
  const std::map<Nanos, Acting> instants = InstantsOf(spec, run);
  const std::string two_leases = FormatDuration(spec.ttl * 2);
  std::vector<Choice> out;
  for (const auto& [at, who] : instants) {
    const std::set<int>& acting = who.acting;
    if (faults_left) {
      for (const std::string& cls : spec.faults) {
        if (cls == "pause" || cls == "client-clock" || cls == "client-crash") {
          for (int i : acting) {
            const std::string& name = clients[static_cast<size_t>(i)];
            if (cls == "pause") {
              out.push_back(Place({{"type", "pause"}, {"process", name},
                                   {"duration", FormatDuration(PauseOf(spec))}}, at));
            } else if (cls == "client-clock") {
              for (const char* sign : {"+", "-"}) {
                out.push_back(Place({{"type", "clock"}, {"process", name},
                                     {"jump", sign + two_leases}}, at));
              }
            } else {
              out.push_back(Place({{"type", "crash"}, {"process", name}}, at));
            }
          }
        } else if (cls == "node-clock") {
          for (const std::string& m : masters) {
            out.push_back(Place({{"type", "clock"}, {"process", m}, {"jump", "+" + two_leases}},
                                at));
          }
        } else if (cls == "node-crash") {
          for (const std::string& m : masters) {
            out.push_back(Place({{"type", "crash"}, {"process", m},
                                 {"restart_after", FormatDuration(kNodeRestart)}}, at));
          }
        } else if (cls == "expire") {
          out.push_back(Place({{"type", "expire"}}, at));
        }
      }
    }
  }
  // Deviations: at each choice point up to the last of those instants, a
  // message delivered `delay` late, or a tie broken for each other stream.
  if (delays_left && !instants.empty()) {
    const Nanos horizon = instants.rbegin()->first;
    for (const ChoicePoint& p : run.choice_points) {
      if (p.at > horizon) break;
      if (!p.tie) {
        out.push_back(Deviate(p, {{"message", p.message}, {"delay", FormatDuration(DelayOf(spec))}}));
        continue;
      }
      for (size_t k = 1; k < p.among.size(); ++k) {
        out.push_back(Deviate(p, {{"among", p.among}, {"first", p.among[k]}}));
      }
    }
  }
  std::sort(out.begin(), out.end(), Before);
  return out;
}

// The state a run leaves (verify.h): the text of its whole history.
std::string StateText(const RunResult& run) {
  const History& h = run.history;
  std::string text;
  for (const Op& op : h.ops()) {
    text += std::to_string(op.time.count());
    text += ' ';
    text += std::to_string(op.actor);
    text += ' ';
    text += OpTypeName(op.type);
    text += ' ';
    text += OpFName(op.f);
    text += ' ';
    text += h.ValueText(op);
    text += '\n';
  }
  // And the choice points it met: the same history with a different count
  // of them numbers the next deviations differently.
  for (const ChoicePoint& p : run.choice_points) {
    text += std::to_string(p.at.count());
    text += p.tie ? " tie" : " message ";
    text += p.message;
    for (const std::string& s : p.among) text += ' ' + s;
    // And what was taken there: a delay that shows nowhere else (a message
    // still in flight) is state all the same.
    text += " +" + std::to_string(p.added.count()) + " #" + std::to_string(p.picked);
    text += '\n';
  }
  return text;
}

RunOptions VerifyRunOptions(const VerifySpec& spec) {
  RunOptions o;
  o.algorithm = spec.algorithm;
  // Without deviations to make, no chooser: the path of every other run.
  o.record_choices = spec.max_delays > 0;
  o.explain = false;  // a schedule's verdict and kinds are all it keeps
  return o;
}

ojson FaultsOf(const std::vector<Choice>& choices) {
  ojson faults = ojson::array();
  for (const Choice& c : choices) {
    if (!c.deviation) faults.push_back(c.entry);
  }
  return faults;
}

// The deviations, by point (the order a scenario's "choices" needs).
ojson DeviationsOf(const std::vector<Choice>& choices) {
  std::vector<const Choice*> out;
  for (const Choice& c : choices) {
    if (c.deviation) out.push_back(&c);
  }
  std::sort(out.begin(), out.end(), [](const Choice* a, const Choice* b) { return a->point < b->point; });
  ojson list = ojson::array();
  for (const Choice* c : out) list.push_back(c->entry);
  return list;
}

ojson DocOf(const VerifySpec& spec, const std::vector<Choice>& choices) {
  return VerifyScenario(spec, FaultsOf(choices), DeviationsOf(choices));
}

// `script_states`: RunOptions::script_states (a worker thread's pool, or null).
RunResult RunSchedule(const VerifySpec& spec, const std::vector<Choice>& choices,
                      ScriptStatePool* script_states = nullptr) {
  const ojson doc = DocOf(spec, choices);
  Scenario s;
  try {
    s = ParseScenarioDoc(doc, "verify-" + spec.algorithm);
  } catch (const InputError& e) {
    throw HarnessError("verify: a schedule the parser refuses: " + std::string(e.what()));
  }
  RunOptions options = VerifyRunOptions(spec);
  options.script_states = script_states;
  return RunScenario(s, options);
}

bool Unsafe(const RunResult& r) { return r.verdict() != Verdict::kSafe; }

// A schedule: its choices in order, and what is left of the bound.
struct Node {
  std::vector<Choice> choices;
  int faults_left = 0;
  int delays_left = 0;
};


// A schedule's children: its next choice, no earlier than its last one.
std::vector<Choice> Children(const VerifySpec& spec, const Node& node, const RunResult& run) {
  std::vector<Choice> out;
  if (node.faults_left == 0 && node.delays_left == 0) return out;
  for (Choice& c : ChoicesOf(spec, run, node.faults_left > 0, node.delays_left > 0)) {
    if (!node.choices.empty() && !MayFollow(node.choices.back(), c)) continue;
    out.push_back(std::move(c));
  }
  return out;
}

// The states one subtree has seen (verify.h).
class SeenStates {
 public:
  SeenStates(bool on, std::function<uint64_t(const std::string&)> hash)
      : on_(on), hash_(std::move(hash)) {
    if (!hash_) hash_ = [](const std::string& s) { return std::hash<std::string>{}(s); };
  }
  // Whether a state seen before covers this one; if not, records it.
  bool Covered(std::string text, const Node& node) {
    if (!on_) return false;
    Entry mine{std::move(text), node.faults_left, node.delays_left,
               node.choices.empty() ? std::nullopt : std::optional<Choice>(node.choices.back())};
    std::vector<Entry>& bucket = by_hash_[hash_(mine.text)];
    for (const Entry& e : bucket) {
      if (e.text != mine.text) continue;  // a collision: a different state
      // Its next choice's lower bound no later than mine: it had every
      // child I have.
      const bool lower = !e.after || (mine.after && !Before(*mine.after, *e.after));
      if (e.faults_left >= mine.faults_left && e.delays_left >= mine.delays_left && lower) {
        return true;
      }
    }
    bucket.push_back(std::move(mine));
    return false;
  }

 private:
  struct Entry {
    std::string text;
    int faults_left;
    int delays_left;
    std::optional<Choice> after;  // the lower bound of its next choice (none: any)
  };
  bool on_;
  std::function<uint64_t(const std::string&)> hash_;
  std::unordered_map<uint64_t, std::vector<Entry>> by_hash_;
};

// One subtree's depth-first search.
struct SubtreeResult {
  int64_t runs = 0;
  int64_t schedules = 0;
  int64_t skipped = 0;
  std::optional<int64_t> finding_run;  // its ordinal within the subtree (1-based)
  std::vector<Choice> finding;
};

class Searcher {
 public:
  Searcher(const VerifySpec& spec, SeenStates* seen, std::function<void()> tick,
           const std::atomic<bool>* stop, ScriptStatePool* script_states)
      : spec_(spec), seen_(seen), tick_(std::move(tick)), stop_(stop),
        script_states_(script_states) {}

  // Runs `node` and, unless it is covered or its run violated, its
  // children. Returns true when a finding ends the search.
  bool Visit(const Node& node) {
    if (stop_ != nullptr && stop_->load()) return true;
    const RunResult run = RunSchedule(spec_, node.choices, script_states_);
    if (run.unapplied_choices > 0) {
      // A deviation read from the parent's run means something else in
      // this one: the order (Before) should make that impossible.
      throw HarnessError("verify: a deviation was not applied (" + run.unfired.back() +
                         "); " + VerifyCommandLine(spec_));
    }
    ++result_.runs;
    if (tick_) tick_();
    if (Unsafe(run)) {
      result_.finding_run = result_.runs;
      result_.finding = node.choices;
      return true;
    }
    if (seen_->Covered(StateText(run), node)) {
      ++result_.skipped;
      return false;
    }
    ++result_.schedules;
    for (const Choice& c : Children(spec_, node, run)) {
      Node child = node;
      child.choices.push_back(c);
      (c.deviation ? child.delays_left : child.faults_left) -= 1;
      if (Visit(child)) return true;
    }
    return false;
  }

  SubtreeResult& result() { return result_; }

 private:
  const VerifySpec& spec_;
  SeenStates* seen_;
  std::function<void()> tick_;
  const std::atomic<bool>* stop_;
  ScriptStatePool* script_states_;  // the worker thread's
  SubtreeResult result_;
};

// The finding's scenario file: shrunk, with its "expect", replayed.
VerifyFinding MakeFinding(const VerifySpec& spec, const std::vector<Choice>& choices,
                          int64_t ordinal) {
  const std::string file = "verify-" + spec.algorithm;
  auto run = [&](const ojson& doc) -> std::optional<RunResult> {
    Scenario s;
    try {
      s = ParseScenarioDoc(doc, file);
    } catch (const InputError&) {
      return std::nullopt;
    }
    if (!KeepsContract(s)) return std::nullopt;
    return RunScenario(s, VerifyRunOptions(spec));
  };
  const ojson doc = DocOf(spec, choices);
  const std::optional<RunResult> first = run(doc);
  if (!first || !Unsafe(*first)) {
    throw HarnessError("verify: the schedule that violated did not violate again");
  }
  const std::vector<std::string> signature = Signature(*first);
  auto keeps = [&](const ojson& candidate) {
    std::optional<RunResult> r = run(candidate);
    return r && r->verdict() == first->verdict() && r->unfired.empty() &&
           Signature(*r) == signature;
  };
  VerifyFinding f;
  f.ordinal = ordinal;
  f.schedule = FaultsOf(choices);
  f.deviations = DeviationsOf(choices);
  f.tokens = signature;
  ShrinkStats stats;
  const ojson small = keeps(doc) ? Shrink(doc, keeps, kShrinkBudget, &stats) : doc;
  f.shrink_runs = stats.runs;
  const RunResult result = *run(small);
  f.verdict = VerdictName(result.verdict());
  std::vector<std::string> classes = KindFaultClasses(small, result.scenario.NodeNames());
  if (small.contains("choices")) {
    for (const ojson& c : small["choices"]) {
      const std::string what = c.contains("among") ? "tie" : "delayed-message";
      if (!Has(classes, what)) classes.push_back(what);
    }
  }
  f.kind = Join(signature, "+") + "--" + (classes.empty() ? std::string("no-fault") : Join(classes, "+"));

  const std::string story = FindingStory(result);
  ojson out;
  out["name"] = "verify-" + spec.algorithm;
  out["description"] = "Found by locksim verify --algorithm " + spec.algorithm + " --faults " +
                       Join(spec.faults, ",") + " (" + BoundText(spec) + ") at schedule " +
                       std::to_string(ordinal) + " of its depth-first order, " +
                       Plural(static_cast<int64_t>(FaultsOf(choices).size()), "fault") +
                       " placed and " +
                       Plural(static_cast<int64_t>(DeviationsOf(choices).size()), "deviation") +
                       " from the default schedule, then shrunk. Kind " + f.kind + ": " + story + ".";
  out["source"] = VerifyCommandLine(spec);
  for (const auto& [k, v] : small.items()) {
    if ((k == "faults" || k == "choices") && v.empty()) continue;
    if (k == "name") continue;
    out[k] = v;
  }
  out["expect"] = {{spec.algorithm, FindingExpect(result, "verify kind " + f.kind)}};
  f.text = out.dump(2) + "\n";

  // The file replays, through the parser, to what it expects.
  const Scenario saved = ParseScenario(f.text, "counterexample.json");
  RunOptions replay;
  replay.label = spec.algorithm;
  const RunResult again = RunScenario(saved, replay);
  if (again.ExpectationMet() != true || Signature(again) != signature) {
    throw HarnessError("verify: the counterexample does not replay to the same outcome");
  }
  return f;
}

}  // namespace

std::vector<std::string> PlacedFaultClasses() {
  std::vector<std::string> out;
  for (const std::string& c : kPlaced) {
    if (c != "none") out.push_back(c);
  }
  return out;
}

void CheckVerifySpec(const VerifySpec& spec) {
  const AlgorithmInfo* algo = FindAlgorithm(spec.algorithm);
  if (algo == nullptr) {
    throw InputError("--algorithm: unknown algorithm \"" + spec.algorithm + "\" (known: " +
                     AlgorithmIds() + ")");
  }
  if (algo->is_limiter()) {
    throw InputError("--algorithm: " + spec.algorithm +
                     " is a rate limiter; verify checks locks (explore searches limiters)");
  }
  if (algo->real_only()) {
    throw InputError("--algorithm: " + spec.algorithm +
                     " drives a third-party client on real servers; verify runs on the virtual "
                     "Redis only (explore it with --backend real)");
  }
  for (const std::string& c : spec.faults) {
    if (!Has(kPlaced, c)) {
      throw InputError("--faults: verify does not place " + c + " faults (it places " +
                       Join(kPlaced, ", ") + "; locksim explore draws the others)");
    }
  }
  if (spec.faults.empty()) throw InputError("--faults: no fault class given");
  auto range = [](const std::string& option, int64_t v, int64_t lo, int64_t hi) {
    if (v < lo || v > hi) {
      throw InputError(option + ": " + std::to_string(v) + " is out of range [" +
                       std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
  };
  range("--max-faults", spec.max_faults, 0, 8);
  range("--max-delays", spec.max_delays, 0, 8);
  range("--events", spec.events, 1, 100000);
  range("--clients", spec.clients, 1, 8);
  range("--iterations", spec.iterations, 1, 100);
  range("--tries", spec.tries, 0, 1000000);
  if (spec.start_gap < Nanos{0}) throw InputError("--start-gap: must not be negative");
  if (spec.ttl < milliseconds(100)) throw InputError("--ttl: at least 100ms (explore's lease contract)");
  for (const auto& [option, d] : {std::pair<const char*, Nanos>{"--ttl", spec.ttl},
                                  {"--pause", spec.pause}, {"--delay", spec.delay},
                                  {"--start-gap", spec.start_gap}}) {
    if (d > std::chrono::hours(1)) {
      throw InputError(std::string(option) + ": at most 1h, got " + FormatDuration(d));
    }
  }
  if (spec.hold * 5 > spec.ttl * 4) {
    throw InputError("--hold: at most 80% of the lease (" + FormatDuration(spec.ttl * 4 / 5) +
                     "): a longer hold is a usage bug, not the lock's");
  }
}

std::string VerifyCommandLine(const VerifySpec& spec) {
  std::string line = "locksim verify --algorithm " + spec.algorithm + " --faults " +
                     Join(spec.faults, ",") + " --max-faults " + std::to_string(spec.max_faults) +
                     " --events " + std::to_string(spec.events);
  if (spec.max_delays > 0) {
    line += " --max-delays " + std::to_string(spec.max_delays) + " --delay " +
            FormatDuration(DelayOf(spec));
  }
  line += " --clients " + std::to_string(spec.clients);
  if (spec.start_gap != milliseconds(10)) line += " --start-gap " + FormatDuration(spec.start_gap);
  line += " --iterations " +
          std::to_string(spec.iterations) + " --ttl " + FormatDuration(spec.ttl) + " --hold " +
          FormatDuration(spec.hold);
  if (Has(spec.faults, "pause")) line += " --pause " + FormatDuration(PauseOf(spec));
  if (spec.tries > 0) line += " --tries " + std::to_string(spec.tries);
  line += " --seed " + std::to_string(spec.seed);
  if (!spec.state_cache) line += " --no-state-cache";
  return line;
}

std::string BoundText(const VerifySpec& spec) {
  const bool placing = Placing(spec);
  std::vector<std::string> classes;
  for (const std::string& c : spec.faults) {
    if (c != "none") classes.push_back(c);
  }
  std::string text = placing ? "up to " + Plural(spec.max_faults, "fault") + " (" +
                                   Join(classes, ", ") + ")"
                             : std::string("no fault");
  if (spec.max_delays > 0) {
    text += (placing ? " and " : ", up to ") + Plural(spec.max_delays, "deviation") +
            " (a message " + FormatDuration(DelayOf(spec)) + " late, or a tie broken otherwise)";
  }
  if (placing || spec.max_delays > 0) {
    // A deviation's point need not be an instant at which a client acts
    // (a node's reply leaving): it lies within them.
    text += (spec.max_delays > 0 ? ", each within the first " : ", each at one of the first ") +
            std::to_string(spec.events) + " instants";
  }
  std::string gap;
  if (spec.start_gap.count() == 0) gap = " starting together";
  if (spec.start_gap.count() > 0 && spec.start_gap != milliseconds(10)) {
    gap = " starting " + FormatDuration(spec.start_gap) + " apart";
  }
  text += "; " + Plural(spec.clients, "client") + gap +
          " x " + Plural(spec.iterations, "iteration") +
          ", lease " + FormatDuration(spec.ttl) + ", hold " + FormatDuration(spec.hold);
  if (spec.tries > 0) text += ", " + std::to_string(spec.tries) + (spec.tries == 1 ? " try" : " tries") + " an acquisition";
  if (Has(spec.faults, "pause")) text += ", pause " + FormatDuration(PauseOf(spec));
  return text;
}

ojson VerifyScenario(const VerifySpec& spec, const ojson& faults, const ojson& choices) {
  const int nodes = NodesOf(spec);
  ojson doc;
  doc["name"] = "verify-" + spec.algorithm;
  doc["algorithm"] = spec.algorithm;
  doc["seed"] = spec.seed;
  doc["duration"] = FormatDuration(DurationOf(spec));
  if (nodes > 1) doc["nodes"] = nodes;
  ojson network;
  network["latency"] = {{"min", FormatDuration(kLatency)}, {"max", FormatDuration(kLatency)}};
  // Redlock gives up on a node that does not answer (redlock-rb's socket
  // timeout), as explore's scenarios do.
  if (spec.algorithm == "redlock") network["timeout"] = "50ms";
  doc["network"] = network;
  doc["lock"] = {{"ttl", FormatDuration(spec.ttl)},
                 {"retry_delay", FormatDuration(spec.retry_delay)},
                 {"acquire_timeout", "30s"}};
  if (spec.tries > 0) doc["lock"]["tries"] = spec.tries;
  doc["workload"] = {{"type", "counter"}};
  ojson clients = ojson::array();
  int64_t k = 0;
  for (const std::string& name : ClientNames(spec)) {
    clients.push_back({{"name", name},
                       {"start", FormatDuration(spec.start_gap * k++)},
                       {"hold", FormatDuration(spec.hold)},
                       {"iterations", spec.iterations}});
  }
  doc["clients"] = clients;
  doc["faults"] = faults;
  if (!choices.is_null() && !choices.empty()) doc["choices"] = choices;
  // The lock not coming back within a lease, a second and every outage
  // the bound allows is the lock's doing (explore's rule).
  doc["liveness"] = {{"deadlock_after", FormatDuration(DeadlockAfter(spec))}};
  return doc;
}

VerifyResult RunVerify(const VerifySpec& spec, int jobs,
                       const std::function<void(const VerifyProgress&)>& progress) {
  CheckVerifySpec(spec);
  VerifyResult result;
  Node root;
  root.faults_left = Placing(spec) ? spec.max_faults : 0;
  root.delays_left = spec.max_delays;
  const RunResult root_run = RunSchedule(spec, {});
  int64_t total = 0;
  const std::map<Nanos, Acting> reach = InstantsOf(spec, root_run, &total);
  result.instants = total;
  if (!reach.empty()) result.horizon = reach.rbegin()->first;
  if (Unsafe(root_run)) {
    result.finding = MakeFinding(spec, {}, 1);
    return result;
  }
  if (root_run.end >= DurationOf(spec) || !root_run.stopped_early.empty()) {
    // Not expected (the duration allows for every iteration waiting out a
    // lease), but a world cut short would be verified only in part.
    throw InputError("--iterations: without faults the clients had not finished after " +
                     FormatDuration(root_run.end) + ": fewer --iterations or --clients");
  }
  const std::string root_state = StateText(root_run);
  // Each subtree's record of states starts with the root's.
  auto fresh_seen = [&] {
    auto seen = std::make_unique<SeenStates>(spec.state_cache, spec.hash);
    seen->Covered(root_state, root);
    return seen;
  };
  const std::vector<Choice> firsts = Children(spec, root, root_run);

  std::mutex mu;
  VerifyProgress shown;
  shown.runs = 1;
  shown.subtrees = static_cast<int64_t>(firsts.size());
  std::vector<SubtreeResult> subtrees(firsts.size());
  std::atomic<size_t> next{0};
  // The lowest subtree with a finding so far: those after it are not needed.
  std::atomic<size_t> first_finding{firsts.size()};
  std::exception_ptr error;
  std::atomic<bool> failed{false};
  auto worker = [&] {
    const std::shared_ptr<ScriptStatePool> script_states = NewScriptStatePool();
    for (;;) {
      const size_t i = next.fetch_add(1);
      if (i >= firsts.size() || i > first_finding.load() || failed.load()) return;
      std::unique_ptr<SeenStates> seen = fresh_seen();
      std::atomic<bool> stop{false};
      const std::function<void()> tick = [&] {
        if (i > first_finding.load() || failed.load()) stop = true;
        std::lock_guard<std::mutex> lock(mu);
        ++shown.runs;
        if (progress && shown.runs % 16 == 0) progress(shown);
      };
      Searcher searcher(spec, seen.get(), tick, &stop, script_states.get());
      Node child = root;
      child.choices.push_back(firsts[i]);
      (firsts[i].deviation ? child.delays_left : child.faults_left) -= 1;
      try {
        searcher.Visit(child);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
        failed = true;
        return;
      }
      std::lock_guard<std::mutex> lock(mu);
      subtrees[i] = std::move(searcher.result());
      if (subtrees[i].finding_run) {
        size_t cur = first_finding.load();
        while (i < cur && !first_finding.compare_exchange_weak(cur, i)) {
        }
      }
      ++shown.subtrees_done;
      shown.skipped += subtrees[i].skipped;
      if (progress) progress(shown);
    }
  };
  std::vector<std::thread> threads;
  for (int j = 1; j < std::max(1, jobs); ++j) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  if (error) std::rethrow_exception(error);

  // Every subtree before the first with a finding ran whole: the counts
  // are those of a single-threaded search up to that finding.
  result.schedules = 1;
  int64_t runs_before = 1;
  for (size_t i = 0; i < firsts.size(); ++i) {
    const SubtreeResult& s = subtrees[i];
    result.schedules += s.schedules;
    result.skipped += s.skipped;
    if (i == first_finding.load()) {
      result.finding = MakeFinding(spec, s.finding, runs_before + *s.finding_run);
      break;
    }
    runs_before += s.runs;
  }
  return result;
}

ojson VerifySummaryJson(const VerifySpec& spec, const VerifyResult& result, double seconds) {
  ojson out;
  out["algorithm"] = spec.algorithm;
  out["faults"] = spec.faults;
  out["bound"] = {{"max_faults", Placing(spec) ? spec.max_faults : 0},
                  {"events", spec.events},
                  {"max_delays", spec.max_delays},
                  {"delay", FormatDuration(DelayOf(spec))},
                  {"clients", spec.clients},
                  {"start_gap", FormatDuration(spec.start_gap)},
                  {"iterations", spec.iterations},
                  {"ttl", FormatDuration(spec.ttl)},
                  {"hold", FormatDuration(spec.hold)},
                  {"pause", FormatDuration(PauseOf(spec))},
                  {"tries", spec.tries},
                  {"seed", spec.seed},
                  {"state_cache", spec.state_cache},
                  {"text", BoundText(spec)}};
  out["fault_free_run"] = {{"instants", result.instants},
                           {"covered", std::min<int64_t>(result.instants, spec.events)},
                           {"horizon", FormatDuration(result.horizon)}};
  out["verified"] = !result.finding.has_value();
  out["schedules"] = result.schedules;
  out["skipped_as_seen"] = result.skipped;
  if (result.finding) {
    const VerifyFinding& f = *result.finding;
    out["finding"] = {{"kind", f.kind},
                      {"verdict", f.verdict},
                      {"violations", f.tokens},
                      {"schedule_ordinal", f.ordinal},
                      {"schedule", f.schedule},
                      {"deviations", f.deviations},
                      {"shrink_runs", f.shrink_runs},
                      {"file", "counterexample.json"}};
  }
  out["seconds"] = seconds;
  return out;
}

}  // namespace locksim
