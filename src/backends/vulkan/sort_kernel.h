// The vulkan backend's stable sort along one dim: GLSL kernels of a bitonic network over (key,
// position) pairs in shared memory, one workgroup a lane of up to 2048 elements (or a block of a
// longer lane, then merged in passes over global memory; the passes, the geometry, the order and
// what they take are shared with wgpu: backends/shader/sort_passes.h). Keys of 32 bits (f32, i32,
// u32), lanes of any length the bindings hold; the rest runs on the host.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>

#include "backends/vulkan/device_pages.h"
#include "backends/vulkan/kernel_runner.h"
#include "ir/ops.h"

namespace ember::vulkan {

class SortKernel {
 public:
  /// scratch(bytes, &range) gives a device buffer of bytes (range: where it lies), held while
  /// the pointer it returns lives: a long lane's (key, position) pairs.
  using Scratch = std::function<std::shared_ptr<const void>(uint64_t, BufferRange*)>;
  SortKernel(const KernelRunner& runner, Scratch scratch)
      : runner_(runner), scratch_(std::move(scratch)) {}

  /// Whether run takes sort of x (shader::sort_kernels_take on this device).
  bool takes(const ir::Sort& sort, const ir::TensorMeta& x) const;
  /// Records sort of x (contiguous) into values and positions (its outputs, contiguous). takes()
  /// holds.
  void run(const ir::Sort& sort, const BufferRange& x, const ir::TensorMeta& x_meta,
           const BufferRange& values, const BufferRange& positions);

 private:
  KernelRunner runner_;
  Scratch scratch_;
};

}  // namespace ember::vulkan
