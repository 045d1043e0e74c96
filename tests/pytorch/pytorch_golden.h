// pytorch_golden.json, parsed: the cases tests/pytorch/generate.py computed with PyTorch's
// autograd (inputs, upstream gradient, outputs, input gradients).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ember/dtype.h"
#include "ember/shape.h"
#include "ember/tensor_data.h"

namespace ember::test {

/// A tensor of the file: F64, I64 or Bool values (as f64: exact for every value written).
struct TorchTensor {
  DType dtype;
  /// PyTorch's shape: empty for a 0-dim scalar (a reduced loss).
  std::vector<int64_t> shape;
  std::vector<double> values;

  /// The values as TensorData of this dtype, shaped as_shape (of values.size() elements).
  TensorData data(const Shape& as_shape) const;
  /// The values in their own shape (inputs and gradients, which are never 0-dim).
  TensorData data() const;
};

struct TorchGolden {
  std::string name;
  std::vector<TorchTensor> inputs;
  /// g: the gradient of the loss sum(g * outputs[0]) with respect to outputs[0].
  TorchTensor grad_output;
  /// Every output of the PyTorch function, outputs[0] the differentiated one.
  std::vector<TorchTensor> outputs;
  /// d sum(g * outputs[0]) / d input, for each input; unset where PyTorch gives none (integer
  /// and Bool inputs, class weights, running statistics).
  std::vector<std::optional<TorchTensor>> grads;
};

/// The cases of tests/pytorch/pytorch_golden.json, parsed once; std::runtime_error when the file
/// is missing or malformed.
const std::vector<TorchGolden>& torch_goldens();
/// The case called name; nullptr when there is none.
const TorchGolden* find_torch_golden(std::string_view name);

}  // namespace ember::test
