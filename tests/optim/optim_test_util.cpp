#include "optim_test_util.h"
#include "support/source_dir.h"
#include "support/suite_device.h"

#include <cmath>
#include <fstream>
#include <string>

namespace ember::optim::test {
namespace {

void flatten(const json& nested, std::vector<double>& values, std::vector<int64_t>& dims,
             std::size_t depth) {
  if (!nested.is_array()) {
    values.push_back(nested.get<double>());
    return;
  }
  if (dims.size() == depth) dims.push_back(static_cast<int64_t>(nested.size()));
  for (const json& element : nested)
    flatten(element, values, dims, depth + 1);
}

}  // namespace

Device device() {
  return ember::test::suite_device().autodiff();
}

TensorHandle f64(const std::vector<double>& values, Shape shape) {
  return ops::from_data(TensorData(values, std::move(shape)), device(), TensorKind::Float);
}

TensorHandle tensor_of(const json& nested) {
  std::vector<double> values;
  std::vector<int64_t> dims;
  flatten(nested, values, dims, 0);
  return f64(values, Shape(dims));
}

const json& golden() {
  static const json parsed = [] {
    std::ifstream in(ember::test::source_dir() + "/tests/optim/golden.json");
    return json::parse(in);
  }();
  return parsed;
}

nn::Linear linear(const TensorHandle& weight, const TensorHandle& bias) {
  return nn::Linear{nn::Param<2>(Tensor<2>(weight)), nn::Param<1>(Tensor<1>(bias))};
}

nn::Linear small_linear() {
  return linear(f64({0.5, -0.25, 1.0, -1.5, 0.75, 2.0}, {2, 3}), f64({0.1, -0.2}, {2}));
}

GradientsParams fixed_grads(int step) {
  // sin of distinct arguments: values of both signs and varied sizes, different at every step.
  std::vector<double> weight(6);
  for (std::size_t i = 0; i < weight.size(); ++i)
    weight[i] = std::sin(1.3 * static_cast<double>(i) + 0.7 * step + 0.1);
  GradientsParams grads;
  grads.insert("weight", f64(weight, {2, 3}));
  grads.insert("bias", f64({std::cos(0.9 * step), -0.5 * std::sin(0.4 * step + 1.0)}, {2}));
  return grads;
}

void expect_near(const TensorHandle& actual, const json& expected) {
  std::string why;
  EXPECT_TRUE(ops::into_data(actual).approx_equal(ops::into_data(tensor_of(expected)),
                                                  Tolerance{1e-10, 1e-12}, &why))
      << why;
}

void expect_identical(const nn::Linear& a, const nn::Linear& b) {
  EXPECT_EQ(a.weight->into_data(), b.weight->into_data());
  EXPECT_EQ(a.bias->value().into_data(), b.bias->value().into_data());
}

}  // namespace ember::optim::test
