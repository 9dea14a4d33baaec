#include "sim/explore/shrink.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/time.h"

namespace locksim {
namespace {

using ojson = nlohmann::ordered_json;
using Keeps = std::function<bool(const ojson&)>;
using std::chrono::milliseconds;

// A duration field of the document and how far it may shrink.
struct DurationField {
  ojson::json_pointer where;
  Nanos floor{0};
  bool is_signed = false;  // "+3s" / "-3s": shrinks toward 0 keeping its sign
};

class Shrinker {
 public:
  Shrinker(ojson doc, const Keeps& keeps, int budget, Nanos run_slack, Nanos edge_margin,
           ShrinkStats* stats)
      : doc_(std::move(doc)), keeps_(keeps), budget_(budget), run_slack_(run_slack),
        edge_margin_(edge_margin), stats_(stats) {}

  ojson Run() {
    const std::optional<Nanos> original_duration = RunDuration();
    for (;;) {
      const int before = stats_->accepted;
      DropFaults();
      DropChoices();
      DropClients();
      FewerIterations();
      SimplerShapes();
      ShorterDurations();
      if (stats_->accepted == before || Exhausted()) break;
    }
    GiveBackSlack(original_duration);
    return std::move(doc_);
  }

 private:
  bool Exhausted() const { return stats_->runs >= budget_; }

  std::optional<Nanos> RunDuration() const {
    if (!doc_.contains("duration") || !doc_["duration"].is_string()) return std::nullopt;
    std::string error;
    return ParseDuration(doc_["duration"].get<std::string>(), &error);
  }

  // The run's length shrinks to just past the violation it shows; with
  // run_slack_ it is given back that much (never past its original). Not
  // tried as a candidate: a longer run only adds time after the violation.
  void GiveBackSlack(std::optional<Nanos> original) {
    const std::optional<Nanos> now = RunDuration();
    if (run_slack_ <= Nanos{0} || !original || !now || *now >= *original) return;
    const Nanos longer = std::min(*original, *now + run_slack_);
    doc_["duration"] = FormatDuration(std::chrono::ceil<milliseconds>(longer));
  }

  // Whether `candidate` still shows the violation: one run of the budget
  // (`beyond_budget`: counted, but run even when the budget is spent).
  bool Shows(const ojson& candidate, bool beyond_budget = false) {
    if (Exhausted() && !beyond_budget) return false;
    ++stats_->runs;
    if (!keeps_(candidate)) return false;
    ++stats_->accepted;
    return true;
  }

  // Keeps `candidate` if it still shows the violation.
  bool Try(const ojson& candidate) {
    if (!Shows(candidate)) return false;
    doc_ = candidate;
    return true;
  }

  // Keeps the document with the value at `where` replaced by `value` if it
  // still shows the violation; else puts the old value back. Changed in
  // place: a copy of the whole document per candidate was a twentieth of
  // explore (callgrind).
  bool TryValue(const ojson::json_pointer& where, ojson value, bool beyond_budget = false) {
    ojson& slot = doc_[where];
    std::swap(slot, value);
    if (Shows(doc_, beyond_budget)) return true;
    std::swap(slot, value);
    return false;
  }

  void DropFaults() {
    if (!doc_.contains("faults")) return;
    for (size_t i = doc_["faults"].size(); i-- > 0;) {
      ojson candidate = doc_;
      candidate["faults"].erase(i);
      Try(candidate);
    }
  }

  // A deviation from the default schedule (verify's), each kept only if
  // the outcome needs it.
  void DropChoices() {
    if (!doc_.contains("choices")) return;
    for (size_t i = doc_["choices"].size(); i-- > 0;) {
      ojson candidate = doc_;
      candidate["choices"].erase(i);
      if (candidate["choices"].empty()) candidate.erase("choices");
      Try(candidate);
    }
  }

  // Without client `name`: the faults that target it or wait for its
  // events go too; a link fault loses it from its side (and goes when a
  // side is left empty).
  static ojson WithoutClient(const ojson& doc, size_t index) {
    ojson out = doc;
    const std::string name = out["clients"][index]["name"].get<std::string>();
    out["clients"].erase(index);
    if (!out.contains("faults")) return out;
    ojson kept = ojson::array();
    for (ojson f : out["faults"]) {
      if (f.value("process", "") == name) continue;
      if (f.contains("on") && f["on"].value("process", "") == name) continue;
      if (f.contains("between")) {
        bool empty_side = false;
        for (ojson& side : f["between"]) {
          ojson rest = ojson::array();
          for (const ojson& p : side) {
            if (p.get<std::string>() != name) rest.push_back(p);
          }
          side = rest;
          empty_side = empty_side || side.empty();
        }
        if (empty_side) continue;
      }
      kept.push_back(f);
    }
    out["faults"] = kept;
    return out;
  }

  void DropClients() {
    for (size_t i = doc_["clients"].size(); i-- > 0;) {
      if (doc_["clients"].size() <= 1) return;
      Try(WithoutClient(doc_, i));
    }
  }

  // A client's shape: one thread instead of several, no re-entry, no
  // replica, no socket timeout: each kept only if the outcome needs it.
  void SimplerShapes() {
    for (size_t i = 0; i < doc_["clients"].size(); ++i) {
      for (const char* field : {"threads", "reenter"}) {
        if (!doc_["clients"][i].contains(field)) continue;
        ojson candidate = doc_;
        candidate["clients"][i].erase(field);
        Try(candidate);
      }
    }
    for (const char* section : {"redis", "network"}) {
      if (!doc_.contains(section)) continue;
      ojson candidate = doc_;
      candidate.erase(section);
      Try(candidate);
    }
  }

  void FewerIterations() {
    for (size_t i = 0; i < doc_["clients"].size(); ++i) {
      const int64_t n = doc_["clients"][i].value("iterations", int64_t{1});
      if (n <= 1) continue;
      ojson candidate = doc_;
      candidate["clients"][i]["iterations"] = 1;
      if (Try(candidate) || n == 2) continue;
      candidate["clients"][i]["iterations"] = n - 1;
      Try(candidate);
    }
  }

  std::vector<DurationField> Durations() const {
    using P = ojson::json_pointer;
    std::vector<DurationField> out;
    const Nanos one_ms = milliseconds(1);
    auto add = [&](const P& where, Nanos floor, bool is_signed = false) {
      if (doc_.contains(where) && doc_.at(where).is_string()) {
        out.push_back({where, floor, is_signed});
      }
    };
    add(P("/duration"), one_ms);
    add(P("/lock/ttl"), one_ms);
    for (size_t i = 0; i < doc_["clients"].size(); ++i) {
      const std::string c = "/clients/" + std::to_string(i);
      add(P(c + "/start"), Nanos{0});
      // A critical section does some work: a zero-length one would make
      // every overlap a tie at one instant.
      add(P(c + "/hold"), one_ms);
      add(P(c + "/think"), Nanos{0});
    }
    if (doc_.contains("faults")) {
      for (size_t i = 0; i < doc_["faults"].size(); ++i) {
        const std::string f = "/faults/" + std::to_string(i);
        add(P(f + "/at"), Nanos{0});
        add(P(f + "/on/after"), Nanos{0});
        // 0s would mean "until healed", not shorter.
        add(P(f + "/duration"), one_ms);
        add(P(f + "/restart_after"), Nanos{0});
        add(P(f + "/latency"), one_ms);
        add(P(f + "/ttl"), one_ms);
        add(P(f + "/offset"), Nanos{0}, /*is_signed=*/true);
        add(P(f + "/jump"), Nanos{0}, /*is_signed=*/true);
      }
    }
    return out;
  }

  static std::string Format(Nanos magnitude, char sign) {
    return (sign ? std::string(1, sign) : std::string()) + FormatDuration(magnitude);
  }

  // Moves one duration toward its floor: the floor itself, else a binary
  // search between the floor (not kept) and the value (kept), in whole ms.
  void Shorten(const DurationField& field) {
    std::string text = doc_.at(field.where).get<std::string>();
    char sign = 0;
    if (field.is_signed && !text.empty() && (text[0] == '+' || text[0] == '-')) {
      sign = text[0];
      text = text.substr(1);
    }
    std::string error;
    const std::optional<Nanos> value = ParseDuration(text, &error);
    if (!value || *value <= field.floor) return;
    auto attempt = [&](Nanos d) { return TryValue(field.where, Format(d, sign)); };
    if (attempt(field.floor)) return;
    // Down to within 1/16 of the value kept (and 1ms): close enough to
    // read, and a handful of runs per field.
    Nanos lo = field.floor, hi = *value;
    while (!Exhausted() && hi - lo > std::max<Nanos>(milliseconds(1), hi / 16)) {
      const Nanos mid = std::chrono::floor<milliseconds>(lo + (hi - lo) / 2);
      if (mid <= lo || mid >= hi) break;
      if (attempt(mid)) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    // The search stopped within a step of the edge (lo, not kept): back
    // from it by edge_margin_ where that still shows the violation. Not
    // the run's length, which GiveBackSlack lengthens.
    if (edge_margin_ > Nanos{0} && hi < *value && field.where != ojson::json_pointer("/duration")) {
      const Nanos back = std::chrono::floor<milliseconds>(std::min(*value, hi + edge_margin_));
      if (back > hi) TryValue(field.where, Format(back, sign), /*beyond_budget=*/true);
    }
  }

  void ShorterDurations() {
    // Fields are found again after each change of structure; a field's
    // pointer stays valid while only values change.
    for (const DurationField& field : Durations()) {
      if (Exhausted()) return;
      Shorten(field);
    }
  }

  ojson doc_;
  const Keeps& keeps_;
  int budget_;
  Nanos run_slack_;
  Nanos edge_margin_;
  ShrinkStats* stats_;
};

}  // namespace

ojson Shrink(ojson doc, const Keeps& keeps, int budget, ShrinkStats* stats, Nanos run_slack,
             Nanos edge_margin) {
  ShrinkStats local;
  return Shrinker(std::move(doc), keeps, budget, run_slack, edge_margin, stats ? stats : &local)
      .Run();
}

}  // namespace locksim
