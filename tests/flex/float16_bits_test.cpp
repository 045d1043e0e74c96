// flex's inline f32 <-> bf16 and f32 <-> f16 conversions (bfloat16_bits.h, half_bits.h) and the
// Cast kernel built on them (and on the vector forms of simd_convert.cpp), against
// ember::BFloat16's and ember::Half's, bit for bit: every 16-bit pattern widened, and f32 patterns
// with every rounding tie of each format, its neighbours, the overflow edges, subnormals, zeros and
// NaNs of every payload kind narrowed.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <vector>

#include "backends/flex/bfloat16_bits.h"
#include "backends/flex/half_bits.h"
#include "backends/flex/simd.h"
#include "flex_test_util.h"

namespace ember::flex::test {
namespace {

TEST(FlexFloat16Bits, WideningEqualsTheTypesOwnForEveryPattern) {
  for (uint32_t bits = 0; bits <= 0xFFFFu; ++bits) {
    const auto pattern = static_cast<uint16_t>(bits);
    const BFloat16 b = BFloat16::from_bits(pattern);
    ASSERT_EQ(std::bit_cast<uint32_t>(from_bfloat16(b)),
              std::bit_cast<uint32_t>(static_cast<float>(b)))
        << std::hex << bits;
    const Half h = Half::from_bits(pattern);
    ASSERT_EQ(std::bit_cast<uint32_t>(from_half(h)), std::bit_cast<uint32_t>(static_cast<float>(h)))
        << std::hex << bits;
  }
}

/// f32 bit patterns: for every value of the bits a format keeps (the upper `kept` bits), the
/// dropped part at zero, one, just below, at and just above the tie, and all ones.
std::vector<uint32_t> ties(int kept) {
  const int dropped = 32 - kept;
  const uint32_t tie = 1u << (dropped - 1);
  std::vector<uint32_t> patterns;
  for (uint64_t upper = 0; upper < (uint64_t{1} << kept); ++upper) {
    for (const uint32_t low : {0u, 1u, tie - 1, tie, tie + 1, (tie << 1) - 1})
      patterns.push_back(static_cast<uint32_t>(upper << dropped) | low);
  }
  return patterns;
}

TEST(FlexFloat16Bits, BFloat16NarrowingEqualsBFloat16sRounding) {
  for (const uint32_t bits : ties(16)) {
    const float value = std::bit_cast<float>(bits);
    ASSERT_EQ(to_bfloat16(value).bits, BFloat16(value).bits) << std::hex << bits;
  }
}

TEST(FlexFloat16Bits, HalfNarrowingEqualsHalfsRoundingWhereItApplies) {
  int covered = 0;
  for (const uint32_t bits : ties(19)) {  // f16 keeps the upper 19 bits of a normal f32
    if (half_needs_constructor(bits)) continue;
    ++covered;
    ASSERT_EQ(half_bits(bits), Half(std::bit_cast<float>(bits)).bits) << std::hex << bits;
  }
  EXPECT_GT(covered, 2'000'000) << "the formula covers all but NaNs and f16 subnormals";
}

TEST(FlexFloat16Bits, CastKernelEqualsTheTypesRounding) {
  // Through flex's Cast, whose contiguous runs narrow a vector at a time (a vector holding a NaN
  // falls back to Half's constructor).
  const std::vector<uint32_t> patterns = ties(19);
  std::vector<float> values;
  for (const uint32_t bits : patterns)
    values.push_back(std::bit_cast<float>(bits));
  const TensorData input(values, Shape{static_cast<int64_t>(values.size())});
  FlexBackend flex;
  const std::vector<Half> halves =
      run_on(flex, ir::Cast{DType::F16}, {input}).at(0).to_vector<Half>();
  const std::vector<BFloat16> bfloats =
      run_on(flex, ir::Cast{DType::BF16}, {input}).at(0).to_vector<BFloat16>();
  for (std::size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(halves[i].bits, Half(values[i]).bits) << std::hex << patterns[i];
    ASSERT_EQ(bfloats[i].bits, BFloat16(values[i]).bits) << std::hex << patterns[i];
  }
}

TEST(FlexFloat16Bits, RoundingInPlaceEqualsTheTypesRounding) {
  // simd::round_to_*: what a fused program does to each bf16 / f16 instruction's f32 result.
  const std::vector<uint32_t> patterns = ties(19);
  std::vector<float> bfloats;
  for (const uint32_t bits : patterns)
    bfloats.push_back(std::bit_cast<float>(bits));
  std::vector<float> halves = bfloats;
  simd::round_to_bfloat16(bfloats.data(), static_cast<int64_t>(bfloats.size()));
  simd::round_to_half(halves.data(), static_cast<int64_t>(halves.size()));
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    const float value = std::bit_cast<float>(patterns[i]);
    ASSERT_EQ(std::bit_cast<uint32_t>(bfloats[i]),
              std::bit_cast<uint32_t>(static_cast<float>(BFloat16(value))))
        << std::hex << patterns[i];
    ASSERT_EQ(std::bit_cast<uint32_t>(halves[i]),
              std::bit_cast<uint32_t>(static_cast<float>(Half(value))))
        << std::hex << patterns[i];
  }
}

TEST(FlexFloat16Bits, CastKernelWidensEveryPatternAsTheTypes) {
  // Through flex's Cast, whose contiguous runs widen a vector at a time (simd_convert.cpp).
  std::vector<BFloat16> bfloats;
  std::vector<Half> halves;
  for (uint32_t bits = 0; bits <= 0xFFFFu; ++bits) {
    bfloats.push_back(BFloat16::from_bits(static_cast<uint16_t>(bits)));
    halves.push_back(Half::from_bits(static_cast<uint16_t>(bits)));
  }
  FlexBackend flex;
  const auto widened = [&](const auto& values) {
    const TensorData input(values, Shape{static_cast<int64_t>(values.size())});
    return run_on(flex, ir::Cast{DType::F32}, {input}).at(0).template to_vector<float>();
  };
  const std::vector<float> from_bfloats = widened(bfloats);
  const std::vector<float> from_halves = widened(halves);
  for (std::size_t i = 0; i < bfloats.size(); ++i) {
    ASSERT_EQ(std::bit_cast<uint32_t>(from_bfloats[i]),
              std::bit_cast<uint32_t>(static_cast<float>(bfloats[i])))
        << std::hex << i;
    ASSERT_EQ(std::bit_cast<uint32_t>(from_halves[i]),
              std::bit_cast<uint32_t>(static_cast<float>(halves[i])))
        << std::hex << i;
  }
}

}  // namespace
}  // namespace ember::flex::test
