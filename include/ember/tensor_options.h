// TensorCreationOptions: where and in which dtype a creation function makes its tensor.
#pragma once

#include <optional>

#include "ember/device.h"
#include "ember/dtype.h"

namespace ember {

struct TensorCreationOptions {
  Device device;
  /// Empty: the device's default dtype for the tensor's kind.
  std::optional<DType> dtype;

  TensorCreationOptions(const Device& d) : device(d) {}  // NOLINT: a Device works directly
  TensorCreationOptions with_dtype(DTypeArg d) const {
    TensorCreationOptions o = *this;
    o.dtype = d.value;
    return o;
  }
};

}  // namespace ember
