/* locksim clock shim: an LD_PRELOAD library that moves the wall clock of the
 * process it is loaded into (a redis-server), under the harness's control.
 *
 * Why not libfaketime: Debian 12's libfaketime 0.9.10 cannot start Debian's
 * jemalloc-linked redis-server (it aborts on recursive clock_gettime calls
 * made while jemalloc initialises). This shim never allocates, never calls
 * dlsym, and reads the real clock with the raw system call.
 *
 * Control: the file named by LOCKSIM_CLOCK_FILE holds a struct
 * locksim_clock (clock_control.h), mapped shared and read on every call:
 *   frozen_ns != 0  -> the wall clock reads exactly frozen_ns (unix ns);
 *   otherwise       -> real + offset_ns + (real - anchor_ns) * drift_ppm / 1e6.
 * The harness writes it under a sequence lock (seq odd while writing), so a
 * reader never sees half of an update; reading takes no system call.
 * Only CLOCK_REALTIME(_COARSE), gettimeofday() and time() are moved: Redis
 * expires keys by its wall clock (mstime()), while its event loop keeps
 * using the monotonic clock untouched. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

struct locksim_clock {
  volatile int64_t offset_ns;
  volatile int64_t frozen_ns;
  volatile int64_t drift_ppm;
  volatile int64_t anchor_ns;
  volatile uint64_t seq;
};

static const struct locksim_clock* g_clock; /* set once, before main() */

__attribute__((constructor)) static void locksim_clock_init(void) {
  const char* path = getenv("LOCKSIM_CLOCK_FILE");
  if (path == NULL || path[0] == '\0') return;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  void* p = mmap(NULL, sizeof(struct locksim_clock), PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (p != MAP_FAILED) g_clock = (const struct locksim_clock*)p;
}

static int real_clock_gettime(clockid_t id, struct timespec* ts) {
  return (int)syscall(SYS_clock_gettime, id, ts);
}

static int64_t moved_realtime_ns(void) {
  struct timespec ts;
  real_clock_gettime(CLOCK_REALTIME, &ts);
  const int64_t ns = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
  if (g_clock == NULL) return ns;
  for (;;) {
    const uint64_t seq = __atomic_load_n(&g_clock->seq, __ATOMIC_ACQUIRE);
    if (seq & 1) continue; /* the harness is writing */
    const int64_t frozen = g_clock->frozen_ns, offset = g_clock->offset_ns;
    const int64_t ppm = g_clock->drift_ppm, anchor = g_clock->anchor_ns;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&g_clock->seq, __ATOMIC_RELAXED) != seq) continue;
    if (frozen != 0) return frozen;
    const int64_t drift = ppm == 0 ? 0 : (int64_t)((__int128)(ns - anchor) * ppm / 1000000);
    return ns + offset + drift;
  }
}

int clock_gettime(clockid_t id, struct timespec* ts) {
  if (id != CLOCK_REALTIME && id != CLOCK_REALTIME_COARSE) return real_clock_gettime(id, ts);
  int64_t ns = moved_realtime_ns();
  ts->tv_sec = (time_t)(ns / 1000000000LL);
  ts->tv_nsec = (long)(ns % 1000000000LL);
  return 0;
}

int gettimeofday(struct timeval* tv, void* tz) {
  (void)tz;
  if (tv != NULL) {
    int64_t ns = moved_realtime_ns();
    tv->tv_sec = (time_t)(ns / 1000000000LL);
    tv->tv_usec = (suseconds_t)((ns % 1000000000LL) / 1000);
  }
  return 0;
}

time_t time(time_t* out) {
  time_t t = (time_t)(moved_realtime_ns() / 1000000000LL);
  if (out != NULL) *out = t;
  return t;
}
