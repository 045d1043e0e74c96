// The vulkan backend's cumulative sum, product, maximum and minimum along a dim: the GLSL of
// backends/shader/cumulative_scan.h's passes (one invocation a lane in order, or a long lane's
// blocks, their carries and the blocks again from their carries). Sums and products
// of f32 and f64 accumulate in double, as ndarray's (where the device has doubles), of i32 and
// u32 in wrapping 32-bit integers; maximum and minimum of f32, f64, i32, u32. The rest: the host.
#pragma once

#include <cstdint>
#include <span>

#include "backends/shader/cumulative_scan.h"
#include "backends/vulkan/device_pages.h"
#include "backends/vulkan/kernel_runner.h"

namespace ember::vulkan {

class CumulativeKernel {
 public:
  /// float64: whether the device computes f64 (shaderFloat64).
  CumulativeKernel(const KernelRunner& runner, bool float64) : float64_(float64), runner_(runner) {}

  /// Whether run computes op on dtype (any lane; ScanDispatch::fits says which fit).
  bool takes(ir::CumulativeOp op, DType dtype) const;
  /// What the device allows one kernel.
  const shader::DeviceLimits& limits() const { return runner_.limits(); }
  /// Records pass of dispatch on tensors (x, y, carries as the pass binds them:
  /// shader::record_scan). takes() holds.
  void run(const shader::ScanDispatch& dispatch, shader::ScanPass pass,
           std::span<const BufferRange> tensors);

 private:
  bool float64_;
  KernelRunner runner_;
};

}  // namespace ember::vulkan
