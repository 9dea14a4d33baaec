#include "sim/vredis/sha1.h"

#include <algorithm>
#include <cstring>

namespace locksim {
namespace {

uint32_t RotateLeft(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

}  // namespace

Sha1::Sha1() : h_{0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0} {}

void Sha1::Update(std::string_view data) {
  if (data.empty()) return;  // data() may be null: no memcpy from it
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  size_t n = data.size();
  total_bytes_ += n;
  if (buffered_ > 0) {
    const size_t take = std::min(n, buffer_.size() - buffered_);
    std::memcpy(buffer_.data() + buffered_, p, take);
    buffered_ += take;
    p += take;
    n -= take;
    if (buffered_ < buffer_.size()) return;
    ProcessBlock(buffer_.data());
    buffered_ = 0;
  }
  for (; n >= 64; p += 64, n -= 64) ProcessBlock(p);
  std::memcpy(buffer_.data(), p, n);
  buffered_ = n;
}

Sha1::Digest Sha1::Final() {
  // FIPS 180-4 5.1.1: a 1 bit, zeros up to 56 mod 64 bytes, then the
  // message length in bits as a big-endian 64-bit number.
  const uint64_t bits = total_bytes_ * 8;
  uint8_t pad[72] = {0x80};
  const size_t pad_len = (buffered_ < 56 ? 56 : 120) - buffered_;
  for (int i = 0; i < 8; ++i) {
    pad[pad_len + i] = static_cast<uint8_t>(bits >> (56 - 8 * i));
  }
  Update(std::string_view(reinterpret_cast<const char*>(pad), pad_len + 8));
  Digest out;
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<uint8_t>(h_[i] >> (24 - 8 * j));
  }
  return out;
}

// FIPS 180-4 6.1.2: the 80-round compression of one 512-bit block.
void Sha1::ProcessBlock(const uint8_t* block) {
  uint32_t w[80];
  for (int t = 0; t < 16; ++t) {
    w[t] = (uint32_t{block[4 * t]} << 24) | (uint32_t{block[4 * t + 1]} << 16) |
           (uint32_t{block[4 * t + 2]} << 8) | uint32_t{block[4 * t + 3]};
  }
  for (int t = 16; t < 80; ++t) {
    w[t] = RotateLeft(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
  }
  uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4];
  for (int t = 0; t < 80; ++t) {
    uint32_t f, k;
    if (t < 20) {
      f = (b & c) | (~b & d);
      k = 0x5A827999;
    } else if (t < 40) {
      f = b ^ c ^ d;
      k = 0x6ED9EBA1;
    } else if (t < 60) {
      f = (b & c) | (b & d) | (c & d);
      k = 0x8F1BBCDC;
    } else {
      f = b ^ c ^ d;
      k = 0xCA62C1D6;
    }
    const uint32_t temp = RotateLeft(a, 5) + f + e + k + w[t];
    e = d;
    d = c;
    c = RotateLeft(b, 30);
    b = a;
    a = temp;
  }
  h_[0] += a;
  h_[1] += b;
  h_[2] += c;
  h_[3] += d;
  h_[4] += e;
}

std::string Sha1Hex(std::string_view data) {
  static constexpr char kHex[] = "0123456789abcdef";
  Sha1 sha;
  sha.Update(data);
  std::string out;
  out.reserve(40);
  for (uint8_t byte : sha.Final()) {
    out.push_back(kHex[byte >> 4]);
    out.push_back(kHex[byte & 0xF]);
  }
  return out;
}

}  // namespace locksim
