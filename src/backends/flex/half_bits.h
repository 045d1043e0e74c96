// f32 <-> f16 conversions inline, bit for bit those of ember::Half, without branches so that
// conversion loops vectorize (Half's constructor lives in another library, one call an element).
// Widening is exact everywhere. Narrowing is computed here for every f32 but a NaN or a value in
// Half's subnormal range, which half_needs_constructor names: the caller converts those with
// Half's constructor (rare in data: below 2^-14 and at least 2^-25 in magnitude).
#pragma once

#include <bit>
#include <cstdint>

#include "ember/float16.h"

namespace ember::flex {

/// float(value), computed here.
inline float from_half(Half value) {
  const uint32_t bits = value.bits;
  const uint32_t sign = (bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1Fu;
  const uint32_t mantissa = bits & 0x3FFu;
  // Rebiased from 15 to 127; infinity and NaN keep their payload; a subnormal is mantissa * 2^-24,
  // exact in float.
  const uint32_t normal = sign | (exponent + 112u) << 23 | mantissa << 13;
  const uint32_t special = sign | 0x7F80'0000u | mantissa << 13;
  const float subnormal = static_cast<float>(static_cast<int32_t>(mantissa)) * 0x1p-24f;
  const uint32_t tiny = sign | std::bit_cast<uint32_t>(subnormal);
  return std::bit_cast<float>(exponent == 0x1Fu ? special : exponent == 0 ? tiny : normal);
}

/// Whether the f32 bits are a NaN or lie in Half's subnormal range, where half_bits is not
/// Half's result.
inline bool half_needs_constructor(uint32_t bits) {
  const uint32_t magnitude = bits & 0x7FFF'FFFFu;
  return magnitude > 0x7F80'0000u || (magnitude >= 0x3300'0000u && magnitude < 0x3880'0000u);
}

/// Half(f32 bits).bits wherever half_needs_constructor is false.
inline uint16_t half_bits(uint32_t bits) {
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t magnitude = bits & 0x7FFF'FFFFu;
  // Rebiased in place; adding just under half of the 13 dropped bits, plus the kept part's last
  // bit, carries exactly when nearest-even rounds up; a carry out of the mantissa bumps the
  // exponent, and anything at or past 2^16 ends at or beyond the infinity pattern.
  const uint32_t rebiased = magnitude - (112u << 23);
  const uint32_t rounded = (rebiased + 0x0FFFu + ((rebiased >> 13) & 1u)) >> 13;
  const uint32_t normal = rounded >= 0x7C00u ? 0x7C00u : rounded;
  // Below 2^-25 (half the smallest subnormal) a value rounds to a signed zero.
  return static_cast<uint16_t>(sign | (magnitude < 0x3300'0000u ? 0u : normal));
}

}  // namespace ember::flex
