// 16-bit floating-point storage types. ember stores f16 and bf16 natively and computes in f32
// (reference backend); these types only convert, with round-to-nearest-even.
#pragma once

#include <cstdint>
#include <ostream>

namespace ember {

/// IEEE 754 binary16. From float: round to nearest even, subnormals kept, overflow to ±inf,
/// NaN stays NaN (payload kept where it fits, so every Half survives Half → float → Half).
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

/// bfloat16: the upper half of an IEEE binary32. From float: round to nearest even, overflow to
/// ±inf, NaN stays NaN.
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

/// Prints the shortest decimal that converts back to the same value ("0.1" for Half(0.1f)).
std::ostream& operator<<(std::ostream& os, Half h);
std::ostream& operator<<(std::ostream& os, BFloat16 h);

namespace detail {
/// v rounded to float "to odd": truncated toward zero, with the last bit set when bits were
/// lost. Rounding that float to Half or BFloat16 (which keep far fewer bits) then gives the
/// correctly rounded result of v; a plain float cast would round twice and can miss a tie.
float round_to_odd_float(double v);
float round_to_odd_float(int64_t v);
float round_to_odd_float(uint64_t v);
}  // namespace detail

}  // namespace ember
