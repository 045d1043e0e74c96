// Half and BFloat16 conversions, done on the bit patterns so the result never depends on the
// FPU's rounding mode.
#include "ember/float16.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <string>

#include "core/number_format.h"

namespace ember {
namespace {

constexpr uint32_t kFloatSignMask = 0x8000'0000u;
constexpr uint32_t kFloatInf = 0x7F80'0000u;
constexpr int kFloatMantissaBits = 23;
constexpr int kHalfMantissaBits = 10;
constexpr uint16_t kHalfInf = 0x7C00u;
constexpr uint16_t kHalfMantissaMask = 0x03FFu;
// 2^-14, the smallest normal Half, as float bits.
constexpr uint32_t kHalfMinNormalAsFloat = 0x3880'0000u;
// Float exponent bias (127) minus Half exponent bias (15).
constexpr uint32_t kExponentBiasDifference = 112;
constexpr int kFloatToHalfShift = kFloatMantissaBits - kHalfMantissaBits;
constexpr int kFloatToBFloat16Shift = 16;

/// value / 2^shift rounded to nearest, ties to even (0 < shift < 32).
uint32_t shift_right_round_even(uint32_t value, int shift) {
  const uint32_t kept = value >> shift;
  const uint32_t rest = value & ((1u << shift) - 1);
  const uint32_t half = 1u << (shift - 1);
  const bool round_up = rest > half || (rest == half && (kept & 1u));
  return kept + (round_up ? 1u : 0u);
}

/// The mantissa of a NaN narrowed to fewer bits: the payload's high bits, or the quiet bit
/// when only dropped bits were set, so the result stays a NaN rather than becoming infinity.
uint16_t narrowed_nan_mantissa(uint32_t payload, int mantissa_bits) {
  return static_cast<uint16_t>(payload != 0 ? payload : 1u << (mantissa_bits - 1));
}

uint16_t float_to_half_bits(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const auto sign = static_cast<uint16_t>((bits & kFloatSignMask) >> 16);
  const uint32_t magnitude = bits & ~kFloatSignMask;
  if (magnitude > kFloatInf) {
    const uint32_t payload = magnitude >> kFloatToHalfShift & kHalfMantissaMask;
    return sign | kHalfInf | narrowed_nan_mantissa(payload, kHalfMantissaBits);
  }
  if (magnitude >= kHalfMinNormalAsFloat) {
    // Rebias the exponent in place; a rounding carry out of the mantissa correctly bumps the
    // exponent, and anything at or past 2^16 ends at or beyond the infinity pattern.
    const uint32_t rebiased = magnitude - (kExponentBiasDifference << kFloatMantissaBits);
    const uint32_t rounded = shift_right_round_even(rebiased, kFloatToHalfShift);
    return sign | static_cast<uint16_t>(rounded >= kHalfInf ? kHalfInf : rounded);
  }
  // Subnormal Half: the result is value / 2^-24 rounded to an integer. Exponents this small
  // give a shift of at least 14; past 24 the value is below half the smallest subnormal.
  const int exponent = static_cast<int>(magnitude >> kFloatMantissaBits);
  const uint32_t significand = (magnitude & 0x007F'FFFFu) | (exponent != 0 ? 0x0080'0000u : 0u);
  const int shift = 126 - std::max(exponent, 1);
  if (shift > 24) return sign;
  return sign | static_cast<uint16_t>(shift_right_round_even(significand, shift));
}

float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h & kHalfInf) >> kHalfMantissaBits;
  const uint32_t mantissa = h & kHalfMantissaMask;
  if (exponent == 0x1F)  // infinity or NaN, payload kept
    return std::bit_cast<float>(sign | kFloatInf | mantissa << kFloatToHalfShift);
  if (exponent == 0) {
    // Subnormal (or zero): mantissa * 2^-24, exact in float.
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign != 0 ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | (exponent + kExponentBiasDifference) << kFloatMantissaBits |
                              mantissa << kFloatToHalfShift);
}

uint16_t float_to_bfloat16_bits(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & ~kFloatSignMask) > kFloatInf) {
    const uint32_t sign_and_exponent = bits >> kFloatToBFloat16Shift & 0xFF80u;
    const uint32_t payload = bits >> kFloatToBFloat16Shift & 0x007Fu;
    return static_cast<uint16_t>(sign_and_exponent | narrowed_nan_mantissa(payload, 7));
  }
  // The sign bit rides along; the largest finite floats carry into the infinity pattern.
  return static_cast<uint16_t>(shift_right_round_even(bits, kFloatToBFloat16Shift));
}

/// v's magnitude rounded to float "to odd" (see detail::round_to_odd_float).
float round_magnitude_to_odd_float(uint64_t magnitude) {
  constexpr int kFloatSignificandBits = kFloatMantissaBits + 1;
  const int width = std::bit_width(magnitude);
  if (width <= kFloatSignificandBits) return static_cast<float>(magnitude);
  const int dropped = width - kFloatSignificandBits;
  const bool lost_bits = (magnitude & ((uint64_t{1} << dropped) - 1)) != 0;
  const uint64_t kept = magnitude >> dropped | (lost_bits ? 1u : 0u);
  return std::ldexp(static_cast<float>(kept), dropped);  // exact: kept has 24 significant bits
}

/// The shortest decimal that converts back to the same H: the fewest significant digits whose
/// float reading rounds to h, printed in the shortest of fixed or scientific form.
template <typename H>
std::string shortest_decimal_16(H h) {
  const float value = static_cast<float>(h);
  if (!std::isfinite(value)) return core::shortest_decimal(value);
  // 9 significant digits identify any float, hence any H; the loop stops before that.
  for (int digits = 1; digits < 9; ++digits) {
    char buffer[32];
    const auto printed =
        std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general, digits);
    float read_back = 0;
    std::from_chars(buffer, printed.ptr, read_back);
    if (H(read_back).bits == h.bits) return core::shortest_decimal(read_back);
  }
  return core::shortest_decimal(value);
}

}  // namespace

Half::Half(float value) : bits(float_to_half_bits(value)) {}
Half::operator float() const {
  return half_bits_to_float(bits);
}

BFloat16::BFloat16(float value) : bits(float_to_bfloat16_bits(value)) {}
BFloat16::operator float() const {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << kFloatToBFloat16Shift);
}

std::ostream& operator<<(std::ostream& os, Half h) {
  return os << shortest_decimal_16(h);
}
std::ostream& operator<<(std::ostream& os, BFloat16 h) {
  return os << shortest_decimal_16(h);
}

namespace detail {

float round_to_odd_float(double v) {
  const float nearest = static_cast<float>(v);
  if (!std::isfinite(nearest) || static_cast<double>(nearest) == v) return nearest;
  // Floats are sign-magnitude, so one less in the bits is one step toward zero: that undoes a
  // rounding away from zero, leaving the truncation, whose last bit then records the loss.
  uint32_t bits = std::bit_cast<uint32_t>(nearest);
  if (std::fabs(static_cast<double>(nearest)) > std::fabs(v)) --bits;
  return std::bit_cast<float>(bits | 1u);
}

float round_to_odd_float(int64_t v) {
  // 0 - x in uint64_t is |x| even for INT64_MIN, without signed overflow.
  const uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  const float rounded = round_magnitude_to_odd_float(magnitude);
  return v < 0 ? -rounded : rounded;
}

float round_to_odd_float(uint64_t v) {
  return round_magnitude_to_odd_float(v);
}

}  // namespace detail
}  // namespace ember
