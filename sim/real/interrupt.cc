#include "sim/real/interrupt.h"

namespace locksim {
namespace {

// A signal handler can only reach the rest of the program through a
// variable of static storage: this is the one such variable in locksim.
volatile sig_atomic_t g_pending_signal = 0;

void Record(int signo) { g_pending_signal = signo; }

}  // namespace

InterruptGuard::InterruptGuard() {
  g_pending_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = &Record;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: poll() returns EINTR at once
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &sa, &previous_[i]);
}

InterruptGuard::~InterruptGuard() {
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &previous_[i], nullptr);
}

void InterruptGuard::ThrowIfInterrupted() {
  if (g_pending_signal != 0) throw Interrupted(g_pending_signal);
}

int InterruptGuard::PendingSignal() { return g_pending_signal; }

}  // namespace locksim
