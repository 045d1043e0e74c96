// 16-bit floating-point storage types. ember stores f16 and bf16 natively and computes in f32
// (reference backend); these types only convert, with round-to-nearest-even.
#pragma once

#include <cstdint>
#include <ostream>

namespace ember {

/// IEEE 754 binary16.
struct Half {
  uint16_t bits = 0;

  Half() = default;
  explicit Half(float value);
  explicit operator float() const;
  static Half from_bits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
};

/// bfloat16: the upper half of an IEEE binary32.
struct BFloat16 {
  uint16_t bits = 0;

  BFloat16() = default;
  explicit BFloat16(float value);
  explicit operator float() const;
  static BFloat16 from_bits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
};

std::ostream& operator<<(std::ostream& os, Half h);
std::ostream& operator<<(std::ostream& os, BFloat16 h);

}  // namespace ember
