// The ndarray backend's storage: host data, always contiguous row-major.
#pragma once

#include <utility>

#include "backends/backend.h"
#include "ember/tensor_data.h"

namespace ember::ndarray {

struct NdArrayBuffer final : backend::Buffer {
  explicit NdArrayBuffer(TensorData values) : data(std::move(values)) {}

  TensorData data;  ///< Contiguous row-major values (no views: every op writes a new buffer).
};

}  // namespace ember::ndarray
