// Helpers for the interop tests: a DLPack producer over memory the test owns (counting its
// deleter's calls), and the values and data pointer of a tensor (the devices: interop_devices.h).
#pragma once

#include <dlpack/dlpack.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "ember/ember.h"
#include "interop/interop_devices.h"

namespace ember::test {

/// A DLPack producer as another library would be: it owns its values, shape and strides, and
/// counts the calls of its deleter. Keep it alive until the deleter has run.
template <typename T>
struct Producer {
  std::vector<T> values;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  ///< empty: null strides (row-major)
  int deleted = 0;
  DLManagedTensor managed{};

  Producer(std::vector<T> v, std::vector<int64_t> s, std::vector<int64_t> st = {})
      : values(std::move(v)), shape(std::move(s)), strides(std::move(st)) {
    DLTensor& dl = managed.dl_tensor;
    dl.data = values.data();
    dl.device = {kDLCPU, 0};
    dl.ndim = static_cast<int>(shape.size());
    dl.dtype = dtype();
    dl.shape = shape.data();
    dl.strides = strides.empty() ? nullptr : strides.data();
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensor* self) {
      ++static_cast<Producer*>(self->manager_ctx)->deleted;
    };
  }
  Producer(const Producer&) = delete;
  Producer& operator=(const Producer&) = delete;

  static DLDataType dtype() {
    if constexpr (std::is_same_v<T, float>) return {kDLFloat, 32, 1};
    if constexpr (std::is_same_v<T, int32_t>) return {kDLInt, 32, 1};
    return {kDLUInt, 8, 1};  // uint8_t
  }
};

/// x's values as T.
template <typename T>
std::vector<T> values_of(const TensorHandle& x) {
  return ops::into_data(x).to_vector<T>();
}

/// Where x's element [0, ..., 0] lies, read through an export (x must be shareable).
inline const void* data_pointer(const TensorHandle& x) {
  DLManagedTensor* managed = interop::to_dlpack(x);
  const void* data = managed->dl_tensor.data;
  managed->deleter(managed);
  return data;
}

/// The element of a DLTensor of T at index, found through its strides.
template <typename T>
T& element(const DLTensor& dl, std::vector<int64_t> index) {
  int64_t offset = 0;
  for (int d = 0; d < dl.ndim; ++d)
    offset += index[d] * dl.strides[d];
  return static_cast<T*>(dl.data)[offset];
}

}  // namespace ember::test
