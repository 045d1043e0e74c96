// Element arithmetic without undefined behaviour. Integers wrap around (computed in an unsigned
// type, where overflow is defined, then converted back, which C++20 defines as modulo); integer
// division by zero throws instead of trapping; floats follow IEEE.
#pragma once

#include <cmath>
#include <string>
#include <type_traits>

#include "backends/ndarray/element.h"
#include "ember/error.h"
#include "ir/ops.h"

namespace ember::ndarray {

/// The unsigned type integer I wraps in: at least unsigned int wide, because a narrower unsigned
/// type is promoted to (signed) int, where u16 * u16 could overflow.
template <typename I>
using wrap_t = std::common_type_t<std::make_unsigned_t<I>, unsigned>;

template <typename I>
I wrapping_add(I a, I b) {
  return static_cast<I>(static_cast<wrap_t<I>>(a) + static_cast<wrap_t<I>>(b));
}
template <typename I>
I wrapping_sub(I a, I b) {
  return static_cast<I>(static_cast<wrap_t<I>>(a) - static_cast<wrap_t<I>>(b));
}
template <typename I>
I wrapping_mul(I a, I b) {
  return static_cast<I>(static_cast<wrap_t<I>>(a) * static_cast<wrap_t<I>>(b));
}

/// base ** exponent by repeated squaring, wrapping; exponent >= 0 (checked by the caller).
template <typename I>
I wrapping_pow(I base, I exponent) {
  I result = 1;
  while (exponent > 0) {
    if (exponent % 2 == 1) result = wrapping_mul(result, base);
    exponent = static_cast<I>(exponent / 2);
    base = wrapping_mul(base, base);
  }
  return result;
}

[[noreturn]] inline void throw_division_by_zero(const ir::Op& op) {
  throw InvalidArgument("[" + ir::name(op) + "] integer division by zero");
}

/// a / b truncated toward zero; MIN / -1 wraps to MIN instead of trapping.
template <typename I>
I integer_div(I a, I b, const ir::Op& op) {
  if (b == 0) throw_division_by_zero(op);
  if constexpr (std::is_signed_v<I>) {
    if (b == -1) return wrapping_sub(I{0}, a);
  }
  return static_cast<I>(a / b);
}

/// The remainder with the divisor's sign (Python's %, torch.remainder).
template <typename I>
I integer_rem(I a, I b, const ir::Op& op) {
  if (b == 0) throw_division_by_zero(op);
  if constexpr (std::is_signed_v<I>) {
    if (b == -1) return 0;  // MIN % -1 traps on x86
    I r = static_cast<I>(a % b);
    // r and b have opposite signs here, so r + b cannot overflow.
    if (r != 0 && (r < 0) != (b < 0)) r = static_cast<I>(r + b);
    return r;
  } else {
    return static_cast<I>(a % b);
  }
}

/// a + b in a compute or accumulator type: wrapping for ints, "or" for bool, IEEE for floats.
template <typename A>
A add_values(A a, A b) {
  if constexpr (std::is_same_v<A, bool>) {
    return a || b;
  } else if constexpr (std::is_integral_v<A>) {
    return wrapping_add(a, b);
  } else {
    return a + b;
  }
}

/// a * b in a compute or accumulator type: wrapping for ints, "and" for bool, IEEE for floats.
template <typename A>
A mul_values(A a, A b) {
  if constexpr (std::is_same_v<A, bool>) {
    return a && b;
  } else if constexpr (std::is_integral_v<A>) {
    return wrapping_mul(a, b);
  } else {
    return a * b;
  }
}

/// A running sum or product of elements of T, kept in accumulator_t<T>: double for floats,
/// wrapping T for ints.
template <typename T>
class Accumulator {
 public:
  explicit Accumulator(bool product) : product_(product), total_(product ? 1 : 0) {}

  void add(T value) {
    const auto v = static_cast<accumulator_t<T>>(load(value));
    total_ = product_ ? mul_values(total_, v) : add_values(total_, v);
  }
  accumulator_t<T> total() const { return total_; }

 private:
  bool product_;
  accumulator_t<T> total_;
};

}  // namespace ember::ndarray
