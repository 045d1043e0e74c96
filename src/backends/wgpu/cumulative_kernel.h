// The wgpu backend's cumulative sum, product, maximum and minimum along a dim: the WGSL of
// backends/shader/cumulative_scan.h's passes (one invocation a lane in order, or a long lane's
// blocks, their carries and the blocks again from their carries). Sums and products
// of i32 and u32 in wrapping 32-bit integers (ndarray's, exactly); maximum and minimum of f32, i32,
// u32. Sums and products of floats run on the host: ndarray accumulates them in double, which
// WGSL does not have.
#pragma once

#include <cstdint>
#include <span>

#include "backends/shader/cumulative_scan.h"
#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_runner.h"

namespace ember::wgpu {

class CumulativeKernel {
 public:
  explicit CumulativeKernel(const KernelRunner& runner) : runner_(runner) {}

  /// Whether run computes op on dtype (any lane; ScanDispatch::fits says which fit).
  bool takes(ir::CumulativeOp op, DType dtype) const;
  /// What the device allows one kernel.
  const shader::DeviceLimits& limits() const { return runner_.limits(); }
  /// Records pass of dispatch on tensors (x, y, carries as the pass binds them:
  /// shader::record_scan). takes() holds.
  void run(const shader::ScanDispatch& dispatch, shader::ScanPass pass,
           std::span<const BufferRange> tensors);

 private:
  KernelRunner runner_;
};

}  // namespace ember::wgpu
