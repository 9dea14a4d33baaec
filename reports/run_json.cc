#include "reports/run_json.h"

#include <map>
#include <optional>
#include <ostream>
#include <utility>

#include "sim/check/lease.h"

namespace locksim {
namespace {

using ojson = nlohmann::ordered_json;

ojson OpToJson(const History& h, int32_t index) {
  const Op& op = h.ops()[static_cast<size_t>(index)];
  ojson j;
  j["index"] = index;
  j["time"] = op.time.count();
  j["process"] = h.name(op.actor);
  j["type"] = OpTypeName(op.type);
  j["f"] = OpFName(op.f);
  if (op.node >= 0) j["node"] = static_cast<int>(op.node);  // a bit-field: a value, not a reference
  j["value"] = h.ValueText(op);
  // What the value text says, as data for readers (the timeline): the
  // actor a fault acted on or whose command made a node's state, and the
  // state itself.
  if (op.subject >= 0) j["subject"] = h.name(op.subject);
  if (op.f == OpF::kState) {
    const KeyState& state = h.state(op);
    ojson sj;
    sj["key"] = state.key;
    sj["present"] = state.present;
    if (state.present && state.hash) {
      ojson fields = ojson::object();
      for (const auto& [field, value] : state.fields) fields[field] = value;
      sj["value"] = fields;
    } else if (state.present) {
      sj["value"] = state.str;
    }
    sj["pttl_ms"] = state.pttl_ms ? ojson(*state.pttl_ms) : ojson(nullptr);
    j["state"] = sj;
  }
  return j;
}

// ns of lease left per node when the work began (null: no TTL), by node
// name.
ojson LeaseJson(const History& h, const LeaseIndex& leases, int thread, int64_t at) {
  ojson out = ojson::object();
  for (const NodeLease& l : leases.AtEntry(thread, at)) {
    out[h.name(l.node)] = l.left ? ojson(l.left->count()) : ojson(nullptr);
  }
  return out;
}

ojson SectionToJson(const History& h, const LeaseIndex& leases, const CriticalSection& s) {
  ojson j;
  j["process"] = h.name(s.process);
  j["start"] = s.start.count();
  j["end"] = s.end.count();
  j["open_at_end"] = s.exit_index < 0;
  j["crashed"] = s.crashed;
  j["acquired_index"] = s.acquired_index;
  if (s.acquired_index >= 0) j["acquired_at"] = h.ops()[s.acquired_index].time.count();
  j["enter_index"] = s.enter_index;
  j["exit_index"] = s.exit_index;
  // ns of lease left per node when the work began (null: no TTL).
  j["lease_left_at_entry"] = LeaseJson(h, leases, s.process, s.enter_index);
  return j;
}

// One line per event, as a terminal would show it.
std::string TraceLine(const History& h, const Op& op) {
  std::string line = FormatDuration(op.time) + "  " + h.name(op.actor) + " " +
                     std::string(OpFName(op.f));
  if (op.type != OpType::kInfo || op.f == OpF::kRedis) line += " " + std::string(OpTypeName(op.type));
  if (op.f == OpF::kState && op.subject >= 0) line += " (by " + h.name(op.subject) + ")";
  const std::string value = h.ValueText(op);
  if (!value.empty()) line += ": " + value;
  return line;
}

}  // namespace

std::string ForeignWriteCommand(const History& h, const Violation& v) {
  // The command the writer sent last before the node's change.
  for (int64_t i = v.state_index; i >= 0; --i) {
    const Op& op = h.ops()[i];
    if (op.actor == v.writer && op.f == OpF::kRedis && op.type == OpType::kInvoke) {
      return std::string(h.command(op).name());
    }
  }
  return "command";
}

std::string DescribeViolation(const RunResult& r, const Violation& v) {
  const History& h = r.history;
  if (v.kind == ViolationKind::kForeignWrite) {
    const std::string command = ForeignWriteCommand(h, v);
    const Op& state = h.ops()[v.state_index];
    return h.name(v.writer) + "'s " + command + " " +
           (h.state(state).present ? "overwrote " : "deleted ") + h.name(v.holder) + "'s " +
           v.resource + " on " + h.name(state.actor) + " at " + FormatDuration(state.time) +
           " while " + h.name(v.holder) + " held the lock";
  }
  if (v.folded) {
    // "and 39992 more sections overlapped A's hold (B 13331, C 13330, ...)"
    std::string with;
    for (const auto& [thread, count] : v.folded->by_thread) {
      with += (with.empty() ? "" : ", ") + h.name(thread) + " " + std::to_string(count);
    }
    return std::to_string(v.folded->sections) + " more section(s) overlapped " +
           h.name(v.first.process) + "'s hold of " + v.resource + " from " +
           FormatDuration(v.overlap_start) + " to " + FormatDuration(v.overlap_end) + " (" +
           with + "), past the " + std::to_string(kListedOverlaps) + " listed";
  }
  return h.name(v.first.process) + " and " + h.name(v.second.process) +
         " both held " + v.resource + " from " + FormatDuration(v.overlap_start) +
         " to " + FormatDuration(v.overlap_end) + " (" +
         FormatDuration(v.overlap_end - v.overlap_start) + ")";
}

namespace {

// The violations' records, made one at a time: ResultToJson lists them in
// its document, WriteResultJson writes each as it is made.
class ViolationRecords {
 public:
  explicit ViolationRecords(const RunResult& r) : r_(r) {
    const History& h = r.history;
    // The business effect, in one sentence, for every violation record.
    for (size_t i = 0; i < r.effect.sentences.size(); ++i) {
      effect_ += (i ? "; " : "") + r.effect.sentences[i];
    }
    // The nemesis's ops, once: each explained violation lists those up to
    // its last event, and a scan of the history per violation was
    // O(violations x ops).
    // (Faults are lock ops: the scan skips every Redis command.)
    if (!r.check.violations.empty()) {
      const History::LockOps lock_ops = h.lock_ops();
      for (auto op = lock_ops.begin(); op != lock_ops.end(); ++op) {
        if (op->actor == h.nemesis()) fault_ops_.push_back(op.index());
      }
      leases_.emplace(h);
    }
  }

  // The record of r.check.violations[which].
  ojson Record(size_t which) const {
    const RunResult& r = r_;
    const History& h = r.history;
    // Past the explained ones, as their events, their faults are not listed:
    // every fault up to each violation was O(faults x violations) lines (a
    // 4-minute run with a pause every half second: 1.2 GB of JSON in 96 s).
    const bool explained = which < kExplainedViolations;
    const Violation& v = r.check.violations[which];
    ojson vj;
    vj["kind"] = ViolationKindName(v.kind);
    vj["resource"] = v.resource;
    vj["clients"] = {h.name(v.first.process), h.name(v.second.process)};
    vj["overlap"] = {{"start", v.overlap_start.count()},
                     {"end", v.overlap_end.count()},
                     {"duration", (v.overlap_end - v.overlap_start).count()}};
    vj["text"] = DescribeViolation(r, v);
    if (v.kind == ViolationKind::kForeignWrite) {
      const Op& state = h.ops()[v.state_index];
      vj["writer"] = h.name(v.writer);
      vj["holder"] = h.name(v.holder);
      vj["node"] = h.name(state.actor);
      vj["state"] = OpToJson(h, static_cast<int32_t>(v.state_index));
      vj["holder_section"] = SectionToJson(h, *leases_, v.first);
    } else {
      vj["first"] = SectionToJson(h, *leases_, v.first);
      vj["second"] = SectionToJson(h, *leases_, v.second);
      if (v.folded) {
        ojson with = ojson::object();
        for (const auto& [thread, count] : v.folded->by_thread) with[h.name(thread)] = count;
        vj["folded"] = {{"sections", v.folded->sections}, {"with", with}};
      }
    }
    ojson faults = ojson::array();
    ojson events = ojson::array();
    ojson trace = ojson::array();
    // Every fault up to the violation, including those before the window
    // the events cover (a clock skewed at the start).
    // (The second's entry, or the write: the last event.)
    const int64_t last = v.second.enter_index;
    for (int32_t i : fault_ops_) {
      if (!explained || i > last) break;
      faults.push_back(TraceLine(h, h.ops()[i]));
    }
    // The trace says where events were left out (Violation::elided).
    auto elided = v.elided.begin();
    for (int32_t i : v.events) {
      const Op& op = h.ops()[i];
      events.push_back(OpToJson(h, i));
      trace.push_back(TraceLine(h, op));
      if (elided != v.elided.end() && elided->after == i) {
        trace.push_back("... " + std::to_string(elided->count) +
                        " more events of the story, not listed (--history lists every operation)");
        ++elided;
      }
    }
    vj["faults"] = std::move(faults);
    if (!effect_.empty()) vj["effect"] = effect_;
    vj["events"] = std::move(events);
    if (!v.elided.empty()) {
      ojson gaps = ojson::array();
      for (const ElidedEvents& e : v.elided) {
        gaps.push_back({{"after", e.after}, {"count", e.count}});
      }
      vj["elided"] = std::move(gaps);
    }
    vj["trace"] = std::move(trace);
    return vj;
  }

 private:
  const RunResult& r_;
  std::string effect_;
  std::vector<int32_t> fault_ops_;
  std::optional<LeaseIndex> leases_;
};

// The document; with `lists` false, its violations and history are empty
// arrays (WriteResultJson writes them one record at a time).
ojson BuildResult(const RunResult& r, bool with_history, size_t max_history_ops, bool lists) {
  const History& h = r.history;
  ojson j;
  j["schema_version"] = kResultSchemaVersion;
  j["scenario"] = r.scenario.name;
  j["scenario_file"] = r.scenario.file;
  j["algorithm"] = r.algorithm;
  j["backend"] = BackendName(r.backend);
  j["seed"] = r.seed;
  j["time_unit"] = "ns";
  j["time_scale"] = r.time_scale.ToString();
  if (!r.scale_note.empty()) j["time_scale_note"] = r.scale_note;
  if (!r.stopped_early.empty()) j["stopped_early"] = r.stopped_early;
  if (!r.label.empty()) j["label"] = r.label;
  j["verdict"] = VerdictName(r.verdict());
  // A lock nobody ever held was not tested: "safe" then says nothing.
  // (A deadlock with no acquisition is a finding, not an untested lock.)
  if (!r.limiter && r.acquisitions == 0 && r.verdict() == Verdict::kSafe) {
    j["nothing_tested"] = true;
  }
  if (auto met = r.ExpectationMet()) {
    const Expectation& x = *r.expectation();
    ojson e;
    e["verdict"] = VerdictName(x.verdict);
    if (!x.kinds.empty()) e["kinds"] = ViolationKindNames(x.kinds);
    if (x.has_overlaps) e["overlaps"] = x.overlaps;
    if (x.invariant_holds) e["invariant"] = *x.invariant_holds ? "holds" : "broken";
    e["met"] = *met;
    j["expected"] = e;
  }
  j["overlaps"] = r.OverlapPairs();
  j["kinds"] = ViolationKindNames(r.Kinds());
  if (!r.unfired.empty()) j["unfired_triggers"] = r.unfired;
  ojson violations = ojson::array();
  if (lists) {
    const ViolationRecords records(r);
    for (size_t i = 0; i < r.check.violations.size(); ++i) {
      violations.push_back(records.Record(i));
    }
  }
  // Its place now, its records last: an ordered_json object is a vector
  // of pairs with a const key, which it copies, not moves, when it grows,
  // and the records can be hundreds of thousands.
  j["violations"] = ojson::array();
  if (r.check.violations.size() > kExplainedViolations) {
    j["violations_explained"] = kExplainedViolations;  // the rest list no events, no faults
  }
  {
    const LivenessResult& l = r.liveness;
    ojson lj;
    lj["deadlock"] = l.deadlock;
    lj["longest_stall"] = {{"start", l.stuck_from.count()},
                           {"end", l.stuck_to.count()},
                           {"duration", l.stuck().count()}};
    lj["deadlock_after"] = r.scenario.liveness.deadlock_after.count();
    lj["aborted_transactions"] = l.aborted_transactions;
    // Per mille, an integer, so the JSON stays byte-identical everywhere.
    lj["aborted_per_acquisition_milli"] = static_cast<int64_t>(l.aborted_per_acquisition * 1000 + 0.5);
    lj["degraded"] = l.degraded;
    if (!l.text.empty()) lj["text"] = l.text;
    j["liveness"] = lj;
  }
  if (r.limiter) {
    j["limiter"] = {{"invariant_holds", r.effect.holds}, {"effects", r.effect.sentences}};
  } else if (r.scenario.workload.type != WorkloadSpec::Type::kNone) {
    j["workload"] = {{"type", WorkloadName(r.scenario.workload.type)},
                     {"invariant_holds", r.effect.holds},
                     {"effects", r.effect.sentences}};
  }
  j["stats"] = {{"end", r.end.count()},
                {"critical_sections", r.check.sections.size()},
                {"acquisitions", r.acquisitions},
                {"failed_acquisitions", r.failed_acquisitions},
                {"redis_commands", r.redis_commands},
                {"history_ops", h.size()}};
  if (r.library) {
    // Adapter-driven runs only, so that our own variants' JSON stays as it was.
    j["stats"]["errored_acquisitions"] = r.errored_acquisitions;
    ojson errors = ojson::array();
    for (const LibraryError& e : r.library->errors) {
      errors.push_back({{"op", e.op},
                        {"error", e.text},
                        {"count", e.count},
                        {"first_client", e.first_client},
                        {"first", e.first.count()}});
    }
    ojson failures = ojson::array();
    for (const LibraryFailure& f : r.library->failures) {
      failures.push_back({{"time", f.time.count()},
                          {"client", f.client},
                          {"what", f.what},
                          {"stderr_tail", f.stderr_tail}});
    }
    j["library"] = {{"name", r.library->name}, {"errors", errors}, {"failures", failures}};
  }
  if (with_history) {
    ojson ops = ojson::array();
    if (max_history_ops == 0 || h.size() <= max_history_ops) {
      for (size_t i = 0; lists && i < h.size(); ++i) {
        ops.push_back(OpToJson(h, static_cast<int32_t>(i)));
      }
    } else {
      Nanos until{0};
      bool cut = false;  // some of the ops kept did not fit
      // The ops without Redis commands and adapter requests: lock_ops().
      const History::LockOps lock_ops = h.lock_ops();
      for (auto op = lock_ops.begin(); op != lock_ops.end(); ++op) {
        if (ops.size() == max_history_ops) {
          cut = true;
          break;
        }
        ops.push_back(OpToJson(h, op.index()));
        until = op->time;
      }
      j["history_omitted"] = h.size() - ops.size();
      // A timeline draws the run up to here, not to its end.
      if (cut) j["history_until"] = until.count();
      j["history_note"] =
          "the run recorded " + std::to_string(h.size()) + " operations; listed are " +
          std::to_string(ops.size()) + " of its client, node-state and fault operations" +
          (cut ? ", up to " + FormatDuration(until) : std::string()) +
          ", without its Redis commands and adapter requests (locksim run --history of its "
          "scenario and seed lists them all)";
    }
    j["history"] = std::move(ops);
  }
  j["violations"] = std::move(violations);
  return j;
}

// `value` as dump(2) writes it `depth` levels down: each line after its
// first indented by 2 x depth more (a JSON string holds no raw newline).
std::string Nested(const ojson& value, int depth) {
  std::string text = value.dump(2);
  const std::string indent = "\n" + std::string(2 * static_cast<size_t>(depth), ' ');
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\n') {
      out += indent;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

ojson ResultToJson(const RunResult& r, bool with_history, size_t max_history_ops) {
  return BuildResult(r, with_history, max_history_ops, /*lists=*/true);
}

void WriteResultJson(std::ostream& out, const RunResult& r, bool with_history, int depth) {
  // The document without its two long lists, written as dump(2) writes it,
  // with those lists' records written one at a time where their empty
  // arrays stand.
  const ojson j = BuildResult(r, with_history, 0, /*lists=*/false);
  const std::string pad(2 * static_cast<size_t>(depth), ' ');
  auto list = [&](size_t n, const auto& record) {
    out << "[\n";
    for (size_t i = 0; i < n; ++i) {
      if (i > 0) out << ",\n";
      out << pad << "    " << Nested(record(i), depth + 2);
    }
    out << "\n" << pad << "  ]";
  };
  out << "{\n";
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!first) out << ",\n";
    first = false;
    out << pad << "  " << ojson(it.key()).dump() << ": ";
    if (it.key() == "violations" && !r.check.violations.empty()) {
      const ViolationRecords records(r);
      list(r.check.violations.size(), [&](size_t i) { return records.Record(i); });
    } else if (it.key() == "history" && with_history && r.history.size() > 0) {
      list(r.history.size(),
           [&](size_t i) { return OpToJson(r.history, static_cast<int32_t>(i)); });
    } else {
      out << Nested(it.value(), depth + 1);
    }
  }
  out << "\n" << pad << "}";
}

}  // namespace locksim
