// Unary elementwise ops, each on the values it is defined for.
#include <cmath>
#include <limits>

#include "support/op_cases.h"

namespace ember::test {
namespace {

OpCase unary(std::string name, DTypes dtypes, UnaryFn fn, ValueSpec values = {}) {
  return make_case(std::move(name), dtypes, {drawn(kShape, values)}, run_unary(fn));
}

/// Ties at .5 (half to even), their negatives, and values off the ties.
OpCase round_case() {
  return make_case(
      "round", DTypes::Float,
      {given({2, 6}, {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -3.5, 3.5, -0.7, 0.3, 1.2, 2.49})},
      run_unary(ops::round));
}

/// is_nan / is_inf on NaN, both infinities and finite values.
OpCase special_values_case(std::string name, UnaryFn fn) {
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  return make_case(std::move(name), DTypes::Float,
                   {given({2, 3}, {kNan, 1.0, -kInf, kInf, 0.0, -2.5})}, run_unary(fn));
}

}  // namespace

std::vector<OpCase> unary_cases() {
  return {
      unary("neg", DTypes::FloatOrSigned, ops::neg),
      unary("abs", DTypes::Numeric, ops::abs),
      unary("sign", DTypes::Numeric, ops::sign, {-3.0, 3.0, 0.5}),  // 0.5 steps: zeros occur
      unary("exp", DTypes::Float, ops::exp),
      unary("log", DTypes::Float, ops::log, {0.1, 5.0}),
      unary("log1p", DTypes::Float, ops::log1p, {-0.5, 3.0}),
      unary("sqrt", DTypes::Float, ops::sqrt, {0.0, 5.0}),
      unary("sin", DTypes::Float, ops::sin),
      unary("cos", DTypes::Float, ops::cos),
      unary("tan", DTypes::Float, ops::tan, {-1.2, 1.2}),
      unary("tanh", DTypes::Float, ops::tanh),
      unary("erf", DTypes::Float, ops::erf, {-2.0, 2.0}),
      unary("recip", DTypes::Float, ops::recip, {.nonzero = true}),
      unary("floor", DTypes::Float, ops::floor),
      unary("ceil", DTypes::Float, ops::ceil),
      round_case(),
      special_values_case("is_nan", ops::is_nan),
      special_values_case("is_inf", ops::is_inf),
      unary("bool_not", DTypes::Bool, ops::bool_not),
  };
}

}  // namespace ember::test
