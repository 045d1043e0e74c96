// Helpers of the capture tests: placeholders as typed tensors, and host values of tensors.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember::test {

/// A placeholder of the capture device, typed.
template <std::size_t D, typename K = Float>
Tensor<D, K> placeholder(const std::string& name, const std::array<int64_t, D>& dims,
                         DType dtype = DType::F32) {
  return Tensor<D, K>(Graph::input(name, detail::to_shape(dims), dtype, Device::capture()));
}

/// The bytes of a tensor's values: equal exactly when the values are equal bit for bit.
inline std::vector<std::byte> bits_of(const TensorHandle& x) {
  const TensorData data = ops::into_data(x);
  return {data.bytes().begin(), data.bytes().end()};
}

/// The largest |a - b| over two tensors' values (of one element count).
inline double largest_difference(const TensorHandle& a, const TensorHandle& b) {
  const std::vector<double> x = ops::into_data(a).to_vector<double>();
  const std::vector<double> y = ops::into_data(b).to_vector<double>();
  if (x.size() != y.size()) return INFINITY;
  double largest = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    largest = std::max(largest, std::abs(x[i] - y[i]));
  return largest;
}

}  // namespace ember::test
