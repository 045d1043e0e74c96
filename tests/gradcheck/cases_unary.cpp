// Unary elementwise cases, and cast between float dtypes.
#include <optional>
#include <string>

#include "gradcheck/gradcheck.h"

namespace ember::test {
namespace {

using ir::UnaryOp;

const Shape kShape{2, 3};

GradCase unary(const std::string& name, UnaryOp op, TensorData x) {
  return op_case(name, ir::Unary{op}, {std::move(x)});
}

/// Values at least 0.2 away from every integer and half-integer: where sign, floor, ceil and
/// round are locally constant.
TensorData off_steps() {
  return f64({0.3, -1.2, 2.7, -0.7, 1.4, -2.2}, kShape);
}

/// The gradient case of op, or nullopt for an op without a gradient (a Bool result or input):
/// every op of the table listed, no default, so that a new op does not compile until it says.
std::optional<GradCase> unary_grad_case(UnaryOp op, const std::string& name) {
  switch (op) {
    case UnaryOp::Neg:
    case UnaryOp::Exp:
    case UnaryOp::Sin:
    case UnaryOp::Cos:
    case UnaryOp::Tanh:
    case UnaryOp::Erf:
      return unary(name, op, reals(name, kShape));
    case UnaryOp::Abs:  // |x| >= 0.4: away from abs's kink
      return unary(name, op, f64({-1.5, 0.7, 2.1, -0.4, 1.2, -2.3}, kShape));
    case UnaryOp::Sign:
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
      return unary(name, op, off_steps());
    case UnaryOp::Log:
    case UnaryOp::Sqrt:
      return unary(name, op, positives(name, kShape));
    case UnaryOp::Log1p:
      return unary(name, op, reals(name, kShape, -0.5, 2.0));
    case UnaryOp::Tan:
      return unary(name, op, reals(name, kShape, -1.0, 1.0));
    case UnaryOp::Logit:
      return unary(name, op, reals(name, kShape, 0.1, 0.9));
    case UnaryOp::Recip:
      return unary(name, op, f64({-1.5, 0.7, 2.1, -0.6, 1.2, -2.3}, kShape));
    case UnaryOp::Not:
    case UnaryOp::IsNan:
    case UnaryOp::IsInf:
      return std::nullopt;
  }
  return std::nullopt;  // not an enumerator
}

}  // namespace

std::vector<GradCase> unary_grad_cases() {
  std::vector<GradCase> cases;
#define EMBER_UNARY_OP(Enumerator, name, ...) \
  if (auto c = unary_grad_case(UnaryOp::Enumerator, #name)) cases.push_back(std::move(*c));
#include "ember/ops.def"
  cases.push_back(op_case("cast/f64", ir::Cast{DType::F64}, {reals("cast", kShape)}));
  return cases;
}

}  // namespace ember::test
