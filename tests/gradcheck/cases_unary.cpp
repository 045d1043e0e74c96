// Unary elementwise cases, and cast between float dtypes.
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

}  // namespace

std::vector<GradCase> unary_grad_cases() {
  return {
      unary("neg", UnaryOp::Neg, reals("neg", kShape)),
      // |x| >= 0.4: away from abs's kink.
      unary("abs", UnaryOp::Abs, f64({-1.5, 0.7, 2.1, -0.4, 1.2, -2.3}, kShape)),
      unary("sign", UnaryOp::Sign, off_steps()),
      unary("floor", UnaryOp::Floor, off_steps()),
      unary("ceil", UnaryOp::Ceil, off_steps()),
      unary("round", UnaryOp::Round, off_steps()),
      unary("exp", UnaryOp::Exp, reals("exp", kShape)),
      unary("log", UnaryOp::Log, positives("log", kShape)),
      unary("log1p", UnaryOp::Log1p, reals("log1p", kShape, -0.5, 2.0)),
      unary("sqrt", UnaryOp::Sqrt, positives("sqrt", kShape)),
      unary("sin", UnaryOp::Sin, reals("sin", kShape)),
      unary("cos", UnaryOp::Cos, reals("cos", kShape)),
      unary("tan", UnaryOp::Tan, reals("tan", kShape, -1.0, 1.0)),
      unary("tanh", UnaryOp::Tanh, reals("tanh", kShape)),
      unary("erf", UnaryOp::Erf, reals("erf", kShape)),
      unary("recip", UnaryOp::Recip, f64({-1.5, 0.7, 2.1, -0.6, 1.2, -2.3}, kShape)),
      op_case("cast/f64", ir::Cast{DType::F64}, {reals("cast", kShape)}),
  };
}

}  // namespace ember::test
