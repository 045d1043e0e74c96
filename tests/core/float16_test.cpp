#include "ember/float16.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "ember/tensor_data.h"
#include "test_helpers.h"

namespace ember {
namespace {

using test::printed;

constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr float kNaNF = std::numeric_limits<float>::quiet_NaN();

uint16_t half_bits(float v) {
  return Half(v).bits;
}
uint16_t bfloat16_bits(float v) {
  return BFloat16(v).bits;
}
float float_from_bits(uint32_t bits) {
  return std::bit_cast<float>(bits);
}

/// The value of a finite Half computed from the IEEE 754 binary16 definition:
/// (-1)^s * 2^(e-15) * (1 + m/1024) for normals, (-1)^s * 2^-14 * (m/1024) for subnormals.
double half_value_by_definition(uint16_t bits) {
  const int exponent = bits >> 10 & 0x1F;
  const int mantissa = bits & 0x3FF;
  const double magnitude =
      exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
  return (bits & 0x8000) != 0 ? -magnitude : magnitude;
}

bool is_half_nan(uint16_t bits) {
  return (bits & 0x7C00) == 0x7C00 && (bits & 0x03FF) != 0;
}

TEST(Half, KnownBitPatterns) {
  EXPECT_EQ(half_bits(0.0f), 0x0000);
  EXPECT_EQ(half_bits(-0.0f), 0x8000);
  EXPECT_EQ(half_bits(1.0f), 0x3C00);
  EXPECT_EQ(half_bits(-2.0f), 0xC000);
  EXPECT_EQ(half_bits(0.5f), 0x3800);
  EXPECT_EQ(half_bits(65504.0f), 0x7BFF);         // largest finite
  EXPECT_EQ(half_bits(0x1p-14f), 0x0400);         // smallest normal
  EXPECT_EQ(half_bits(0x1p-24f), 0x0001);         // smallest subnormal
  EXPECT_EQ(half_bits(1023 * 0x1p-24f), 0x03FF);  // largest subnormal
  EXPECT_EQ(half_bits(0.1f), 0x2E66);             // 0.1 = 1.1001100110|0110...b x 2^-4: rounds down
  EXPECT_EQ(half_bits(1.0f / 3.0f), 0x3555);
}

TEST(Half, OverflowGoesToInfinity) {
  EXPECT_EQ(half_bits(65519.0f), 0x7BFF);  // below the midpoint 65520 of 65504 and 65536
  EXPECT_EQ(half_bits(65520.0f), 0x7C00);  // the midpoint: ties to the even pattern, infinity
  EXPECT_EQ(half_bits(1e10f), 0x7C00);
  EXPECT_EQ(half_bits(-1e10f), 0xFC00);
  EXPECT_EQ(half_bits(std::numeric_limits<float>::max()), 0x7C00);
  EXPECT_EQ(half_bits(kInfF), 0x7C00);
  EXPECT_EQ(half_bits(-kInfF), 0xFC00);
}

TEST(Half, UnderflowRoundsToEvenSubnormals) {
  EXPECT_EQ(half_bits(0x1p-25f), 0x0000);            // tie between 0 and 2^-24: even is 0
  EXPECT_EQ(half_bits(-0x1p-25f), 0x8000);           // keeps the sign
  EXPECT_EQ(half_bits(0x1.000002p-25f), 0x0001);     // just above the tie
  EXPECT_EQ(half_bits(3 * 0x1p-25f), 0x0002);        // tie between 1 and 2 (x 2^-24): even is 2
  EXPECT_EQ(half_bits(5 * 0x1p-25f), 0x0002);        // tie between 2 and 3: even is 2
  EXPECT_EQ(half_bits(1023.5f * 0x1p-24f), 0x0400);  // tie between 0x3FF and 0x400: even
  EXPECT_EQ(half_bits(1e-10f), 0x0000);
  EXPECT_EQ(half_bits(std::numeric_limits<float>::denorm_min()), 0x0000);
}

TEST(Half, TiesRoundToEven) {
  // Between 1 and 1 + 2^-10 the midpoint 1 + 2^-11 goes to 1 (even mantissa 0).
  EXPECT_EQ(half_bits(1.0f + 0x1p-11f), 0x3C00);
  // Between 1 + 2^-10 (odd) and 1 + 2^-9 (even) the midpoint goes up.
  EXPECT_EQ(half_bits(1.0f + 3 * 0x1p-11f), 0x3C02);
  // Above 2048 the spacing is 2: 2049 → 2048 (even), 2051 → 2052 (even).
  EXPECT_EQ(half_bits(2049.0f), 0x6800);
  EXPECT_EQ(half_bits(2051.0f), 0x6802);
  EXPECT_EQ(half_bits(2049.001f), 0x6801);  // not a tie: nearest
}

TEST(Half, NaNStaysNaN) {
  EXPECT_TRUE(is_half_nan(half_bits(kNaNF)));
  EXPECT_TRUE(is_half_nan(half_bits(-kNaNF)));
  // A float NaN whose payload lies only in bits Half drops must not become infinity.
  EXPECT_TRUE(is_half_nan(half_bits(float_from_bits(0x7F80'0001u))));
  EXPECT_TRUE(std::isnan(static_cast<float>(Half::from_bits(0x7E00))));
  EXPECT_TRUE(std::isnan(static_cast<float>(Half::from_bits(0xFC01))));
}

TEST(Half, EveryFiniteHalfConvertsToItsExactValue) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto h = static_cast<uint16_t>(bits);
    if ((h & 0x7C00) == 0x7C00) continue;
    ASSERT_EQ(static_cast<double>(static_cast<float>(Half::from_bits(h))),
              half_value_by_definition(h))
        << std::hex << bits;
  }
  EXPECT_EQ(static_cast<float>(Half::from_bits(0x7C00)), kInfF);
  EXPECT_EQ(static_cast<float>(Half::from_bits(0xFC00)), -kInfF);
}

TEST(Half, EveryBitPatternRoundTripsThroughFloat) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto h = static_cast<uint16_t>(bits);
    ASSERT_EQ(Half(static_cast<float>(Half::from_bits(h))).bits, h) << std::hex << bits;
  }
}

TEST(Half, EveryMidpointBetweenNeighboursRoundsToEven) {
  // For each pair of adjacent positive finite halves, the float midpoint (exact: it needs 12
  // significant bits) must go to the even pattern and its float neighbours to the nearer half.
  for (uint16_t low = 0; low < 0x7BFF; ++low) {
    const auto high = static_cast<uint16_t>(low + 1);
    const float mid =
        (static_cast<float>(Half::from_bits(low)) + static_cast<float>(Half::from_bits(high))) / 2;
    const uint16_t even = (low & 1) == 0 ? low : high;
    ASSERT_EQ(half_bits(mid), even) << std::hex << low;
    ASSERT_EQ(half_bits(std::nextafter(mid, 0.0f)), low) << std::hex << low;
    ASSERT_EQ(half_bits(std::nextafter(mid, kInfF)), high) << std::hex << low;
    ASSERT_EQ(half_bits(-mid), even | 0x8000) << std::hex << low;
  }
}

TEST(BFloat16, KnownBitPatterns) {
  EXPECT_EQ(bfloat16_bits(0.0f), 0x0000);
  EXPECT_EQ(bfloat16_bits(-0.0f), 0x8000);
  EXPECT_EQ(bfloat16_bits(1.0f), 0x3F80);
  EXPECT_EQ(bfloat16_bits(-2.0f), 0xC000);
  EXPECT_EQ(bfloat16_bits(3.14159265f), 0x4049);  // pi = 0x40490FDB: low half below the tie
  EXPECT_EQ(bfloat16_bits(kInfF), 0x7F80);
  EXPECT_EQ(bfloat16_bits(-kInfF), 0xFF80);
  EXPECT_EQ(static_cast<float>(BFloat16::from_bits(0x3F80)), 1.0f);
  EXPECT_EQ(static_cast<float>(BFloat16::from_bits(0x4049)), 3.140625f);
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(bfloat16_bits(float_from_bits(0x3F80'8000u)), 0x3F80);      // tie, even stays
  EXPECT_EQ(bfloat16_bits(float_from_bits(0x3F81'8000u)), 0x3F82);      // tie, odd goes up
  EXPECT_EQ(bfloat16_bits(float_from_bits(0x3F80'8001u)), 0x3F81);      // above the tie
  EXPECT_EQ(bfloat16_bits(float_from_bits(0x3F80'7FFFu)), 0x3F80);      // below the tie
  EXPECT_EQ(bfloat16_bits(float_from_bits(0x0001'8000u)), 0x0002);      // subnormal tie
  EXPECT_EQ(bfloat16_bits(float_from_bits(0x0000'8000u)), 0x0000);      // subnormal tie to 0
  EXPECT_EQ(bfloat16_bits(float_from_bits(0x7F7F'7FFFu)), 0x7F7F);      // largest finite stays
  EXPECT_EQ(bfloat16_bits(std::numeric_limits<float>::max()), 0x7F80);  // overflows to inf
  EXPECT_EQ(bfloat16_bits(-std::numeric_limits<float>::max()), 0xFF80);
}

TEST(BFloat16, NaNStaysNaN) {
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(kNaNF))));
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(-kNaNF))));
  // Payload only in the dropped low half: must not become infinity.
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(float_from_bits(0x7F80'0001u)))));
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(float_from_bits(0xFF80'0001u)))));
}

TEST(BFloat16, EveryBitPatternRoundTripsThroughFloat) {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto b = static_cast<uint16_t>(bits);
    const float value = static_cast<float>(BFloat16::from_bits(b));
    ASSERT_EQ(std::bit_cast<uint32_t>(value), bits << 16) << std::hex << bits;
    ASSERT_EQ(BFloat16(value).bits, b) << std::hex << bits;
  }
}

// Rounding a double or a wide integer to a 16-bit float must round once: going through a float
// first can land exactly on a tie of the narrow type and then round the wrong way.
TEST(RoundToOdd, DoubleToHalfAvoidsDoubleRounding) {
  const double just_above_tie = 1.0 + 0x1p-11 + 0x1p-40;  // float(x) is the tie 1 + 2^-11
  EXPECT_EQ(detail::convert_element<Half>(just_above_tie).bits, 0x3C01);
  EXPECT_EQ(detail::convert_element<Half>(-just_above_tie).bits, 0xBC01);
  const double just_below_tie = 1.0 + 3 * 0x1p-11 - 0x1p-40;  // float(x) is a tie that rounds up
  EXPECT_EQ(detail::convert_element<Half>(just_below_tie).bits, 0x3C01);
  EXPECT_EQ(detail::convert_element<Half>(1.0 + 0x1p-11).bits, 0x3C00);  // a true tie
  EXPECT_EQ(detail::convert_element<BFloat16>(1.0 + 0x1p-8 + 0x1p-40).bits, 0x3F81);
  EXPECT_EQ(detail::convert_element<Half>(1e300).bits, 0x7C00);
  EXPECT_EQ(detail::convert_element<Half>(1e-300).bits, 0x0000);
  EXPECT_EQ(detail::convert_element<BFloat16>(-1e300).bits, 0xFF80);
  EXPECT_TRUE(std::isnan(
      static_cast<float>(detail::convert_element<Half>(std::numeric_limits<double>::quiet_NaN()))));
}

TEST(RoundToOdd, IntegerToBFloat16AvoidsDoubleRounding) {
  // 2^24 + 2^16 + 1 lies just above the bf16 midpoint 2^24 + 2^16 (bf16 spacing there is 2^17),
  // so it rounds up to 2^24 + 2^17; via float it would become the tie and round down to 2^24.
  const int32_t value = (1 << 24) + (1 << 16) + 1;
  EXPECT_EQ(static_cast<float>(detail::convert_element<BFloat16>(value)), 16908288.0f);
  EXPECT_EQ(static_cast<float>(detail::convert_element<BFloat16>(-value)), -16908288.0f);
  // The same above 2^53, where even a double cannot hold the integer.
  const uint64_t wide = (uint64_t{1} << 60) + (uint64_t{1} << 52) + 1;
  EXPECT_EQ(static_cast<float>(detail::convert_element<BFloat16>(wide)), 0x1.02p60f);
  EXPECT_EQ(
      static_cast<float>(detail::convert_element<BFloat16>(std::numeric_limits<int64_t>::min())),
      -0x1p63f);
  EXPECT_EQ(detail::convert_element<Half>(int64_t{70000}).bits, 0x7C00);
  EXPECT_EQ(detail::convert_element<Half>(uint8_t{255}).bits, 0x5BF8);  // 255 = 1.9921875 * 2^7
  EXPECT_EQ(detail::convert_element<Half>(true).bits, 0x3C00);
}

TEST(RoundToOdd, MarksInexactResultsWithAnOddLastBit) {
  EXPECT_EQ(detail::round_to_odd_float(1.5), 1.5f);  // exact: unchanged
  EXPECT_EQ(std::bit_cast<uint32_t>(detail::round_to_odd_float(1.0 + 0x1p-30)), 0x3F80'0001u);
  // 1 - 2^-30 rounds to 1.0f to nearest; to odd it is the float just below 1, already odd.
  EXPECT_EQ(std::bit_cast<uint32_t>(detail::round_to_odd_float(1.0 - 0x1p-30)), 0x3F7F'FFFFu);
  EXPECT_EQ(std::bit_cast<uint32_t>(detail::round_to_odd_float(-(1.0 + 0x1p-30))), 0xBF80'0001u);
  EXPECT_EQ(detail::round_to_odd_float(int64_t{-(1 << 24)}), -0x1p24f);
  // 2^24 + 1 needs 25 bits: truncated to 2^24, then the odd last bit makes it 2^24 + 2.
  EXPECT_EQ(std::bit_cast<uint32_t>(detail::round_to_odd_float(uint64_t{(1 << 24) + 1})),
            0x4B80'0001u);
  EXPECT_EQ(detail::round_to_odd_float(uint64_t{(1 << 24) + 2}), 0x1.000002p24f);  // exact
}

TEST(Half, PrintsShortestDecimalThatReadsBack) {
  // Expected strings are NumPy's str() of np.float16 / the value, which uses the same rule.
  EXPECT_EQ(printed(Half(1.0f)), "1");
  EXPECT_EQ(printed(Half(0.1f)), "0.1");
  EXPECT_EQ(printed(Half(1.0f / 3.0f)), "0.3333");
  EXPECT_EQ(printed(Half(65504.0f)), "65500");
  EXPECT_EQ(printed(Half(-2.5f)), "-2.5");
  EXPECT_EQ(printed(Half::from_bits(0x0001)), "6e-08");
  EXPECT_EQ(printed(Half(kInfF)), "inf");
  EXPECT_EQ(printed(Half(-kInfF)), "-inf");
  EXPECT_EQ(printed(Half(kNaNF)), "nan");
  EXPECT_EQ(printed(BFloat16(0.1f)), "0.1");
  EXPECT_EQ(printed(BFloat16(3.14159265f)), "3.14");
  EXPECT_EQ(printed(BFloat16(1e20f)), "1e+20");
}

}  // namespace
}  // namespace ember
