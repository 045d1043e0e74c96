// ember's neural-network functions against PyTorch's autograd: each case of pytorch_golden.json
// (written by tests/pytorch/generate.py) runs its C++ function (pytorch_cases.h) on
// Device::ndarray().autodiff() in f64. Every output must match PyTorch's (floats within 1e-9
// relative, indices exactly), and so must the gradient of sum(g * outputs[0]) with respect to
// every input PyTorch differentiates.
#include <gtest/gtest.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "ember/autodiff.h"
#include "ember/device.h"
#include "pytorch/pytorch_cases.h"
#include "pytorch/pytorch_golden.h"
#include "support/op_table.h"

namespace ember::test {
namespace {

/// Both sides compute in f64; the order of their sums differs.
constexpr Tolerance kFloatTolerance{1e-9, 1e-12};

TensorHandle upload(const TensorData& data, const Device& device) {
  return ops::from_data(data, TensorCreationOptions(device).with_dtype(data.dtype()),
                        kind_of(data.dtype()));
}

/// The case's inputs on device; those PyTorch differentiates are leaves that require grad.
ops::Handles leaves(const TorchGolden& golden, const Device& device) {
  ops::Handles inputs;
  for (std::size_t k = 0; k < golden.inputs.size(); ++k) {
    const TensorHandle input = upload(golden.inputs[k].data(), device);
    inputs.push_back(golden.grads[k] ? ops::require_grad(input) : input);
  }
  return inputs;
}

/// PyTorch's shape, except that a 0-dim scalar (a reduced loss) stands for one element of any
/// rank: ember's reductions keep their dims with size 1.
Shape expected_shape(const TorchTensor& expected, const TensorHandle& actual) {
  if (expected.shape.empty() && actual.shape().num_elements() == 1) return actual.shape();
  return Shape(expected.shape);
}

/// actual has expected's kind (F64 exactly for floats), shape and values.
::testing::AssertionResult matches(const TensorHandle& actual, const TorchTensor& expected) {
  const bool float_values = expected.dtype == DType::F64;
  if (kind_of(actual.dtype()) != kind_of(expected.dtype) ||
      (float_values && actual.dtype() != DType::F64)) {
    return ::testing::AssertionFailure()
           << "dtype " << actual.dtype() << ", PyTorch's " << expected.dtype;
  }
  const Shape shape = expected_shape(expected, actual);
  const TensorData values = ops::into_data(actual);
  std::string why;
  if (values.approx_equal(expected.data(shape), float_values ? kFloatTolerance : Tolerance{0, 0},
                          &why)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << why << "\n  ember:   " << values;
}

std::vector<std::string> cpp_case_names() {
  std::vector<std::string> names;
  for (const TorchCase& c : torch_cases())
    names.push_back(c.name);
  return names;
}

class PyTorchGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(PyTorchGolden, MatchesAutograd) {
  const TorchGolden* golden = find_torch_golden(GetParam());
  ASSERT_NE(golden, nullptr) << GetParam()
                             << " is not in pytorch_golden.json: add it to generate.py";
  const Device device = Device::ndarray().autodiff();
  const ops::Handles inputs = leaves(*golden, device);
  const ops::Handles outputs = find_torch_case(GetParam())->run(inputs);
  ASSERT_EQ(outputs.size(), golden->outputs.size());
  for (std::size_t i = 0; i < outputs.size(); ++i)
    ASSERT_TRUE(matches(outputs[i], golden->outputs[i])) << "output " << i;

  const TensorHandle g = upload(golden->grad_output.data(outputs[0].shape()), device);
  const Gradients grads = ops::backward(ops::sum(ops::mul(outputs[0], g)));
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (!golden->grads[k]) continue;
    const std::optional<TensorHandle> grad = grads.get(inputs[k]);
    ASSERT_TRUE(grad.has_value()) << "no gradient reached input " << k;
    EXPECT_TRUE(matches(*grad, *golden->grads[k])) << "gradient of input " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, PyTorchGolden, ::testing::ValuesIn(cpp_case_names()),
                         [](const auto& info) { return test_name(info.param); });

TEST(PyTorchGoldenFile, EveryCaseHasACppFunction) {
  ASSERT_FALSE(torch_goldens().empty());
  for (const TorchGolden& golden : torch_goldens()) {
    EXPECT_NE(find_torch_case(golden.name), nullptr)
        << golden.name << " has no C++ function in tests/pytorch/cases_*.cpp";
  }
}

}  // namespace
}  // namespace ember::test
