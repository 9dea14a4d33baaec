// How locksim's processes ask glibc's malloc to keep memory between runs.
//
// A virtual run builds its history and its world (about 5 MB for a
// 10 000-command scenario) and frees them at its end; explore, verify and
// compare run thousands of them one after another in the same process.
// With glibc's defaults the large vectors come from fresh mmap()s and the
// freed heap top goes back to the kernel, so every run pays a page fault
// for each page it touches again: on 2 cores under a hypervisor that was
// half of a seed's CPU time (perf: the faults in History::Append and in
// the memmove of vectors growing). Keeping up to 64 MB of freed memory in
// the process, and serving blocks below 32 MB from the heap, halves it.
// Results do not depend on it: it changes where memory comes from, never
// what a run computes.
#ifndef LOCKSIM_SIM_CORE_ALLOCATOR_H_
#define LOCKSIM_SIM_CORE_ALLOCATOR_H_

namespace locksim {

// Called once, first thing in main(), before any thread starts.
void KeepMemoryBetweenRuns();

}  // namespace locksim

#endif  // LOCKSIM_SIM_CORE_ALLOCATOR_H_
