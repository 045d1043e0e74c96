// The reference target of the formulas (ir/formulas.h, ir/random_formulas-inl.h): a value is one
// float of type F, and each primitive is the C++ standard library's, so ndarray's results are the
// formulas evaluated with libm's accuracy, and ir/random.h's normals are its formulas in scalars.
#pragma once

#include <cmath>
#include <limits>

namespace ember::formula {

template <typename F>
struct ScalarMath {
  using Value = F;
  using Mask = bool;

  static F constant(double c) { return static_cast<F>(c); }
  static F lowest() { return std::numeric_limits<F>::lowest(); }

  static F add(F a, F b) { return a + b; }
  static F sub(F a, F b) { return a - b; }
  static F mul(F a, F b) { return a * b; }
  static F div(F a, F b) { return a / b; }
  static F mul_add(F a, F b, F c) { return std::fma(a, b, c); }
  static F min(F a, F b) { return b < a ? b : a; }
  static F max(F a, F b) { return a < b ? b : a; }
  static F pow(F a, F b) { return std::pow(a, b); }
  static F fmod(F a, F b) { return std::fmod(a, b); }

  static F neg(F x) { return -x; }
  static F abs(F x) { return std::abs(x); }
  static F sqrt(F x) { return std::sqrt(x); }
  static F floor(F x) { return std::floor(x); }
  static F ceil(F x) { return std::ceil(x); }
  static F round(F x) { return std::nearbyint(x); }  // half to even in the default rounding mode
  static F frexp_fraction(F x) {
    int exponent = 0;
    return std::frexp(x, &exponent);
  }
  static F frexp_exponent(F x) {
    int exponent = 0;
    std::frexp(x, &exponent);
    return static_cast<F>(exponent);
  }
  static F exp(F x) { return std::exp(x); }
  static F expm1(F x) { return std::expm1(x); }
  static F log(F x) { return std::log(x); }
  static F log1p(F x) { return std::log1p(x); }
  static F sin(F x) { return std::sin(x); }
  static F cos(F x) { return std::cos(x); }
  static F tan(F x) { return std::tan(x); }
  static F tanh(F x) { return std::tanh(x); }
  static F erf(F x) { return std::erf(x); }
  static F erfc(F x) { return std::erfc(x); }

  static bool lt(F a, F b) { return a < b; }
  static bool le(F a, F b) { return a <= b; }
  static bool gt(F a, F b) { return a > b; }
  static bool ge(F a, F b) { return a >= b; }
  static bool eq(F a, F b) { return a == b; }
  static bool ne(F a, F b) { return a != b; }
  static bool is_nan(F x) { return std::isnan(x); }
  static bool mask_and(bool a, bool b) { return a && b; }
  static bool mask_or(bool a, bool b) { return a || b; }
  static bool mask_xor(bool a, bool b) { return a != b; }
  static bool mask_not(bool a) { return !a; }
  static F select(bool m, F a, F b) { return m ? a : b; }
};

}  // namespace ember::formula
