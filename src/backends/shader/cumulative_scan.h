// The shader backends' cumulative sum, product, maximum and minimum along a dim, written once:
// x seen as [rows, n, inner] around the dim, one invocation a lane, which runs along it in order
// as ndarray does (so sums and products are ndarray's bit for bit where the kernel accumulates in
// ndarray's type: double for floats, wrapping 32-bit integers), the NaN of a maximum or minimum
// kept once seen. Lanes of at most 4096 elements (one invocation runs along each alone); longer
// ones run on the host. Only the kernels' sources differ between the backends
// (cumulative_kernel.cpp of vulkan and wgpu); each says which op and dtype it computes.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/shader/index_copy.h"
#include "backends/shader/lane_geometry.h"
#include "ir/ops.h"

namespace ember::shader {

/// The longest lane the scan takes: one invocation runs along it alone, which a GPU does slowly
/// (each step waits for the last); longer lanes run on the host until a workgroup scan does them.
constexpr uint64_t kMaxScanLane = 4096;

/// One dispatch of the scan: its op and dtype (which source), its parameter words (lanes, n,
/// inner) and its lanes.
struct ScanDispatch {
  ir::CumulativeOp op;
  DType dtype;
  std::vector<uint32_t> words;
  uint64_t lanes = 0;
  uint64_t n = 0;

  static ScanDispatch of(const ir::Cumulative& cumulative, const ir::TensorMeta& x) {
    const LaneGeometry lanes = LaneGeometry::around(x.shape, cumulative.dim);
    return {cumulative.op,
            x.dtype,
            {static_cast<uint32_t>(lanes.lanes()), static_cast<uint32_t>(lanes.n),
             static_cast<uint32_t>(lanes.inner)},
            lanes.lanes(),
            lanes.n};
  }

  /// Whether it fits the device: lanes of at most kMaxScanLane, x within one binding and below
  /// 2^31 elements.
  bool fits(const ir::TensorMeta& x, uint64_t max_binding, uint32_t max_groups) const {
    return n <= kMaxScanLane && index_copy_fits(lanes, n + 1, {x}, max_binding, max_groups);
  }
};

}  // namespace ember::shader
