// The one random source of a run. Algorithm, fixed and documented so that the
// same seed gives the same stream with any compiler or standard library:
//
//   * seeding: SplitMix64 (Steele, Lea, Flood 2014) expands the 64-bit seed
//     into the four words of state;
//   * stream:  xoshiro256** 1.0 (Blackman, Vigna 2018);
//   * Uniform(n): rejection sampling on the 64-bit output (no modulo bias,
//     no std::uniform_int_distribution, whose algorithm varies by library).
//
// Only code whose decision to draw is itself deterministic may draw from it
// (FoundationDB's rule), which in a single-threaded simulation is all code.
#ifndef LOCKSIM_SIM_CORE_RANDOM_H_
#define LOCKSIM_SIM_CORE_RANDOM_H_

#include <cstdint>

namespace locksim {

class Random {
 public:
  explicit Random(uint64_t seed) {
    for (uint64_t& word : s_) word = SplitMix64(&seed);
  }

  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, n). REQUIRES: n > 0.
  uint64_t Uniform(uint64_t n) {
    // A power of two (1 among them: the sampling of a node's one expiring
    // key) divides 2^64: every draw is kept, and its remainder is its low
    // bits. The same draws and results as below, without its 64-bit
    // divisions, a node's cron tick's costliest instructions (perf).
    // (n = 0, which REQUIRES rules out, divides by zero below.)
    if (n != 0 && (n & (n - 1)) == 0) return Next() & (n - 1);
    for (;;) {
      const uint64_t r = Next();
      // Kept when r >= 2^64 mod n, which is below n: a draw of n or more
      // is kept without working that out (a 64-bit division, half of a
      // latency draw's time, perf), and for a small n nearly every draw is.
      if (r >= n || r >= (0 - n) % n) return Remainder(r, n);
    }
  }

  // Uniform in [lo, hi]. REQUIRES: lo <= hi.
  int64_t Between(int64_t lo, int64_t hi) {
    uint64_t span = static_cast<uint64_t>(hi - lo);
    if (span == UINT64_MAX) return static_cast<int64_t>(Next());
    return lo + static_cast<int64_t>(Uniform(span + 1));
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  // r % n by multiplications, not a 64-bit division (Lemire, Kaser, Kurz,
  // "Faster remainder by direct computation", 2019, Theorem 1 with 128
  // fraction bits: c = ceil(2^128 / n), r % n = ((c * r) mod 2^128) * n
  // >> 128, exact for every 64-bit r and n > 1). c costs a 128-bit
  // division: it is worked out for a bound drawn twice in a row (a run's
  // latency draws share one span), and a bound that changes at every draw
  // (a lossy link's loss draws between latencies) divides as before.
  uint64_t Remainder(uint64_t r, uint64_t n) {
    using u128 = unsigned __int128;
    if (n != divisor_) {
      divisor_ = n;
      inverse_ = 0;  // none yet: no n > 1 has c = 0
      return r % n;
    }
    if (inverse_ == 0) inverse_ = ~u128{0} / n + 1;
    const u128 low = inverse_ * r;  // mod 2^128
    const u128 low_times_n_shifted = (static_cast<u128>(static_cast<uint64_t>(low)) * n >> 64) +
                                     (low >> 64) * n;
    return static_cast<uint64_t>(low_times_n_shifted >> 64);
  }
  static uint64_t SplitMix64(uint64_t* x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t s_[4];
  uint64_t divisor_ = 1;  // Remainder's last n (1: none, it never comes), and its c
  unsigned __int128 inverse_ = 0;
};

}  // namespace locksim

#endif  // LOCKSIM_SIM_CORE_RANDOM_H_
