// What locksim says when it crashes: a crash (SIGSEGV, SIGBUS, SIGILL,
// SIGFPE, SIGABRT) is a bug in locksim, never a verdict. Before the process
// dies of the signal, as it would have (so a core dump, and a shell's or
// ctest's view of it, stay the same), stderr gets one line naming the
// signal and the command line to replay it with, and the stack as return
// addresses (`addr2line -f -C -e <binary> <offsets>` names them: the build
// keeps debug information). A stack overflow of the main thread is
// reported too (the handler runs on a stack of its own there).
//
// Not installed under AddressSanitizer, whose own report says more.
#ifndef LOCKSIM_SIM_CORE_CRASH_H_
#define LOCKSIM_SIM_CORE_CRASH_H_

namespace locksim {

// Called once, first thing in main(); keeps argv for the report.
void ReportCrashes(int argc, char** argv);

}  // namespace locksim

#endif  // LOCKSIM_SIM_CORE_CRASH_H_
