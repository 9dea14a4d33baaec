// What locksim says when it crashes: a crash (SIGSEGV, SIGBUS, SIGILL,
// SIGFPE, SIGABRT) is a bug in locksim, never a verdict. Before the process
// dies of the signal, as it would have (so a core dump, and a shell's or
// ctest's view of it, stay the same), stderr gets one line naming the
// signal and the command line to replay it with, a line for each part of
// the work under way that can be replayed alone (CrashNote: an explore
// seed, a compare cell), and the stack as return
// addresses (`addr2line -f -C -e <binary> <offsets>` names them: the build
// keeps debug information). A stack overflow of the main thread is
// reported too (the handler runs on a stack of its own there).
//
// Not installed under AddressSanitizer, whose own report says more.
#ifndef LOCKSIM_SIM_CORE_CRASH_H_
#define LOCKSIM_SIM_CORE_CRASH_H_

#include <string_view>

namespace locksim {

// Called once, first thing in main(); keeps argv for the report.
void ReportCrashes(int argc, char** argv);

// Names, while it lives, a part of the command's work that can be replayed
// alone: "explore seed 17 (replay it alone: ...)". The report lists every
// live note after the command line, since a command that runs many seeds
// or cells is slow to replay whole, and a signal sent with kill reaches
// any thread, not the one at work. Up to 64 at once (one per worker
// thread), each cut to 256 bytes; more are not listed.
class CrashNote {
 public:
  explicit CrashNote(std::string_view text);
  ~CrashNote();
  CrashNote(const CrashNote&) = delete;
  CrashNote& operator=(const CrashNote&) = delete;

 private:
  int slot_ = -1;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_CORE_CRASH_H_
