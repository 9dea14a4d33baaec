// The clock shim (sim/clockshim), loaded into this process with dlopen
// rather than into a redis-server: it finds the kernel's vDSO, so that a
// clock read costs no system call, and it still moves the wall clock as
// ClockControl says. (The servers that run with it are tested through the
// differential tests, with the clock frozen, and f09's clock jump.)
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "sim/real/clock_control.h"
#include "tests/testing/temp_dir.h"

namespace locksim {
namespace {

int64_t RealtimeNanos() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

class ClockShim : public ::testing::Test {
 protected:
  void SetUp() override {
    control_ = std::make_unique<ClockControl>(dir_.path + "/clock");
    // The shim maps the control file when it is loaded.
    setenv("LOCKSIM_CLOCK_FILE", control_->path().c_str(), 1);
    handle_ = dlopen(ClockControl::ShimPath().c_str(), RTLD_NOW | RTLD_LOCAL);
    unsetenv("LOCKSIM_CLOCK_FILE");
    ASSERT_NE(handle_, nullptr) << dlerror();
    reads_vdso_ = reinterpret_cast<int (*)()>(dlsym(handle_, "locksim_clockshim_reads_vdso"));
    shim_clock_gettime_ =
        reinterpret_cast<int (*)(clockid_t, timespec*)>(dlsym(handle_, "clock_gettime"));
    ASSERT_NE(reads_vdso_, nullptr);
    ASSERT_NE(shim_clock_gettime_, nullptr);
  }
  void TearDown() override {
    if (handle_ != nullptr) dlclose(handle_);
    control_.reset();
  }
  int64_t ShimRealtimeNanos() {
    timespec ts{};
    shim_clock_gettime_(CLOCK_REALTIME, &ts);
    return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
  }

  TempDir dir_{"locksim-shimtest"};
  std::unique_ptr<ClockControl> control_;
  void* handle_ = nullptr;
  int (*reads_vdso_)() = nullptr;
  int (*shim_clock_gettime_)(clockid_t, timespec*) = nullptr;
};

TEST_F(ClockShim, ReadsTheRealClockThroughTheVdso) {
  EXPECT_EQ(reads_vdso_(), 1) << "the shim fell back to the clock_gettime system call";
}

TEST_F(ClockShim, MovesTheWallClockByTheOffsetAndFreezesIt) {
  using std::chrono::seconds;
  control_->Offset(seconds(3600));
  const int64_t before = RealtimeNanos();
  const int64_t moved = ShimRealtimeNanos();
  const int64_t after = RealtimeNanos();
  EXPECT_GE(moved, before + 3600'000'000'000);
  EXPECT_LE(moved, after + 3600'000'000'000);

  control_->Freeze(seconds(1'700'000'000));
  EXPECT_EQ(ShimRealtimeNanos(), 1'700'000'000'000'000'000);
  timespec mono{};
  // The monotonic clock is never moved: it passes through to the vDSO.
  EXPECT_EQ(shim_clock_gettime_(CLOCK_MONOTONIC, &mono), 0);
  EXPECT_GT(mono.tv_sec + mono.tv_nsec, 0);
}

}  // namespace
}  // namespace locksim
