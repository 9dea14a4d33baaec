// InterruptGuard: while a real run owns redis-server processes, SIGINT,
// SIGTERM and SIGHUP must not kill the harness before it has stopped them.
// The guard turns those signals into a flag; the real world's poll loop and
// the server start-up check it and throw Interrupted, so that destructors
// stop every server and remove its folder on the way out. (SIGKILL cannot be
// caught: there PR_SET_PDEATHSIG kills the servers.)
#ifndef LOCKSIM_SIM_CORE_INTERRUPT_H_
#define LOCKSIM_SIM_CORE_INTERRUPT_H_

#include <signal.h>
#include <string.h>

#include <stdexcept>
#include <string>

#include "sim/core/time.h"

struct pollfd;

namespace locksim {

struct Interrupted : std::runtime_error {
  explicit Interrupted(int signo)
      : std::runtime_error(std::string("interrupted by SIG") +
                           (sigabbrev_np(signo) ? sigabbrev_np(signo) : "?")),
        signal(signo) {}
  int signal;
};

class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // Throws Interrupted if one of the signals arrived since the guard began.
  static void ThrowIfInterrupted();
  // ppoll() with the guarded signals unblocked for the wait only; throws
  // Interrupted if one arrives. Without a guard, a plain ppoll().
  static int Poll(pollfd* fds, size_t nfds, Nanos timeout);
  // In a forked child before exec: nothing blocked, SIGPIPE back to default.
  static void ResetInChild();
  // The signal that arrived since the guard began, or 0: for loops whose
  // requested stop is a normal end (locksim serve), not an error.
  static int PendingSignal();
  // The signal mask to wait with (ppoll's last argument): the guarded
  // signals unblocked. Only while a guard is alive.
  static const sigset_t* WaitMask();

 private:
  static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction previous_[3];
  sigset_t previous_mask_;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_CORE_INTERRUPT_H_
