// The shader backends' cumulative sum, product, maximum and minimum along a dim, written once:
// x seen as [rows, n, inner] around the dim. A lane of at most kMaxScanLane elements is run along
// by one invocation in order, as ndarray does (so sums and products are ndarray's bit for bit
// where the kernel accumulates in ndarray's type: double for floats, wrapping 32-bit integers),
// the NaN of a maximum or minimum kept once seen. A longer lane is cut into blocks (about its
// square root of elements each) and scanned in three passes: each block's total (one invocation
// a block, in order), each lane's exclusive scan of its blocks' totals (one invocation a lane, in
// order: the carries), then each block run along again from its carry. Integer sums and products
// wrap, and a maximum or minimum combines associatively (the last NaN, else the first of the
// equal extremes, as ndarray's running order keeps), so these are ndarray's bit for bit too. A
// float sum or product differs from ndarray's only in how its double partial results are
// grouped (block totals combined, then the block's elements from there, instead of one running
// total), each rounding 2^-53 relative: a prefix sum is within about n * 2^-53 times the sum of
// |x| before it of ndarray's (a product within n * 2^-53 relative), so an f32 result is ndarray's
// or one f32 rounding step from it unless the prefix cancels to far below that sum, and an f64
// one is within that bound of ndarray's (the conformance tolerances hold both). Where a double
// product overflows to inf before a 0 (past 1e308), the grouping can give 0 where ndarray's gives
// NaN. Only the kernels' sources differ between the backends (cumulative_sources.cpp of vulkan and
// wgpu); each says which op, dtype and pass it computes. All read the same parameter words: lanes,
// n, inner, block (a block's elements), blocks (of a lane).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "backends/shader/device_limits.h"
#include "backends/shader/index_copy.h"
#include "backends/shader/lane_geometry.h"
#include "ir/ops.h"

namespace ember::shader {

/// The longest lane one invocation scans alone, in ndarray's order: past it the blocked passes
/// spread the lane over many invocations.
constexpr uint64_t kMaxScanLane = 4096;
/// The fewest elements of a long lane's block: shorter ones would spend the passes on carries.
constexpr uint64_t kMinScanBlock = 256;

/// A pass of the scan. Whole: each lane in order (x -> y). BlockTotals: each block's total in
/// the accumulator's type (x -> carries). CarryScan: each lane's carries as the exclusive scan
/// of its totals, in place (carries). FromCarries: each block in order from its carry (x, carries
/// -> y).
enum class ScanPass : uint8_t { Whole, BlockTotals, CarryScan, FromCarries };

/// The bytes of an accumulator of op on dtype: double for float sums and products (ndarray's),
/// else dtype's element.
inline uint64_t scan_carry_bytes(ir::CumulativeOp op, DType dtype) {
  const bool total = op == ir::CumulativeOp::Sum || op == ir::CumulativeOp::Prod;
  return total && is_float(dtype) ? 8 : dtype_size(dtype);
}

/// One scan: its op and dtype (which sources), its parameter words (lanes, n, inner, block,
/// blocks), its lanes and blocks.
struct ScanDispatch {
  ir::CumulativeOp op;
  DType dtype;
  std::vector<uint32_t> words;
  uint64_t lanes = 0;
  uint64_t n = 0;
  uint64_t block = 0;
  uint64_t blocks = 1;

  static ScanDispatch of(const ir::Cumulative& cumulative, const ir::TensorMeta& x) {
    const LaneGeometry geometry = LaneGeometry::around(x.shape, cumulative.dim);
    ScanDispatch d{cumulative.op, x.dtype, {}, geometry.lanes(), geometry.n, geometry.n, 1};
    if (d.n > kMaxScanLane) {
      // About sqrt(n) blocks of about sqrt(n) elements: both in-order loops (a block's, the
      // carries') stay short.
      const auto root = static_cast<uint64_t>(std::ceil(std::sqrt(static_cast<double>(d.n))));
      d.block = std::max(kMinScanBlock, root);
      d.blocks = ceil_div(d.n, d.block);
    }
    d.words = {static_cast<uint32_t>(d.lanes), static_cast<uint32_t>(d.n),
               static_cast<uint32_t>(geometry.inner), static_cast<uint32_t>(d.block),
               static_cast<uint32_t>(d.blocks)};
    return d;
  }

  bool whole() const { return blocks == 1; }
  /// The invocations of pass: one a block (a whole lane: one block), the carries' one a lane.
  uint64_t invocations(ScanPass pass) const {
    return pass == ScanPass::CarryScan ? lanes : lanes * blocks;
  }

  /// Whether it fits the device: x (and the carries) within one binding and below 2^31
  /// elements, each invocation's loops within the device's turns with at most max_groups
  /// workgroups.
  bool fits(const ir::TensorMeta& x, const DeviceLimits& limits) const {
    if (!index_copy_fits(lanes * blocks, block + 1, {x}, limits)) return false;
    return whole() || (index_copy_fits(lanes, blocks + 1, {}, limits) &&
                       lanes * blocks * scan_carry_bytes(op, dtype) <= limits.max_binding);
  }
};

/// Records the scan of x into out (both contiguous): a whole lane in one pass, a long one in
/// three over a scratch buffer of carries. scratch(bytes, &range) gives it, held while the
/// pointer it returns lives (freed once recorded: whatever reuses its slice runs after);
/// run(pass, tensors) records one pass on its tensors (x, y, carries as the pass binds them).
template <typename Range, typename Scratch, typename Run>
void record_scan(const ScanDispatch& dispatch, const Range& x, const Range& out,
                 const Scratch& scratch, const Run& run) {
  const auto pass = [&](ScanPass which, std::initializer_list<Range> tensors) {
    run(which, std::span<const Range>(tensors.begin(), tensors.size()));
  };
  if (dispatch.whole()) {
    pass(ScanPass::Whole, {x, out});
    return;
  }
  Range carries;
  const std::shared_ptr<const void> held = scratch(
      dispatch.lanes * dispatch.blocks * scan_carry_bytes(dispatch.op, dispatch.dtype), &carries);
  pass(ScanPass::BlockTotals, {x, carries});
  pass(ScanPass::CarryScan, {carries});
  pass(ScanPass::FromCarries, {x, out, carries});
}

}  // namespace ember::shader
