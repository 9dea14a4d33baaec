// ClockControl: the harness's side of the clock shim (sim/clockshim). It
// owns the shared file a redis-server started with the shim reads on every
// clock call, and moves that server's wall clock: freeze it at an exact unix
// time (the differential tests), or offset it (clock faults).
#ifndef LOCKSIM_SIM_REAL_CLOCK_CONTROL_H_
#define LOCKSIM_SIM_REAL_CLOCK_CONTROL_H_

#include <cstdint>
#include <string>

#include "sim/core/time.h"

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
  // The clock runs `offset` ahead of real from now on, and drifts by
  // `drift_ppm` parts per million of the real time that passes from now.
  void Move(Nanos offset, int64_t drift_ppm);
  // Where the shim library was built (for LD_PRELOAD).
  static std::string ShimPath();

 private:
  struct Shared {  // the shim's struct locksim_clock
    volatile int64_t offset_ns;
    volatile int64_t frozen_ns;
    volatile int64_t drift_ppm;
    volatile int64_t anchor_ns;
    volatile uint64_t seq;
  };
  // Writes under the sequence lock the shim reads with.
  void Write(int64_t offset, int64_t frozen, int64_t drift_ppm, int64_t anchor);
  std::string path_;
  Shared* shared_ = nullptr;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_REAL_CLOCK_CONTROL_H_
