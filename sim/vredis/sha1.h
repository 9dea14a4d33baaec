// SHA-1 (FIPS 180-4), for script ids: Redis names a cached script by the
// SHA-1 of its body, in lower-case hex (eval.c sha1hex(), on top of the
// sha1.c that Redis vendors). None of our Debian dependencies provides
// SHA-1, so this is a small self-contained implementation.
#ifndef LOCKSIM_SIM_VREDIS_SHA1_H_
#define LOCKSIM_SIM_VREDIS_SHA1_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace locksim {

class Sha1 {
 public:
  using Digest = std::array<uint8_t, 20>;

  Sha1();
  // Feeds more message bytes; may be called any number of times.
  void Update(std::string_view data);
  // Pads the message and returns its digest; the object is then spent.
  Digest Final();

 private:
  void ProcessBlock(const uint8_t* block);

  std::array<uint32_t, 5> h_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

// The digest of `data` as 40 lower-case hex digits, as redis sha1hex().
std::string Sha1Hex(std::string_view data);

}  // namespace locksim

#endif  // LOCKSIM_SIM_VREDIS_SHA1_H_
