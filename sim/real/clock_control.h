// ClockControl: the harness's side of the clock shim (sim/clockshim). It
// owns the shared file a redis-server started with the shim reads on every
// clock call, and moves that server's wall clock: freeze it at an exact unix
// time (the differential tests), or offset it (clock faults).
#ifndef LOCKSIM_SIM_REAL_CLOCK_CONTROL_H_
#define LOCKSIM_SIM_REAL_CLOCK_CONTROL_H_

#include <cstdint>
#include <string>

#include "sim/time.h"

namespace locksim {

class ClockControl {
 public:
  // Creates (or truncates) the control file at `path`. Throws HarnessError.
  explicit ClockControl(std::string path);
  ~ClockControl();
  ClockControl(const ClockControl&) = delete;
  ClockControl& operator=(const ClockControl&) = delete;

  const std::string& path() const { return path_; }
  void Freeze(Nanos unix_time);  // the clock reads exactly this
  void Offset(Nanos offset);     // the clock runs, `offset` ahead of real
  // Where the shim library was built (for LD_PRELOAD).
  static std::string ShimPath();

 private:
  struct Shared {
    volatile int64_t offset_ns;
    volatile int64_t frozen_ns;
  };
  std::string path_;
  Shared* shared_ = nullptr;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_REAL_CLOCK_CONTROL_H_
