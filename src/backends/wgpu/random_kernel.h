// The wgpu backend's random tensors: a WGSL kernel of ir/random.h's stream (Philox4x32-10), for
// f32 draws of the default distribution and Bernoulli (dropout's masks), bit for bit as every
// device draws them; what it takes and its parameters are shared with vulkan
// (backends/shader/random_passes.h). Other distributions and dtypes are drawn on the host.
#pragma once

#include <cstdint>

#include "backends/wgpu/command_stream.h"
#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_cache.h"
#include "ir/ops.h"

namespace ember::wgpu {

class RandomKernel {
 public:
  RandomKernel(const Adapter& adapter, KernelCache& kernels, CommandStream& stream);

  /// Whether run takes op (shader::random_kernels_take on this device).
  bool takes(const ir::Random& op) const;
  /// Records op's tensor into out (contiguous). takes() holds.
  void run(const ir::Random& op, const BufferRange& out);

 private:
  uint64_t max_binding_;
  uint32_t max_groups_;
  KernelCache& kernels_;
  CommandStream& stream_;
};

}  // namespace ember::wgpu
