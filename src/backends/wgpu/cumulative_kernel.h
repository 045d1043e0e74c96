// The wgpu backend's cumulative sum, product, maximum and minimum along a dim: the WGSL of
// backends/shader/cumulative_scan.h's scan (one invocation a lane, in order). Sums and products
// of i32 and u32 in wrapping 32-bit integers (ndarray's, exactly); maximum and minimum of f32, i32,
// u32. Sums and products of floats run on the host: ndarray accumulates them in double, which
// WGSL does not have.
#pragma once

#include <cstdint>

#include "backends/shader/cumulative_scan.h"
#include "backends/wgpu/command_stream.h"
#include "backends/wgpu/device_pages.h"
#include "backends/wgpu/kernel_cache.h"

namespace ember::wgpu {

class CumulativeKernel {
 public:
  CumulativeKernel(const Adapter& adapter, KernelCache& kernels, CommandStream& stream);

  /// Whether run computes op on dtype (any lane; ScanDispatch::fits says which fit).
  bool takes(ir::CumulativeOp op, DType dtype) const;
  uint64_t max_binding() const { return max_binding_; }
  uint32_t max_groups() const { return max_groups_; }
  /// Records dispatch from x into out (both contiguous). takes() holds.
  void run(const shader::ScanDispatch& dispatch, const BufferRange& x, const BufferRange& out);

 private:
  uint64_t max_binding_;
  uint32_t max_groups_;
  KernelCache& kernels_;
  CommandStream& stream_;
};

}  // namespace ember::wgpu
