// Helpers for the module tests: f64 tensors from literal values on ndarray and an elementwise
// comparison with expected values.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <vector>

#include "ember/ember.h"

namespace ember::test {

/// An f64 tensor of shape holding values, on ndarray.
template <std::size_t D>
Tensor<D> f64_tensor(const std::vector<double>& values, Shape shape) {
  return Tensor<D>::from_data(TensorData(values, std::move(shape)), Device::ndarray());
}
template <std::size_t D>
Tensor<D, Int> i64_tensor(const std::vector<int64_t>& values, Shape shape) {
  return Tensor<D, Int>::from_data(TensorData(values, std::move(shape)), Device::ndarray());
}

/// Every value of t within tol (relative, and absolute near 0) of expected, shape aside.
template <std::size_t D>
void expect_values(const Tensor<D>& t, const std::vector<double>& expected, double tol = 1e-12) {
  const std::vector<double> got = t.into_data().template to_vector<double>();
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], expected[i], tol * (1.0 + std::abs(expected[i]))) << "element " << i;
}

}  // namespace ember::test
