// The wgpu backend's random tensors: a WGSL kernel of ir/random.h's stream (Philox4x32-10), for
// f32 draws of the default distribution and Bernoulli (dropout's masks), bit for bit as every
// device draws them; what it takes and its parameters are shared with vulkan
// (backends/shader/random_passes.h). Other distributions and dtypes are drawn on the host.
#pragma once

#include <cstdint>

#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_runner.h"
#include "ir/ops.h"

namespace ember::wgpu {

class RandomKernel {
 public:
  explicit RandomKernel(const KernelRunner& runner) : runner_(runner) {}

  /// Whether run takes op (shader::random_kernels_take on this device).
  bool takes(const ir::Random& op) const;
  /// Records op's tensor into out (contiguous). takes() holds.
  void run(const ir::Random& op, const BufferRange& out);

 private:
  KernelRunner runner_;
};

}  // namespace ember::wgpu
