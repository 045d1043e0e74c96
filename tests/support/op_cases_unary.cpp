// Unary elementwise ops, one case per op of the op table (ember/ops.def), each on the values it
// is defined for.
#include <cmath>
#include <limits>
#include <stdexcept>

#include "ir/ops.h"
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

/// The case of op: every op of the table listed, no default, so that a new op does not compile
/// until it says which values it is tested on.
OpCase unary_case(ir::UnaryOp op, std::string name, DTypes dtypes, UnaryFn fn) {
  using ir::UnaryOp;
  switch (op) {
    case UnaryOp::Sign:
      return unary(std::move(name), dtypes, fn, {-3.0, 3.0, 0.5});  // 0.5 steps: zeros occur
    case UnaryOp::Log:
      return unary(std::move(name), dtypes, fn, {0.1, 5.0});
    case UnaryOp::Log1p:
      return unary(std::move(name), dtypes, fn, {-0.5, 3.0});
    case UnaryOp::Sqrt:
      return unary(std::move(name), dtypes, fn, {0.0, 5.0});
    case UnaryOp::Tan:
      return unary(std::move(name), dtypes, fn, {-1.2, 1.2});
    case UnaryOp::Erf:
      return unary(std::move(name), dtypes, fn, {-2.0, 2.0});
    case UnaryOp::Logit:  // logit(0) = -inf and logit(1) = inf included; 0 and 1 for integers
      return unary(std::move(name), dtypes, fn, {0.0, 1.0});
    case UnaryOp::Recip:
      return unary(std::move(name), dtypes, fn, {.nonzero = true});
    case UnaryOp::Round:
      return round_case();
    case UnaryOp::IsNan:
    case UnaryOp::IsInf:
      return special_values_case(std::move(name), fn);
    case UnaryOp::Neg:
    case UnaryOp::Abs:
    case UnaryOp::Exp:
    case UnaryOp::Sin:
    case UnaryOp::Cos:
    case UnaryOp::Tanh:
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Not:
      return unary(std::move(name), dtypes, fn);
  }
  throw std::logic_error("unary_case: not a UnaryOp");
}

}  // namespace

std::vector<OpCase> unary_cases() {
  std::vector<OpCase> cases;
#define EMBER_UNARY_OP(Enumerator, name, dtypes, ...) \
  cases.push_back(                                    \
      unary_case(ir::UnaryOp::Enumerator, #name, of_table(ir::DTypeSet::dtypes), ops::name));
#include "ember/ops.def"
  return cases;
}

}  // namespace ember::test
