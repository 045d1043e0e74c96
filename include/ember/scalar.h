// Scalar: one value of any kind, kept exact (an int64 is not rounded through double).
#pragma once

#include <concepts>
#include <cstdint>
#include <ostream>

namespace ember {

struct Scalar {
  enum class Kind : uint8_t { Float, Int, Bool };
  Kind kind = Kind::Float;
  double f = 0.0;
  int64_t i = 0;

  Scalar() = default;
  Scalar(double v) : kind(Kind::Float), f(v) {}  // NOLINT: implicit on purpose
  Scalar(float v) : kind(Kind::Float), f(v) {}   // NOLINT
  Scalar(bool v) : kind(Kind::Bool), f(v ? 1.0 : 0.0), i(v ? 1 : 0) {}  // NOLINT
  template <std::integral T>
  requires(!std::same_as<T, bool>) Scalar(T v)
      : kind(Kind::Int), f(static_cast<double>(v)), i(static_cast<int64_t>(v)) {}  // NOLINT

  double as_double() const { return kind == Kind::Float ? f : static_cast<double>(i); }
  friend bool operator==(const Scalar&, const Scalar&) = default;
};

/// Prints the value alone: "2.5", "3", "true" (floats in their shortest exact decimal).
std::ostream& operator<<(std::ostream& os, const Scalar& s);

}  // namespace ember
