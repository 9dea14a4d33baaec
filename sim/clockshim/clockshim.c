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
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
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

typedef int (*clock_gettime_fn)(clockid_t, struct timespec*);
static clock_gettime_fn g_vdso_clock_gettime; /* set once, before main() */

/* The address of `name` in the vDSO the kernel mapped into this process, or
 * NULL. The vDSO is a small ELF shared object; its dynamic section gives the
 * symbol and string tables, and DT_HASH's second word the symbol count (as
 * in the kernel's tools/testing/selftests/vDSO/parse_vdso.c). */
static void* vdso_symbol(const char* name) {
  const uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
  if (base == 0) return NULL;
  const ElfW(Ehdr)* eh = (const ElfW(Ehdr)*)base;
  const ElfW(Phdr)* ph = (const ElfW(Phdr)*)(base + eh->e_phoff);
  uintptr_t bias = 0;
  int loaded = 0;
  const ElfW(Dyn)* dyn = NULL;
  for (int i = 0; i < eh->e_phnum; ++i) {
    if (ph[i].p_type == PT_LOAD && !loaded) {
      bias = base + ph[i].p_offset - ph[i].p_vaddr;
      loaded = 1;
    } else if (ph[i].p_type == PT_DYNAMIC) {
      dyn = (const ElfW(Dyn)*)(base + ph[i].p_offset);
    }
  }
  if (!loaded || dyn == NULL) return NULL;
  const ElfW(Sym)* symtab = NULL;
  const char* strtab = NULL;
  const ElfW(Word)* hash = NULL;
  for (; dyn->d_tag != DT_NULL; ++dyn) {
    if (dyn->d_tag == DT_SYMTAB) symtab = (const ElfW(Sym)*)(dyn->d_un.d_ptr + bias);
    if (dyn->d_tag == DT_STRTAB) strtab = (const char*)(dyn->d_un.d_ptr + bias);
    if (dyn->d_tag == DT_HASH) hash = (const ElfW(Word)*)(dyn->d_un.d_ptr + bias);
  }
  if (symtab == NULL || strtab == NULL || hash == NULL) return NULL;
  for (ElfW(Word) i = 0; i < hash[1]; ++i) {
    const ElfW(Sym)* sym = &symtab[i];
    if (ELF64_ST_TYPE(sym->st_info) != STT_FUNC || sym->st_shndx == SHN_UNDEF) continue;
    if (strcmp(strtab + sym->st_name, name) == 0) return (void*)(sym->st_value + bias);
  }
  return NULL;
}

__attribute__((constructor)) static void locksim_clock_init(void) {
  /* x86_64 names it __vdso_clock_gettime, arm64 __kernel_clock_gettime. */
  g_vdso_clock_gettime = (clock_gettime_fn)vdso_symbol("__vdso_clock_gettime");
  if (g_vdso_clock_gettime == NULL) {
    g_vdso_clock_gettime = (clock_gettime_fn)vdso_symbol("__kernel_clock_gettime");
  }
  const char* path = getenv("LOCKSIM_CLOCK_FILE");
  if (path == NULL || path[0] == '\0') return;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  void* p = mmap(NULL, sizeof(struct locksim_clock), PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (p != MAP_FAILED) g_clock = (const struct locksim_clock*)p;
}

static int real_clock_gettime(clockid_t id, struct timespec* ts) {
  if (g_vdso_clock_gettime != NULL) return g_vdso_clock_gettime(id, ts);
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

/* Whether the real clock is read through the vDSO (1) or by the system
 * call (0): for the shim's test. */
int locksim_clockshim_reads_vdso(void) { return g_vdso_clock_gettime != NULL; }

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
