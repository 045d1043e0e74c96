// The libtorch backend (docs/backends/libtorch.md): every ir op as ATen calls on LibTorch's CPU or
// CUDA device, the elementwise ones from ember's formulas (ir/formulas.h) with ATen ops as their
// primitives. Random tensors (ember's Philox stream), casts of f64 and integers to half precision
// (ember rounds once) and max pools of i64 (ATen's take floats) run ndarray's kernels on the host.
// No fusion, no pools (memory reports are nullopt), no device clock (profile measures wall-clock
// time between two syncs). This header includes no ATen header: LibTorch's headers stay inside this
// folder's .cpp files.
#pragma once

#include <memory>
#include <vector>

#include "backends/backend.h"
#include "ember/dispatch_device.h"

namespace ember::libtorch {

/// The backend of d. Throws ExecutionError when LibTorch has no such device (a CUDA index past
/// the GPUs it sees, or no CUDA at all).
std::unique_ptr<backend::Backend> make_libtorch_backend(const LibTorchDevice& d);
/// libtorch, and libtorch_cuda:i for each GPU LibTorch's CUDA sees. Never throws.
std::vector<DispatchDevice> libtorch_devices();
/// Throws ConfigError "[factory] ..." when the LibTorch linked in was built without d's device
/// type (MPS, Vulkan); CPU and CUDA pass (a CUDA device that is missing fails when used, as
/// Device::cuda's does).
void require_buildable(const DispatchDevice& d, const char* factory);

}  // namespace ember::libtorch
