#include "sim/real/clock_control.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>

#include "sim/errors.h"

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
  shared_->offset_ns = 0;
  shared_->frozen_ns = 0;
}

ClockControl::~ClockControl() {
  if (shared_ != nullptr) munmap(shared_, sizeof(Shared));
  std::remove(path_.c_str());
}

void ClockControl::Freeze(Nanos unix_time) { shared_->frozen_ns = unix_time.count(); }

void ClockControl::Offset(Nanos offset) {
  shared_->offset_ns = offset.count();
  shared_->frozen_ns = 0;
}

std::string ClockControl::ShimPath() { return LOCKSIM_CLOCKSHIM_PATH; }

}  // namespace locksim
