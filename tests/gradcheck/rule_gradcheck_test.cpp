// Each op case's backward rule, called directly with BackwardArgs (no tape), against central
// finite differences of sum(g * f(x)) in f64 on ndarray.
#include <gtest/gtest.h>

#include "autodiff/rule.h"
#include "gradcheck/gradcheck.h"
#include "support/op_table.h"

namespace ember::test {
namespace {

class RuleGradcheck : public ::testing::TestWithParam<std::string> {};

TEST_P(RuleGradcheck, MatchesFiniteDifferences) {
  const GradCase& c = find_case(GetParam());
  const TensorData g = output_gradient(c);
  const std::vector<std::optional<TensorData>> expected = numeric_vjp(c, g);
  const ops::Handles grads = rule_vjp(c, Device::ndarray(), g);
  ASSERT_EQ(grads.size(), c.inputs.size());
  for (std::size_t k = 0; k < grads.size(); ++k) {
    if (expected[k]) {
      EXPECT_TRUE(grad_matches(grads[k], c.inputs[k], *expected[k], kGradTolerance))
          << "input " << k;
    } else {
      EXPECT_FALSE(grads[k].defined())
          << "input " << k << " (" << c.inputs[k].dtype() << ") must get no gradient";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, RuleGradcheck, ::testing::ValuesIn(case_names(grad_cases(), true)),
                         [](const auto& info) { return test_name(info.param); });

}  // namespace
}  // namespace ember::test
