// The vulkan backend's cumulative sum, product, maximum and minimum along a dim: the GLSL of
// backends/shader/cumulative_scan.h's scan (one invocation a lane, in order). Sums and products
// of f32 and f64 accumulate in double, as ndarray's (where the device has doubles), of i32 and
// u32 in wrapping 32-bit integers; maximum and minimum of f32, f64, i32, u32. The rest: the host.
#pragma once

#include <cstdint>
#include <span>

#include "backends/shader/cumulative_scan.h"
#include "backends/vulkan/command_stream.h"
#include "backends/vulkan/device_pages.h"
#include "backends/vulkan/kernel_cache.h"

namespace ember::vulkan {

class CumulativeKernel {
 public:
  CumulativeKernel(const Features& features, KernelCache& kernels, CommandStream& stream);

  /// Whether run computes op on dtype (any lane; ScanDispatch::fits says which fit).
  bool takes(ir::CumulativeOp op, DType dtype) const;
  uint64_t max_binding() const { return max_range_; }
  uint32_t max_groups() const { return max_groups_; }
  /// Records dispatch from x into out (both contiguous). takes() holds.
  void run(const shader::ScanDispatch& dispatch, const BufferRange& x, const BufferRange& out);

 private:
  bool float64_;
  uint32_t max_range_;
  uint32_t max_groups_;
  KernelCache& kernels_;
  CommandStream& stream_;
};

}  // namespace ember::vulkan
