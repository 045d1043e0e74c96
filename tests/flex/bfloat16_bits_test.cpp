// flex's inline f32 <-> bf16 conversions (bfloat16_bits.h) against ember::BFloat16's, bit for bit:
// every bf16, and f32 patterns spread over the whole range with every rounding tie, its
// neighbours, the overflow edge and NaNs of every payload kind.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <vector>

#include "backends/flex/bfloat16_bits.h"

namespace ember::flex::test {
namespace {

TEST(FlexBFloat16Bits, WideningEqualsBFloat16sForEveryPattern) {
  for (uint32_t bits = 0; bits <= 0xFFFFu; ++bits) {
    const BFloat16 value = BFloat16::from_bits(static_cast<uint16_t>(bits));
    ASSERT_EQ(std::bit_cast<uint32_t>(from_bfloat16(value)),
              std::bit_cast<uint32_t>(static_cast<float>(value)))
        << std::hex << bits;
  }
}

/// f32 bit patterns: every tie (low half 0x8000) and its two neighbours for every upper half,
/// and a stride through all 2^32 patterns.
std::vector<uint32_t> narrowing_patterns() {
  std::vector<uint32_t> patterns;
  for (uint32_t upper = 0; upper <= 0xFFFFu; ++upper) {
    for (const uint32_t low : {0x0000u, 0x0001u, 0x7FFFu, 0x8000u, 0x8001u, 0xFFFFu})
      patterns.push_back(upper << 16 | low);
  }
  for (uint64_t bits = 0; bits <= 0xFFFF'FFFFu; bits += 4099)
    patterns.push_back(static_cast<uint32_t>(bits));
  return patterns;
}

TEST(FlexBFloat16Bits, NarrowingEqualsBFloat16sRounding) {
  for (const uint32_t bits : narrowing_patterns()) {
    const float value = std::bit_cast<float>(bits);
    ASSERT_EQ(to_bfloat16(value).bits, BFloat16(value).bits) << std::hex << bits;
  }
}

}  // namespace
}  // namespace ember::flex::test
