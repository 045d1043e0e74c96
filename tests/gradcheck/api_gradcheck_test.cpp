// Every case end to end through the public autodiff API: the float inputs are require_grad
// leaves on Device::ndarray().autodiff(), loss = sum(f(x) * g), backward(), and each leaf's
// gradient against central finite differences.
#include <gtest/gtest.h>

#include "ember/autodiff.h"
#include "gradcheck/gradcheck.h"
#include "support/op_table.h"

namespace ember::test {
namespace {

class ApiGradcheck : public ::testing::TestWithParam<std::string> {};

TEST_P(ApiGradcheck, MatchesFiniteDifferences) {
  const GradCase& c = find_grad_case(GetParam());
  const TensorData g = output_gradient(c);
  const std::vector<std::optional<TensorData>> expected = numeric_vjp(c, g);
  const Device device = Device::ndarray().autodiff();
  ops::Handles inputs = upload(c.inputs, device);
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (expected[k]) inputs[k] = ops::require_grad(inputs[k]);
  }
  const TensorHandle weights = upload({g}, device).front();
  const Gradients grads = ops::backward(ops::sum(ops::mul(run_forward(c, inputs), weights)));
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (!expected[k]) continue;
    const std::optional<TensorHandle> grad = grads.get(inputs[k]);
    ASSERT_TRUE(grad.has_value()) << "no gradient reached input " << k;
    EXPECT_TRUE(grad_matches(*grad, c.inputs[k], *expected[k], kGradTolerance)) << "input " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ApiGradcheck, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return test_name(info.param); });

}  // namespace
}  // namespace ember::test
