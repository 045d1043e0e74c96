// The small MLP and fixed inputs of the steady-training memory tests (tests/cpu, tests/cuda): a
// loop whose reserved bytes must stop growing once its first steps have filled the pools.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "ember/activation_functions.h"
#include "ember/device.h"
#include "ember/nn/linear.h"
#include "ember/tensor.h"

namespace ember::test {

struct SteadyMlp {
  nn::Linear hidden;
  nn::Linear out;
  EMBER_MODULE(hidden, out)

  Tensor<2> forward(const Tensor<2>& x) const {
    return out.forward(activation::relu(hidden.forward(x)));
  }
};

/// rows x columns values of both signs, fixed: sin(0.37 i + 0.11 j).
inline Tensor<2> fixed_matrix(int64_t rows, int64_t columns, const Device& device) {
  std::vector<double> values;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < columns; ++j)
      values.push_back(std::sin(0.37 * static_cast<double>(i) + 0.11 * static_cast<double>(j)));
  }
  return Tensor<2>::from_data(TensorData(values, Shape{rows, columns}), device);
}

}  // namespace ember::test
