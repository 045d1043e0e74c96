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
  const GradCase& c = find_case(GetParam());
  EXPECT_TRUE(api_gradient_matches(c));
}

INSTANTIATE_TEST_SUITE_P(Cases, ApiGradcheck, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return test_name(info.param); });

}  // namespace
}  // namespace ember::test
