#include "sim/real/clock_control.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <time.h>

#include <cstdio>

#include "sim/core/errors.h"
#include "sim/core/resources.h"

namespace locksim {

ClockControl::ClockControl(std::string path) : path_(std::move(path)) {
  int fd = open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || ftruncate(fd, sizeof(Shared)) != 0) {
    if (fd >= 0) close(fd);
    throw HarnessError("cannot create clock control file " + path_);
  }
  void* p = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) throw HarnessError("cannot map clock control file " + path_);
  shared_ = static_cast<Shared*>(p);
  Write(0, 0, 0, 0);
}

ClockControl::~ClockControl() {
  if (shared_ != nullptr) munmap(shared_, sizeof(Shared));
  std::remove(path_.c_str());
}

void ClockControl::Write(int64_t offset, int64_t frozen, int64_t drift_ppm, int64_t anchor) {
  __atomic_fetch_add(&shared_->seq, 1, __ATOMIC_ACQ_REL);  // odd: readers retry
  shared_->offset_ns = offset;
  shared_->frozen_ns = frozen;
  shared_->drift_ppm = drift_ppm;
  shared_->anchor_ns = anchor;
  __atomic_fetch_add(&shared_->seq, 1, __ATOMIC_RELEASE);
}

void ClockControl::Freeze(Nanos unix_time) { Write(0, unix_time.count(), 0, 0); }

void ClockControl::Offset(Nanos offset) { Write(offset.count(), 0, 0, 0); }

void ClockControl::Move(Nanos offset, int64_t drift_ppm) {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  Write(offset.count(), 0, drift_ppm, int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec);
}

std::string ClockControl::ShimPath() { return ClockShimPath(); }

}  // namespace locksim
