// A convolution as the ndarray kernels walk it (conv.cpp). Shapes are padded to three spatial
// dims (a 1-d or 2-d convolution is a 3-d one with leading dims of size 1), the weight's channel
// layout of either direction becomes three strides, and for each spatial dim a TapTable lists
// which input position meets which kernel position. Bounds, divisions and the index arithmetic
// run once per call here, so the kernels' inner loops are only loads, multiplies and adds.
//
// Along one dim, input position i, output position o and kernel position k meet when
//   not transposed: i = o * stride - padding + k * dilation
//   transposed:     o = i * stride - padding + k * dilation
// (a transposed convolution is the adjoint of the convolution with the same geometry).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ember/shape.h"
#include "ir/ops.h"

namespace ember::ndarray::conv {

inline constexpr std::size_t kSpatialDims = 3;

/// Two flat offsets along one spatial dim, already multiplied by that dim's strides.
struct Tap {
  int64_t first;
  int64_t second;
};

/// Rows of taps stored back to back: built row after row (add the taps of a row, then end_row).
class TapTable {
 public:
  void add(Tap tap) { taps_.push_back(tap); }
  void end_row() { row_starts_.push_back(taps_.size()); }
  std::span<const Tap> row(int64_t r) const {
    const auto i = static_cast<std::size_t>(r);
    return std::span<const Tap>(taps_).subspan(row_starts_[i], row_starts_[i + 1] - row_starts_[i]);
  }

 private:
  std::vector<Tap> taps_;
  /// Where each row starts, and one past the last row's end.
  std::vector<std::size_t> row_starts_{0};
};
using TapTables = std::array<TapTable, kSpatialDims>;

/// One spatial dim: extents, geometry, and the flat stride of one step along it inside a
/// channel of x, of the output and of the kernel.
struct SpatialDim {
  int64_t in = 1;
  int64_t out = 1;
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t padding = 0;
  int64_t dilation = 1;
  int64_t in_step = 1;
  int64_t out_step = 1;
  int64_t kernel_step = 1;
};

struct ConvPlan {
  bool transposed = false;
  int64_t batch = 0;
  int64_t groups = 1;
  int64_t in_per_group = 0;   ///< channels of x per group
  int64_t out_per_group = 0;  ///< channels of the output per group
  int64_t in_volume = 1;      ///< spatial elements of one channel of x
  int64_t out_volume = 1;     ///< ... of the output
  int64_t kernel_volume = 1;  ///< ... of the kernel
  std::array<SpatialDim, kSpatialDims> dims;

  /// The plan of a convolution of geometry g on x with weight, whose output has shape out (all
  /// satisfying ir::infer).
  static ConvPlan make(const ir::ConvGeometry& g, const Shape& x, const Shape& weight,
                       const Shape& out);

  /// The flat offset in the weight of the kernel linking channel in_channel of x to channel
  /// out_channel of the output, both counted within group.
  int64_t weight_offset(int64_t group, int64_t in_channel, int64_t out_channel) const;
  /// weight_offset's step from one input channel to the next.
  int64_t weight_in_channel_step() const;
  /// The flat offset of channel `channel` (counted within group) of sample n of x / the output.
  int64_t x_offset(int64_t n, int64_t group, int64_t channel) const;
  int64_t out_offset(int64_t n, int64_t group, int64_t channel) const;

  std::array<int64_t, kSpatialDims> out_extents() const;
  std::array<int64_t, kSpatialDims> kernel_extents() const;
  /// The flat offset of a kernel position inside one kernel.
  int64_t kernel_offset(int64_t kd, int64_t kh, int64_t kw) const;
};

/// The most taps one dim's table may hold (256 MiB of them). A table holds up to a tap per pair
/// of output and kernel positions along its dim: a few thousand for any usual convolution, but
/// 16 bytes per multiply-add of a long 1-d kernel over a long input (a [1, 1, 3n] x [1, 1, n]
/// convolution asked n^2 of them from 16 n bytes of tensors).
inline constexpr int64_t kMaxTapsPerDim = int64_t{1} << 24;

/// Per dim, per output position o: the taps {x offset, kernel offset} of the (i, k) meeting o.
/// ExecutionError when a dim's outputs times its kernel positions pass kMaxTapsPerDim.
TapTables output_taps(const ConvPlan& plan);
/// Per dim, per kernel position k: the taps {x offset, output offset} of the (i, o) it links.
/// ExecutionError as output_taps.
TapTables kernel_taps(const ConvPlan& plan);

}  // namespace ember::ndarray::conv
