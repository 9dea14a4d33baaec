#include "sim/core/interrupt.h"

#include <poll.h>

namespace locksim {
namespace {

// A signal handler can only reach the rest of the program through variables
// of static storage, and the signal mask is the process's: these, and the
// crash report's text (sim/core/crash.cc), are the only such variables in
// locksim.
volatile sig_atomic_t g_pending_signal = 0;
sigset_t g_wait_mask;  // the mask to wait with: ours unblocked
bool g_active = false;

void Record(int signo) { g_pending_signal = signo; }

}  // namespace

// The signals are blocked while the harness works and unblocked only inside
// ppoll(), atomically (pselect's pattern): a signal that arrives between
// two polls stays pending and interrupts the next poll at once, instead of
// being noticed only when that poll times out.
InterruptGuard::InterruptGuard() {
  g_pending_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = &Record;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: ppoll() returns EINTR at once
  sigset_t block;
  sigemptyset(&block);
  for (int i = 0; i < 3; ++i) {
    sigaction(kSignals[i], &sa, &previous_[i]);
    sigaddset(&block, kSignals[i]);
  }
  sigprocmask(SIG_BLOCK, &block, &previous_mask_);
  g_wait_mask = previous_mask_;
  for (int signo : kSignals) sigdelset(&g_wait_mask, signo);
  g_active = true;
}

InterruptGuard::~InterruptGuard() {
  g_active = false;
  sigprocmask(SIG_SETMASK, &previous_mask_, nullptr);
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &previous_[i], nullptr);
}

void InterruptGuard::ThrowIfInterrupted() {
  if (g_pending_signal != 0) throw Interrupted(g_pending_signal);
}

int InterruptGuard::Poll(pollfd* fds, size_t nfds, Nanos timeout) {
  ThrowIfInterrupted();
  if (timeout.count() < 0) timeout = Nanos(0);
  timespec ts{static_cast<time_t>(timeout.count() / 1000000000),
              static_cast<long>(timeout.count() % 1000000000)};
  const int n = ppoll(fds, nfds, &ts, g_active ? &g_wait_mask : nullptr);
  ThrowIfInterrupted();
  return n;
}

void InterruptGuard::ResetInChild() {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  signal(SIGPIPE, SIG_DFL);
}
int InterruptGuard::PendingSignal() { return g_pending_signal; }

const sigset_t* InterruptGuard::WaitMask() { return g_active ? &g_wait_mask : nullptr; }

}  // namespace locksim
