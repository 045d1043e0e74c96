// bf16 and f16 bit patterns to and from float, for the CUDA emulation and the test that feeds it:
// plain C++ (no _Float16, which clang 14 lacks on x86), rounding to nearest even as the GPU's
// conversions do.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace ember_emulation {

inline uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

inline float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// The float a bf16 (bf16) or f16 bit pattern stands for (exact).
inline float half_to_float(unsigned short h, bool bf16) {
  if (bf16) return float_of(static_cast<uint32_t>(h) << 16);
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1fu) return float_of(sign | 0x7f800000u | mantissa << 13);
  if (exponent != 0) return float_of(sign | (exponent + 112u) << 23 | mantissa << 13);
  const float subnormal = std::ldexp(static_cast<float>(mantissa), -24);
  return sign != 0 ? -subnormal : subnormal;
}

/// f to the nearest bf16 or f16, ties to even (a NaN stays a quiet NaN).
inline unsigned short float_to_half(float f, bool bf16) {
  const uint32_t u = bits_of(f);
  const uint32_t magnitude = u & 0x7fffffffu;
  if (bf16) {
    if (magnitude > 0x7f800000u) return static_cast<unsigned short>((u >> 16) | 0x40u);
    return static_cast<unsigned short>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  }
  const uint32_t sign = (u >> 16) & 0x8000u;
  if (magnitude > 0x7f800000u) return static_cast<unsigned short>(sign | 0x7e00u);
  if (magnitude >= 0x477ff000u) return static_cast<unsigned short>(sign | 0x7c00u);  // >= 65520
  if (magnitude < 0x38800000u) {  // below 2^-14: a subnormal, in units of 2^-24 (exact scaling)
    const float units = std::nearbyint(float_of(magnitude) * 0x1p24f);
    return static_cast<unsigned short>(sign | static_cast<uint32_t>(units));
  }
  const uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
  return static_cast<unsigned short>(sign | ((rounded >> 13) - (112u << 10)));
}

}  // namespace ember_emulation
