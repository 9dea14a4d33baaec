#include "sim/check/acquisition_stats.h"

#include <algorithm>
#include <string>
#include <string_view>

namespace locksim {
namespace {

// Whether two requests count as the same command for retries: the same
// name, any case; EVALSHA runs the same script as the EVAL that loaded it,
// so the two are one.
bool SameCommand(std::string_view a, std::string_view b) {
  auto canonical = [](std::string_view name) {
    return CommandNameIs(name, "EVALSHA") ? std::string_view("EVAL") : name;
  };
  return CommandNameIs(canonical(a), canonical(b));
}

// a / b rounded to 3 decimals, exactly from integers, so that the same
// history always gives the same bytes.
nlohmann::ordered_json Ratio(int64_t a, int64_t b) {
  if (b == 0) return nullptr;
  const __int128 thousandths = (static_cast<__int128>(a) * 1000 * 2 + b) / (2 * b);
  return static_cast<double>(static_cast<int64_t>(thousandths)) / 1000.0;
}

struct Attempt {
  bool open = false;
  Nanos start{0};
  int node = -1;
  std::string_view first;  // the first command's name, in the history; empty before it
  uint32_t first_slot = 0;  // and where the history keeps it
  int64_t commands = 0;
  int64_t repeats = 0;
};

// Nearest rank: the smallest value with at least p% of values <= it.
size_t NearestRank(size_t n, int p) {
  const size_t rank = (static_cast<size_t>(p) * n + 99) / 100;
  return rank == 0 ? 1 : rank;
}

}  // namespace

void AcquisitionStats::Merge(const AcquisitionStats& o) {
  acquisitions += o.acquisitions;
  failed_acquisitions += o.failed_acquisitions;
  errored_acquisitions += o.errored_acquisitions;
  repeated_commands += o.repeated_commands;
  commands += o.commands;
  simulated += o.simulated;
  latencies.insert(latencies.end(), o.latencies.begin(), o.latencies.end());
}

AcquisitionStats ComputeAcquisitionStats(const History& history, Nanos end) {
  AcquisitionStats s;
  s.simulated = end;
  std::vector<Attempt> attempts;  // by actor (a thread)
  for (const Op& op : history.ops()) {
    if (static_cast<size_t>(op.actor) >= attempts.size()) attempts.resize(op.actor + 1);
    Attempt& a = attempts[op.actor];
    if (op.f == OpF::kAcquire) {
      if (op.type == OpType::kInvoke) {
        a = Attempt{};
        a.open = true;
        a.start = op.time;
      } else if (a.open && op.type == OpType::kOk) {
        ++s.acquisitions;
        s.latencies.push_back((op.time - a.start).count());
        s.commands += a.commands;
        s.repeated_commands += a.repeats;
        a.open = false;
      } else if (a.open && op.type == OpType::kFail) {
        ++s.failed_acquisitions;
        a.open = false;
      } else if (a.open && op.type == OpType::kInfo) {
        ++s.errored_acquisitions;
        a.open = false;
      }
    } else if (op.f == OpF::kRedis && op.type == OpType::kInvoke && a.open) {
      ++a.commands;
      // A retry is nearly always the very command sent first, whose bytes
      // the history stored once (History::AddCommand): the same slot, so
      // the same name, without comparing it (three case-insensitive
      // compares a command were 2.5% of compare --seeds, callgrind).
      if (a.first.empty()) {
        a.first = history.command(op).name();
        a.first_slot = op.slot;
        a.node = op.node;
      } else if (op.node == a.node &&
                 (op.slot == a.first_slot || SameCommand(history.command(op).name(), a.first))) {
        ++a.repeats;
      }
    }
  }
  return s;
}

int64_t Percentile(std::vector<int64_t>* values, int p) {
  if (values->empty()) return 0;
  const auto nth = values->begin() + static_cast<ptrdiff_t>(NearestRank(values->size(), p) - 1);
  std::nth_element(values->begin(), nth, values->end());
  return *nth;
}

nlohmann::ordered_json StatsToJson(AcquisitionStats s) {
  nlohmann::ordered_json j;
  j["acquisitions"] = s.acquisitions;
  j["failed_acquisitions"] = s.failed_acquisitions;
  j["errored_acquisitions"] = s.errored_acquisitions;
  const bool any = s.acquisitions > 0;
  // A selection each, not a sort: a cell of a thousand seeds pools a
  // million latencies.
  j["latency_p50"] = any ? nlohmann::ordered_json(Percentile(&s.latencies, 50)) : nullptr;
  j["latency_p99"] = any ? nlohmann::ordered_json(Percentile(&s.latencies, 99)) : nullptr;
  j["latency_max"] = any ? nlohmann::ordered_json(Percentile(&s.latencies, 100)) : nullptr;
  j["retries_per_acquisition"] = Ratio(s.repeated_commands, s.acquisitions);
  j["commands_per_acquisition"] = Ratio(s.commands, s.acquisitions);
  // Acquisitions per simulated second.
  // Nothing tried (a rate limiter): no figure rather than a zero.
  j["throughput_per_s"] = s.acquisitions + s.failed_acquisitions + s.errored_acquisitions == 0
                              ? nullptr
                              : Ratio(s.acquisitions * 1'000'000'000, s.simulated.count());
  return j;
}

}  // namespace locksim
