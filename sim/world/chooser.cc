#include "sim/world/chooser.h"

#include <algorithm>

#include "sim/core/text.h"

namespace locksim {
namespace {

std::string Describe(const ChoiceSpec& c) {
  return c.tie ? "the tie of " + Join(c.among, ", ") + " at " + FormatDuration(c.at)
               : "the message " + c.message + " at " + FormatDuration(c.at);
}

}  // namespace

const ChoiceSpec* ScriptedChooser::Next() {
  ++count_;
  if (next_ >= script_.size() || script_[next_].point != count_) return nullptr;
  return &script_[next_++];
}

void ScriptedChooser::Miss(const ChoiceSpec& spec, const std::string& why) {
  ++unapplied_;
  missed_.push_back("choice point " + std::to_string(spec.point) + " (" + Describe(spec) +
                    ") was not applied: " + why);
}

Nanos ScriptedChooser::Latency(Nanos now, const std::string& message, Nanos drawn) {
  const ChoiceSpec* spec = Next();
  if (record_) points_.push_back(ChoicePoint{count_, now, false, message, {}});
  if (spec == nullptr) return drawn;
  if (spec->tie || spec->at != now || spec->message != message) {
    Miss(*spec, "the run's point " + std::to_string(count_) + " is the message " + message +
                    " at " + FormatDuration(now));
    return drawn;
  }
  if (record_) points_.back().added = spec->delay;
  return drawn + spec->delay;
}

size_t ScriptedChooser::First(Nanos now, const std::vector<std::string>& among) {
  const ChoiceSpec* spec = Next();
  if (record_) points_.push_back(ChoicePoint{count_, now, true, {}, among});
  if (spec == nullptr) return 0;
  if (!spec->tie || spec->at != now || spec->among != among) {
    Miss(*spec, "the run's point " + std::to_string(count_) + " is the tie of " +
                    Join(among, ", ") + " at " + FormatDuration(now));
    return 0;
  }
  const auto it = std::find(among.begin(), among.end(), spec->first);
  const size_t pick = it == among.end() ? 0 : static_cast<size_t>(it - among.begin());
  if (record_) points_.back().picked = pick;
  return pick;
}

std::vector<std::string> ScriptedChooser::Unapplied() const {
  std::vector<std::string> out = missed_;
  for (size_t i = next_; i < script_.size(); ++i) {
    out.push_back("choice point " + std::to_string(script_[i].point) + " (" +
                  Describe(script_[i]) + ") was not applied: the run met only " +
                  std::to_string(count_) + " choice points");
  }
  return out;
}

}  // namespace locksim
