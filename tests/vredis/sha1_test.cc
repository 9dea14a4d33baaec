#include "sim/vredis/sha1.h"

#include <gtest/gtest.h>

#include <string>

namespace locksim {
namespace {

// Test vectors of FIPS 180 (the NIST "SHA1ShortMsg" examples and the
// million-'a' message of FIPS 180-1 appendix C).
TEST(Sha1, MatchesTheFipsTestVectors) {
  EXPECT_EQ(Sha1Hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(Sha1Hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(Sha1Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(Sha1Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                    "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
            "a49b2446a02c645bf419f995b67091253a04a259");
  EXPECT_EQ(Sha1Hex(std::string(1000000, 'a')), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

TEST(Sha1, PaddingBoundariesAroundOneBlock) {
  // 55 bytes fit one padded block, 56 need two: both sides of the edge.
  EXPECT_EQ(Sha1Hex(std::string(55, 'a')), "c1c8bbdc22796e28c0e15163d20899b65621d65a");
  EXPECT_EQ(Sha1Hex(std::string(56, 'a')), "c2db330f6083854c99d4b5bfb6e8f29f201be699");
  EXPECT_EQ(Sha1Hex(std::string(64, 'a')), "0098ba824b5c16427bd7a1122a5a442a25ec644d");
}

TEST(Sha1, ChunkedUpdatesGiveTheSameDigestAsOneShot) {
  std::string message;
  for (int i = 0; i < 1000; ++i) message += static_cast<char>(i * 7 + 3);
  const std::string whole = Sha1Hex(message);
  for (size_t chunk : {1, 3, 63, 64, 65, 200}) {
    Sha1 sha;
    for (size_t i = 0; i < message.size(); i += chunk) {
      sha.Update(std::string_view(message).substr(i, chunk));
    }
    std::string hex;
    for (uint8_t b : sha.Final()) {
      static constexpr char kHex[] = "0123456789abcdef";
      hex += kHex[b >> 4];
      hex += kHex[b & 0xF];
    }
    EXPECT_EQ(hex, whole) << "chunk " << chunk;
  }
}

TEST(Sha1, HandlesBinaryBytes) {
  EXPECT_EQ(Sha1Hex(std::string("\0", 1)), "5ba93c9db0cff93f52b521d7420e43f6eda2784f");
}

}  // namespace
}  // namespace locksim
