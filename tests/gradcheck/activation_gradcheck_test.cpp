// The activations' and softmax's backward rules against central finite differences of
// sum(g * f(x)) in f64 on ndarray (the shared harness of gradcheck.h): each rule called directly
// with BackwardArgs, and every case (prelu and glu, composites, included) end to end through
// require_grad / backward. Inputs stay at least 0.3 away from the kinks (0, ±3).
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "autodiff/rule.h"
#include "autodiff/rules/activation.h"
#include "ember/autodiff.h"
#include "gradcheck/gradcheck.h"
#include "support/op_table.h"

namespace ember::test {
namespace {

using ir::ActivationOp;

const Shape kActivationShape{3, 6};

/// -5.1, -4.5, ..., 5.1 (steps of 0.6) times scale, in a shuffled order: at scale 1 never
/// within 0.3 of 0 or ±3.
TensorData off_kinks(double scale = 1.0) {
  const std::vector<int> steps = {3, 14, 0, 9, 17, 6, 11, 1, 16, 4, 8, 13, 2, 15, 7, 10, 5, 12};
  std::vector<double> values;
  for (int k : steps)
    values.push_back((-5.1 + 0.6 * k) * scale);
  return f64(values, kActivationShape);
}

GradCase activation(const std::string& name, ActivationOp op, double alpha = 0.0, double beta = 1.0,
                    TensorData x = off_kinks()) {
  return op_case(name, ir::Activation{op, alpha, beta}, {std::move(x)});
}

GradCase softmax(const std::string& name, int64_t dim, bool log) {
  return op_case(name, ir::Softmax{dim, log}, {reals(name, kActivationShape, -3.0, 3.0)});
}

std::vector<GradCase> op_cases() {
  return {
      activation("relu", ActivationOp::Relu),
      activation("leaky_relu", ActivationOp::LeakyRelu, 0.2),
      activation("gelu", ActivationOp::Gelu),
      activation("gelu_tanh", ActivationOp::GeluTanh),
      activation("sigmoid", ActivationOp::Sigmoid),
      activation("log_sigmoid", ActivationOp::LogSigmoid),
      activation("silu", ActivationOp::Silu),
      activation("softplus", ActivationOp::Softplus),
      // beta * x reaches ±20.4: both sides of the threshold where softplus turns linear.
      activation("softplus/beta", ActivationOp::Softplus, 0.0, 2.0, off_kinks(2.0)),
      activation("mish", ActivationOp::Mish),
      activation("elu", ActivationOp::Elu, 0.5),
      activation("selu", ActivationOp::Selu),
      activation("celu", ActivationOp::Celu, 2.0),
      activation("hard_sigmoid", ActivationOp::HardSigmoid),
      activation("hard_swish", ActivationOp::HardSwish),
      softmax("softmax", 1, false),
      softmax("softmax/dim0", 0, false),
      softmax("log_softmax", 1, true),
      softmax("log_softmax/dim0", 0, true),
  };
}

std::vector<GradCase> activation_composite_cases() {
  const auto prelu = [](const ops::Handles& x) { return ops::prelu(x[0], x[1]); };
  return {
      composite_case("prelu", prelu, {off_kinks(), reals("prelu", Shape{6}, 0.0, 1.0)}),
      composite_case("prelu/shared", prelu, {off_kinks(), f64({0.25}, Shape{1})}),
      composite_case("glu", [](const ops::Handles& x) { return ops::glu(x[0], -1); },
                     {reals("glu", kActivationShape)}),
  };
}

const std::vector<GradCase>& all_cases() {
  static const std::vector<GradCase> cases = concat({op_cases(), activation_composite_cases()});
  return cases;
}

class ActivationRuleGradcheck : public ::testing::TestWithParam<std::string> {};

TEST_P(ActivationRuleGradcheck, MatchesFiniteDifferences) {
  const GradCase& c = find_case(GetParam(), all_cases());
  const TensorData g = output_gradient(c);
  const std::optional<TensorData> expected = numeric_vjp(c, g).front();
  const ops::Handles grads = rule_vjp(c, Device::ndarray(), g);
  ASSERT_EQ(grads.size(), 1u);
  EXPECT_TRUE(grad_matches(grads[0], c.inputs[0], *expected, kGradTolerance));
}

INSTANTIATE_TEST_SUITE_P(Ops, ActivationRuleGradcheck,
                         ::testing::ValuesIn(case_names(all_cases(), true)),
                         [](const auto& info) { return test_name(info.param); });

class ActivationApiGradcheck : public ::testing::TestWithParam<std::string> {};

TEST_P(ActivationApiGradcheck, MatchesFiniteDifferences) {
  const GradCase& c = find_case(GetParam(), all_cases());
  EXPECT_TRUE(api_gradient_matches(c));
}

INSTANTIATE_TEST_SUITE_P(Cases, ActivationApiGradcheck,
                         ::testing::ValuesIn(case_names(all_cases())),
                         [](const auto& info) { return test_name(info.param); });

// DESIGN.md §3: cheap activations are memory-bound (recomputed from the input under Balanced
// checkpointing); softmax keeps its output, from which its gradient is cheapest.
TEST(ActivationRules, ActivationsAreMemoryBoundAndKeepTheirInput) {
  for (int op = 0; op <= static_cast<int>(ActivationOp::HardSwish); ++op) {
    const ir::Activation activation{static_cast<ActivationOp>(op)};
    const autodiff::BackwardRule* rule = autodiff::backward_rule(activation);
    ASSERT_NE(rule, nullptr) << ir::name(activation);
    EXPECT_EQ(rule, autodiff::rules::activation_rule(activation));
    EXPECT_EQ(rule->bound, autodiff::Bound::Memory);
    EXPECT_TRUE(rule->needs_inputs);
    EXPECT_FALSE(rule->needs_outputs);
  }
}

TEST(ActivationRules, SoftmaxIsComputeBoundAndKeepsItsOutput) {
  for (bool log : {false, true}) {
    const autodiff::BackwardRule* rule = autodiff::backward_rule(ir::Softmax{0, log});
    ASSERT_NE(rule, nullptr);
    EXPECT_EQ(rule->bound, autodiff::Bound::Compute);
    EXPECT_FALSE(rule->needs_inputs);
    EXPECT_TRUE(rule->needs_outputs);
  }
}

TEST(ActivationRules, UnknownActivationHasNoRule) {
  EXPECT_EQ(autodiff::rules::activation_rule(ir::Activation{static_cast<ActivationOp>(200)}),
            nullptr);
}

}  // namespace
}  // namespace ember::test
