// The searched matrix of `locksim compare --search N` as plain data: per
// variant and fault class, what N generated seeds of that class found
// (sim/explore/search.h makes it; reports/compare_json.cc writes it).
#ifndef LOCKSIM_SIM_RESULT_SEARCH_RESULT_H_
#define LOCKSIM_SIM_RESULT_SEARCH_RESULT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/time.h"
#include "sim/core/verdict.h"
#include "sim/result/run_result.h"

namespace locksim {

// The shortest shrunk counterexample of a cell's worst verdict.
struct SearchExample {
  uint64_t seed = 0;
  std::string kind;           // explore's kind (sim/explore/explore.h)
  std::string scenario_text;  // the shrunk scenario file, replayable
  int64_t clients = 0;
  int64_t faults = 0;
  Nanos duration{0};
  RunResult run;  // the shrunk file run again, with its history
  // Found by bounded verification (compare --verify) where the cell's
  // seeds found nothing: the command that finds it again.
  std::string verify_rerun;
};

struct SearchCell {
  std::string algorithm;
  std::string fault_class;  // one of FaultClasses()
  std::string skipped;      // why it did not run; empty when it ran
  int64_t runs = 0;         // seeds run
  int64_t with_finding = 0;  // seeds whose verdict was not safe
  // The worst verdict found; safe when nothing was.
  Verdict worst = Verdict::kSafe;
  // The outcomes found before shrinking ("lost-update+mutual-exclusion"),
  // with their seed counts, most frequent first.
  std::vector<std::pair<std::string, int64_t>> outcomes;
  std::optional<SearchExample> example;  // when worst is not safe
  // Bounded verification (compare --verify, sim/explore/verify.h): the
  // bound within which every schedule was checked and found safe ("2
  // faults in 40 instants"), how many distinct schedules that was, and the
  // bound in full.
  std::optional<std::string> verified_bound;
  int64_t verified_schedules = 0;
  std::string verified_bound_text;
};

// Where a story in scenarios/ and the search disagree about a variant.
struct SearchDisagreement {
  std::string scenario;     // the story's name
  std::string algorithm;
  std::string fault_class;  // the search cell compared with
  Verdict story = Verdict::kSafe;
  Verdict search = Verdict::kSafe;
  std::string text;  // one sentence for a reviewer
};

struct SearchResult {
  uint64_t first_seed = 1;
  uint64_t seeds = 0;  // per cell
  std::vector<std::string> algorithms;
  std::vector<std::string> classes;
  std::vector<SearchCell> cells;  // algorithm-major, classes in order
  std::vector<SearchDisagreement> disagreements;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_RESULT_SEARCH_RESULT_H_
