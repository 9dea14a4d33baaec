// The searched matrix of `locksim compare --search N`: for every variant
// and fault class (FaultClasses()), N generated seeds of that class alone.
// A cell's verdict is the worst any seed gave (violated > deadlock >
// degraded > safe); its example is the shortest shrunk counterexample among
// the first few seeds with that verdict, replayable as a scenario file.
// "No finding in N seeds" is what a safe cell says, nothing more; with
// --verify, a safe cell verify can search says "verified to bound B", or
// becomes violated with verify's counterexample.
//
// Everything is a function of (algorithms, classes, first seed, N, and
// --verify's K:E): each
// cell is computed by one worker from its own seeds, so the result does not
// depend on --jobs.
#ifndef LOCKSIM_SIM_EXPLORE_SEARCH_H_
#define LOCKSIM_SIM_EXPLORE_SEARCH_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/result/compare_result.h"
#include "sim/result/search_result.h"
#include "sim/scenario/scenario.h"

namespace locksim {

struct SearchOptions {
  std::vector<std::string> algorithms;  // in this order
  std::vector<std::string> classes;     // canonical order (FaultClasses())
  uint64_t first_seed = 1;
  uint64_t seeds = 0;  // per cell
  int jobs = 1;
  // compare --verify K:E: a cell the seeds found safe, of a class verify
  // places, is then verified within K faults at the first E instants
  // (verify's default world otherwise); 0 faults: no verification.
  int verify_faults = 0;
  int verify_events = 40;
};

// Called after each cell: cells done, cells in all, "algorithm × class".
using SearchProgress = std::function<void(int done, int total, const std::string& cell)>;

// Throws InputError for an unknown algorithm or class, HarnessError when a
// shrunk counterexample does not replay.
SearchResult RunSearch(const SearchOptions& options, const SearchProgress& progress = {});

// The fault classes of a story: those of its faults (a node's pause is a
// pause; a heal is its partition's), or {"none"} without faults.
std::vector<std::string> ScenarioFaultClasses(const Scenario& scenario);

// Fills search->disagreements from the stories' matrix: a story that shows
// a variant safe while the search of one of the story's classes found it
// violated, and a story that shows a violation the search of its classes
// did not find.
void FindDisagreements(const CompareResult& stories, SearchResult* search);

}  // namespace locksim

#endif  // LOCKSIM_SIM_EXPLORE_SEARCH_H_
