// Helpers of the capture tests: placeholders as typed tensors, and host values of tensors.
#pragma once

#include <array>
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

}  // namespace ember::test
