// Binary elementwise cases (tensor-tensor with broadcasting, tensor-scalar both ways) and the
// masked selections where and mask_fill.
#include "gradcheck/gradcheck.h"

namespace ember::test {
namespace {

using ir::BinaryOp;

GradCase binary(const std::string& name, BinaryOp op, TensorData a, TensorData b) {
  return op_case(name, ir::Binary{op}, {std::move(a), std::move(b)});
}

GradCase scalar(const std::string& name, BinaryOp op, double s, TensorData x,
                bool scalar_lhs = false) {
  return op_case(name, ir::BinaryScalar{op, s, scalar_lhs}, {std::move(x)});
}

/// Dividends and divisors whose quotients are at least 0.05 from an integer, where remainder is
/// smooth: 2.3/0.7 = 3.29, -1.7/1.3 = -1.31, 5.2/-2.1 = -2.48, 0.4/0.9 = 0.44, -3.1/1.6 = -1.94,
/// 1.1/-0.8 = -1.375.
TensorData dividends() {
  return f64({2.3, -1.7, 5.2, 0.4, -3.1, 1.1}, {2, 3});
}
TensorData divisors() {
  return f64({0.7, 1.3, -2.1, 0.9, 1.6, -0.8}, {2, 3});
}

/// Two grids offset by 0.1 with step 0.37: no element of one equals one of the other, so
/// maximum and minimum never tie.
TensorData grid_a(const std::string& tag, const Shape& shape) {
  return distinct(tag, shape, -2.0);
}
TensorData grid_b(const std::string& tag, const Shape& shape) {
  return distinct(tag, shape, -1.9);
}

std::vector<GradCase> tensor_tensor_cases() {
  return {
      binary("add", BinaryOp::Add, reals("add/a", {2, 3}), reals("add/b", {2, 3})),
      binary("add/broadcast", BinaryOp::Add, reals("add/bc/a", {2, 3}), reals("add/bc/b", {1, 3})),
      binary("sub/broadcast", BinaryOp::Sub, reals("sub/a", {2, 1}), reals("sub/b", {1, 3})),
      binary("mul", BinaryOp::Mul, reals("mul/a", {2, 3}), reals("mul/b", {2, 3})),
      binary("mul/broadcast", BinaryOp::Mul, reals("mul/bc/a", {2, 1, 3}),
             reals("mul/bc/b", {4, 1})),
      binary("div/broadcast", BinaryOp::Div, reals("div/a", {2, 3}), positives("div/b", {2, 1})),
      binary("remainder", BinaryOp::Rem, dividends(), divisors()),
      binary("powf", BinaryOp::Pow, positives("pow/a", {2, 3}), reals("pow/b", {2, 3})),
      binary("powf/broadcast", BinaryOp::Pow, positives("pow/bc/a", {3, 1}),
             reals("pow/bc/b", {2})),
      binary("maximum", BinaryOp::Maximum, grid_a("max/a", {2, 3}), grid_b("max/b", {2, 3})),
      binary("maximum/broadcast", BinaryOp::Maximum, grid_a("max/bc/a", {2, 3}),
             grid_b("max/bc/b", {1, 3})),
      binary("minimum", BinaryOp::Minimum, grid_a("min/a", {2, 3}), grid_b("min/b", {2, 3})),
  };
}

std::vector<GradCase> tensor_scalar_cases() {
  return {
      scalar("add_scalar", BinaryOp::Add, 1.5, reals("add_s", {2, 3})),
      scalar("sub_scalar", BinaryOp::Sub, 1.5, reals("sub_s", {2, 3})),
      scalar("rsub_scalar", BinaryOp::Sub, 1.5, reals("rsub_s", {2, 3}), true),
      scalar("mul_scalar", BinaryOp::Mul, -2.5, reals("mul_s", {2, 3})),
      scalar("div_scalar", BinaryOp::Div, -2.5, reals("div_s", {2, 3})),
      scalar("rdiv_scalar", BinaryOp::Div, 1.5, divisors(), true),
      scalar("remainder_scalar", BinaryOp::Rem, 0.7, dividends()),
      // 2.3 / divisors = 3.29, 1.77, -1.10, 2.56, 1.44, -2.88: away from integers.
      scalar("remainder_scalar/lhs", BinaryOp::Rem, 2.3, divisors(), true),
      scalar("powf_scalar", BinaryOp::Pow, 2.5, positives("pow_s", {2, 3})),
      scalar("powf_scalar/negative", BinaryOp::Pow, -1.5, positives("pow_s/neg", {2, 3})),
      scalar("powf_scalar/lhs", BinaryOp::Pow, 1.7, reals("rpow_s", {2, 3}), true),
      // The grid -2 + 0.37k never hits 0.05: no element at the bound.
      scalar("clamp_min", BinaryOp::Maximum, 0.05, grid_a("clamp_min", {2, 3})),
      scalar("clamp_max", BinaryOp::Minimum, 0.05, grid_a("clamp_max", {2, 3})),
  };
}

std::vector<GradCase> selection_cases() {
  return {
      // inputs (cond, a, b), all three broadcast to [2, 3].
      op_case("where", ir::Where{},
              {mask({1, 0}, {2, 1}), reals("where/a", {2, 3}), reals("where/b", {3})}),
      op_case("mask_fill", ir::MaskFill{2.5},
              {reals("mask_fill", {2, 3}), mask({0, 1, 1}, {1, 3})}),
  };
}

}  // namespace

std::vector<GradCase> binary_grad_cases() {
  return concat({tensor_tensor_cases(), tensor_scalar_cases(), selection_cases()});
}

}  // namespace ember::test
