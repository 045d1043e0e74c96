// DLManagedTensors taken in: checked field by field (they come from another library), then shared
// or copied onto the target device (import.h).
#include <dlpack/dlpack.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/interop.h"
#include "interop/dlpack_dtype.h"
#include "interop/import.h"
#include "tensor/check.h"

namespace ember::interop {
namespace {

constexpr std::string_view kFromDlpack = "from_dlpack";

/// Calls managed's deleter (if it has one) when the last copy dies.
std::shared_ptr<void> owner_of(DLManagedTensor* managed) {
  return std::shared_ptr<void>(managed, [](void* p) {
    auto* m = static_cast<DLManagedTensor*>(p);
    if (m->deleter != nullptr) m->deleter(m);
  });
}

/// The DLPack device types by name, for the refusal of those that are not host memory.
std::string device_type_name(DLDeviceType type) {
  switch (type) {
    case kDLCUDA:
      return "kDLCUDA";
    case kDLCUDAHost:
      return "kDLCUDAHost";
    case kDLCUDAManaged:
      return "kDLCUDAManaged";
    case kDLROCM:
      return "kDLROCM";
    case kDLVulkan:
      return "kDLVulkan";
    case kDLMetal:
      return "kDLMetal";
    default:
      return std::to_string(static_cast<int>(type));
  }
}

/// dl's shape, after the checks that make reading it safe (import.h checks its values).
Shape shape_of(const DLTensor& dl) {
  if (dl.ndim < 1) {
    tensor::fail(kFromDlpack, "ndim ", dl.ndim,
                 dl.ndim == 0 ? ": a scalar, and ember tensors have rank >= 1" : " is negative");
  }
  if (dl.shape == nullptr) tensor::fail(kFromDlpack, "null shape for ndim ", dl.ndim);
  return Shape(std::vector<int64_t>(dl.shape, dl.shape + dl.ndim));
}

/// dl's strides in elements: none (row-major, import.h) when it gives none.
std::vector<int64_t> strides_of(const DLTensor& dl) {
  if (dl.strides == nullptr) return {};
  return {dl.strides, dl.strides + dl.ndim};
}

/// dl's element [0, ..., 0]. Note: byte_offset is honoured, though PyTorch and NumPy send 0 and
/// point data at the first element (DLPack's "data is 256-byte aligned" is about CUDA
/// allocations).
std::byte* data_of(const DLTensor& dl) {
  if (dl.data == nullptr) return nullptr;
  const auto address = reinterpret_cast<std::uintptr_t>(dl.data);
  if (dl.byte_offset > std::numeric_limits<std::uintptr_t>::max() - address) {
    tensor::fail(kFromDlpack, "byte_offset ", dl.byte_offset, " from data at ", dl.data,
                 " leaves the address space");
  }
  return static_cast<std::byte*>(dl.data) + dl.byte_offset;
}

ForeignTensor foreign_of(const DLTensor& dl, std::shared_ptr<void> owner) {
  if (dl.device.device_type != kDLCPU) {
    tensor::fail(kFromDlpack, "device type ", device_type_name(dl.device.device_type),
                 " is not host memory: ember takes kDLCPU tensors");
  }
  const DType dtype = from_dlpack_dtype(dl.dtype, kFromDlpack);
  Shape shape = shape_of(dl);
  std::vector<int64_t> strides = strides_of(dl);
  return {{data_of(dl), std::move(strides), std::move(owner)}, {std::move(shape), dtype}};
}

/// managed as a foreign tensor that owns it: from here on, any failure releases it.
ForeignTensor adopt(DLManagedTensor* managed) {
  if (managed == nullptr) tensor::fail(kFromDlpack, "null DLManagedTensor");
  return foreign_of(managed->dl_tensor, owner_of(managed));
}

}  // namespace

TensorHandle from_dlpack(DLManagedTensor* managed, const Device& device, Copy copy) {
  return import_foreign(adopt(managed), device, copy, kFromDlpack);
}

TensorHandle from_dlpack(DLManagedTensor* managed) {
  // Adopted before Device::cpu(), which throws where the cpu backend is not compiled in.
  ForeignTensor foreign = adopt(managed);
  return import_foreign(std::move(foreign), Device::cpu(), Copy::IfNeeded, kFromDlpack);
}

}  // namespace ember::interop
