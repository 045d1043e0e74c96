// The cuda backend (docs/backends/cuda.md): one NVIDIA GPU through the driver API. Elementwise
// ops (on every dtype) and fused programs run as kernels written from the formulas (src/codegen)
// and compiled by NVRTC; matmul and convolution run through cuBLASLt; layout ops, float casts,
// reductions, softmax, indexing, pooling and random tensors run the backend's own kernels
// (kernel_sources.h); every other op, and the few elementwise ops the emitter leaves to the host
// (an integer division by a tensor, a 64-bit integer compared with a scalar), runs on the host
// through ndarray's kernels (copies both ways) until it has a kernel (docs/backends/cuda.md lists
// them). Memory
// comes from the sliced pools over device pages; every op runs on the device's one stream.
#pragma once

#include <memory>

#include "backends/backend.h"
#include "backends/cuda/cuda_api.h"

namespace ember::cuda {

/// The backend of GPU index (< the driver's device count), behind the fusion decorator. Throws
/// ExecutionError when the driver refuses the GPU.
std::unique_ptr<backend::Backend> make_cuda_backend(const Api& api, int index);

}  // namespace ember::cuda
