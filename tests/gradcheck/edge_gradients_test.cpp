// Gradients at the points finite differences cannot check (kinks, ties, zeros, infinities),
// against PyTorch's conventions, computed by hand in the comments.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "autodiff/rule.h"
#include "gradcheck/gradcheck.h"

namespace ember::test {
namespace {

using autodiff::backward_rule;
using ir::BinaryOp;
using ir::ReduceOp;
using ir::UnaryOp;
using Values = std::vector<double>;

constexpr double kInf = std::numeric_limits<double>::infinity();

/// The input gradients of op's rule on ndarray, for output gradient g.
ops::Handles rule_grads(const ir::Op& op, std::vector<TensorData> inputs, const TensorData& g) {
  return rule_vjp(op_case("edge", op, std::move(inputs)), Device::ndarray(), g);
}

Values values(const TensorHandle& t) {
  return ops::into_data(t).to_vector<double>();
}

TEST(EdgeGradients, AbsAtZeroIsZero) {
  const ops::Handles g =
      rule_grads(ir::Unary{UnaryOp::Abs}, {f64({0, -2, 3}, {3})}, f64({1, 1, 1}, {3}));
  EXPECT_EQ(values(g[0]), (Values{0, -1, 1}));
}

TEST(EdgeGradients, SqrtAtZeroIsInfinite) {
  // 1 / (2 sqrt(x)): inf at 0, 1/4 at 4.
  const ops::Handles g = rule_grads(ir::Unary{UnaryOp::Sqrt}, {f64({0, 4}, {2})}, f64({1, 1}, {2}));
  EXPECT_EQ(values(g[0]), (Values{kInf, 0.25}));
}

TEST(EdgeGradients, StepFunctionsHaveZeroGradient) {
  for (UnaryOp op : {UnaryOp::Sign, UnaryOp::Floor, UnaryOp::Ceil, UnaryOp::Round}) {
    const ops::Handles g =
        rule_grads(ir::Unary{op}, {f64({0.5, -1, 2.5}, {3})}, f64({1, 2, 3}, {3}));
    EXPECT_EQ(values(g[0]), (Values{0, 0, 0})) << ir::name(ir::Unary{op});
  }
}

TEST(EdgeGradients, MaximumAndMinimumSplitTiesInHalf) {
  // a = [1, 2, 3], b = [1, 5, 0]: a tie, b wins, a wins (maximum); a tie, a wins, b wins (min).
  const std::vector<TensorData> inputs{f64({1, 2, 3}, {3}), f64({1, 5, 0}, {3})};
  const TensorData g = f64({1, 1, 1}, {3});
  const ops::Handles max = rule_grads(ir::Binary{BinaryOp::Maximum}, inputs, g);
  EXPECT_EQ(values(max[0]), (Values{0.5, 0, 1}));
  EXPECT_EQ(values(max[1]), (Values{0.5, 1, 0}));
  const ops::Handles min = rule_grads(ir::Binary{BinaryOp::Minimum}, inputs, g);
  EXPECT_EQ(values(min[0]), (Values{0.5, 1, 0}));
  EXPECT_EQ(values(min[1]), (Values{0.5, 0, 1}));
}

TEST(EdgeGradients, ClampPassesTheGradientAtItsBound) {
  // PyTorch's clamp: x >= min (x <= max) passes, boundary included.
  const std::vector<TensorData> x{f64({0.5, 1.0, 0.2}, {3})};
  const TensorData g = f64({1, 1, 1}, {3});
  EXPECT_EQ(values(rule_grads(ir::BinaryScalar{BinaryOp::Maximum, 0.5}, x, g)[0]),
            (Values{1, 1, 0}));
  EXPECT_EQ(values(rule_grads(ir::BinaryScalar{BinaryOp::Minimum, 0.5}, x, g)[0]),
            (Values{1, 0, 1}));
}

TEST(EdgeGradients, MaxAndMinReductionsShareTiesEvenly) {
  // max([3, 1, 3, 2]) = 3, reached twice: half each.
  const ops::Handles whole =
      rule_grads(ir::Reduce{ReduceOp::Max, std::nullopt}, {f64({3, 1, 3, 2}, {4})}, f64({1}, {1}));
  EXPECT_EQ(values(whole[0]), (Values{0.5, 0, 0.5, 0}));
  // min along dim 1 of [[2, 2], [1, 3]] with g = [[1], [4]]: row 0 ties, row 1 picks 1.
  const ops::Handles rows =
      rule_grads(ir::Reduce{ReduceOp::Min, 1}, {f64({2, 2, 1, 3}, {2, 2})}, f64({1, 4}, {2, 1}));
  EXPECT_EQ(values(rows[0]), (Values{0.5, 0.5, 4, 0}));
}

TEST(EdgeGradients, PowfAtAZeroBase) {
  // d/da = b a^(b-1): 2 * 0 = 0; b = 0 gives 0 (not 0 * 0^-1); 3 * 2^2 = 12.
  // d/db = a^b log(a): 0 where a = 0 and b >= 0; 2^3 log 2 = 8 log 2.
  const ops::Handles g = rule_grads(
      ir::Binary{BinaryOp::Pow}, {f64({0, 0, 2}, {3}), f64({2, 0, 3}, {3})}, f64({1, 1, 1}, {3}));
  EXPECT_EQ(values(g[0]), (Values{0, 0, 12}));
  const Values d_exponent = values(g[1]);
  EXPECT_EQ(d_exponent[0], 0);
  EXPECT_EQ(d_exponent[1], 0);
  EXPECT_NEAR(d_exponent[2], 8 * std::log(2.0), 1e-12);
}

TEST(EdgeGradients, PowfOfANegativeBaseIsNaN) {
  // log(-2) is NaN, as in PyTorch.
  const ops::Handles g =
      rule_grads(ir::Binary{BinaryOp::Pow}, {f64({-2}, {1}), f64({2}, {1})}, f64({1}, {1}));
  EXPECT_EQ(values(g[0]), (Values{-4}));  // 2 * (-2)^1
  EXPECT_TRUE(std::isnan(values(g[1])[0]));
}

TEST(EdgeGradients, ScalarPowersAtZero) {
  // x^0 has derivative 0 everywhere, 0 included; 0^x has derivative 0 for x >= 0 (PyTorch).
  const TensorData g = f64({1, 1}, {2});
  EXPECT_EQ(values(rule_grads(ir::BinaryScalar{BinaryOp::Pow, 0.0}, {f64({0, 3}, {2})}, g)[0]),
            (Values{0, 0}));
  EXPECT_EQ(
      values(rule_grads(ir::BinaryScalar{BinaryOp::Pow, 0.0, true}, {f64({0, 2}, {2})}, g)[0]),
      (Values{0, 0}));
}

TEST(EdgeGradients, RemainderDivisorGradientIsMinusTheFlooredQuotient) {
  // 5.5 / 2 = 2.75 → -2; -5.5 / 2 = -2.75 → floor -3 → 3.
  const ops::Handles g = rule_grads(ir::Binary{BinaryOp::Rem},
                                    {f64({5.5, -5.5}, {2}), f64({2, 2}, {2})}, f64({1, 1}, {2}));
  EXPECT_EQ(values(g[0]), (Values{1, 1}));
  EXPECT_EQ(values(g[1]), (Values{-2, 3}));
}

TEST(EdgeGradients, VarianceWithCorrection) {
  // x = [1, 2, 3, 4], mean 2.5, n - 1 = 3: 2 (x - 2.5) / 3 = [-1, -1/3, 1/3, 1].
  const ops::Handles g = rule_grads(ir::Reduce{ReduceOp::Var, std::nullopt, 1},
                                    {f64({1, 2, 3, 4}, {4})}, f64({1}, {1}));
  const Values v = values(g[0]);
  const Values expected{-1, -1.0 / 3, 1.0 / 3, 1};
  for (std::size_t i = 0; i < v.size(); ++i)
    EXPECT_NEAR(v[i], expected[i], 1e-15) << i;
}

TEST(EdgeGradients, CummaxTiesGoToTheLaterElement) {
  // x = [1, 3, 3, 2]: out = [1, 3, 3, 3] taken from [0, 1, 2, 2] (PyTorch's cummax indices).
  const ops::Handles g = rule_grads(ir::Cumulative{ir::CumulativeOp::Max, 0},
                                    {f64({1, 3, 3, 2}, {4})}, f64({1, 2, 3, 4}, {4}));
  EXPECT_EQ(values(g[0]), (Values{1, 2, 7, 0}));
}

TEST(EdgeGradients, CastBackToTheInputsFloatDType) {
  // f32 → f64: the f64 gradient goes back as f32.
  const ir::Op cast = ir::Cast{DType::F64};
  const std::vector<ir::TensorMeta> metas{{Shape{2}, DType::F32}};
  const ops::Handles none(1);
  const ops::Handles output_grads = upload({f64({3, 4}, {2})}, Device::ndarray());
  const ops::Handles g = backward_rule(cast)->backward({cast, metas, none, none, output_grads});
  EXPECT_EQ(g[0].dtype(), DType::F32);
  EXPECT_EQ(values(g[0]), (Values{3, 4}));
}

TEST(EdgeGradients, CastFromIntGivesNoGradient) {
  const ops::Handles g = rule_grads(ir::Cast{DType::F64}, {i64({1, 2}, {2})}, f64({3, 4}, {2}));
  EXPECT_FALSE(g[0].defined());
}

TEST(EdgeGradients, NoGradientForTheOutputMeansNoneForTheInputs) {
  // Sort's values got no gradient (only its indices were used): nothing flows back.
  const ir::Op sort = ir::Sort{0};
  const autodiff::BackwardRule* rule = backward_rule(sort);
  ASSERT_NE(rule, nullptr);
  const ops::Handles inputs = upload({f64({2, 1}, {2})}, Device::ndarray());
  const std::vector<ir::TensorMeta> metas{{Shape{2}, DType::F64}};
  const ops::Handles outputs(2);
  const ops::Handles output_grads(2);
  const ops::Handles grads = rule->backward({sort, metas, inputs, outputs, output_grads});
  ASSERT_EQ(grads.size(), 1u);
  EXPECT_FALSE(grads[0].defined());
}

TEST(EdgeGradients, EmptyInputsGetEmptyGradients) {
  const TensorData empty = TensorData::zeros({2, 0}, DType::F64);
  const std::vector<ir::Op> ops{
      ir::Unary{UnaryOp::Exp},
      ir::Reduce{ReduceOp::Sum, std::nullopt},
      ir::Reduce{ReduceOp::Prod, std::nullopt},
      ir::Reduce{ReduceOp::Prod, 1},
      ir::Cumulative{ir::CumulativeOp::Prod, 1},
      ir::Cumulative{ir::CumulativeOp::Max, 1},
      ir::Sort{1},
  };
  for (const ir::Op& op : ops) {
    const GradCase c = op_case("empty", op, {empty});
    const ops::Handles g = rule_vjp(c, Device::ndarray(), output_gradient(c));
    ASSERT_TRUE(g[0].defined()) << ir::name(op);
    EXPECT_EQ(g[0].shape(), Shape({2, 0})) << ir::name(op);
  }
}

}  // namespace
}  // namespace ember::test
