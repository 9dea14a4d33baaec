#include "sim/core/crash.h"

#include <execinfo.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>

namespace locksim {
namespace {

// A signal handler reaches the rest of the program only through static
// storage: the report's text is prepared here once, at start-up, so that
// the handler only calls async-signal-safe functions (write, backtrace_
// symbols_fd after a first backtrace() has loaded what it needs).
char g_command_line[2048];
size_t g_command_line_size = 0;
alignas(16) char g_alt_stack[64 * 1024];

// CrashNote's slots, each taken by one note at a time, read by the handler
// as a sequence lock: `seq` is even (and not 0) while the slot holds a
// text, odd while one is written and once it is cleared. The handler copies
// a text out and writes it only if `seq` did not move meanwhile (a worker
// may end one seed and start the next while the handler reads).
struct NoteSlot {
  std::atomic<bool> taken{false};
  std::atomic<uint64_t> seq{0};
  std::atomic<size_t> size{0};
  std::atomic<char> text[256];
};
NoteSlot g_notes[64];

void Write(const char* s, size_t n) {
  while (n > 0) {
    const ssize_t w = write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}
void Write(const char* s) { Write(s, strlen(s)); }

void OnCrash(int signo) {
  Write("locksim: crashed with ");
  Write(sigabbrev_np(signo) != nullptr ? sigabbrev_np(signo) : "a signal");
  Write(": a bug in locksim, not a verdict. Replay: ");
  Write(g_command_line, g_command_line_size);
  for (NoteSlot& note : g_notes) {
    char text[sizeof note.text];
    const uint64_t before = note.seq.load(std::memory_order_acquire);
    if (before == 0 || before % 2 == 1) continue;
    const size_t size = std::min(note.size.load(std::memory_order_relaxed), sizeof text);
    for (size_t i = 0; i < size; ++i) text[i] = note.text[i].load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (note.seq.load(std::memory_order_relaxed) != before) continue;
    Write("\nlocksim: it was running ");
    Write(text, size);
  }
  Write("\nlocksim: the stack (addr2line -f -C -e <binary> <offset> names a frame):\n");
  void* frames[64];
  const int n = backtrace(frames, 64);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
  // SA_RESETHAND put the default action back, and SA_NODEFER leaves the
  // signal unblocked: the process dies of it here, whether it came from a
  // fault or from kill().
  raise(signo);
}

}  // namespace

CrashNote::CrashNote(std::string_view text) {
  for (int i = 0; i < static_cast<int>(std::size(g_notes)); ++i) {
    bool free = false;
    if (!g_notes[i].taken.compare_exchange_strong(free, true)) continue;
    NoteSlot& note = g_notes[i];
    // `seq` only grows, so a text replaced between the handler's two reads
    // is never taken for the one it started reading.
    uint64_t seq = note.seq.load(std::memory_order_relaxed);
    if (seq % 2 == 0) note.seq.store(++seq, std::memory_order_relaxed);  // odd: being written
    std::atomic_thread_fence(std::memory_order_release);
    const size_t size = std::min(text.size(), std::size(note.text));
    for (size_t j = 0; j < size; ++j) note.text[j].store(text[j], std::memory_order_relaxed);
    note.size.store(size, std::memory_order_relaxed);
    note.seq.store(seq + 1, std::memory_order_release);  // even: readable
    slot_ = i;
    return;
  }
}

CrashNote::~CrashNote() {
  if (slot_ < 0) return;
  NoteSlot& note = g_notes[slot_];
  note.seq.store(note.seq.load(std::memory_order_relaxed) + 1, std::memory_order_release);  // odd: empty
  note.taken.store(false, std::memory_order_release);
}

void ReportCrashes(int argc, char** argv) {
#if defined(__SANITIZE_ADDRESS__)
  (void)argc;
  (void)argv;
#else
  size_t at = 0;
  for (int i = 0; i < argc && at + 1 < sizeof g_command_line; ++i) {
    if (i > 0) g_command_line[at++] = ' ';
    for (const char* c = argv[i]; *c != '\0' && at + 1 < sizeof g_command_line; ++c) {
      g_command_line[at++] = *c;
    }
  }
  g_command_line_size = at;
  void* warm[1];
  backtrace(warm, 1);  // loads libgcc's unwinder now, not in the handler
  stack_t ss{};
  ss.ss_sp = g_alt_stack;
  ss.ss_size = sizeof g_alt_stack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = &OnCrash;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND | SA_ONSTACK | SA_NODEFER;
  for (int signo : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) sigaction(signo, &sa, nullptr);
#endif
}

}  // namespace locksim
