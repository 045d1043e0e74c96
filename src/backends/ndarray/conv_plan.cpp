#include "backends/ndarray/conv_plan.h"

#include <algorithm>
#include <string>

#include "ember/error.h"

namespace ember::ndarray::conv {
namespace {

/// ExecutionError when the table of spatial dim axis could pass kMaxTapsPerDim: its positions
/// times its kernel's (checked before any is stored).
void check_table_size(const SpatialDim& dim, std::size_t axis) {
  const int64_t positions = std::max(dim.out, dim.in);
  if (dim.kernel == 0 || positions <= kMaxTapsPerDim / dim.kernel) return;
  throw ExecutionError("[conv] ndarray: spatial dim " + std::to_string(axis) + " pairs " +
                       std::to_string(positions) + " positions with a kernel of " +
                       std::to_string(dim.kernel) +
                       "; the reference kernel's tables hold at most " +
                       std::to_string(kMaxTapsPerDim) + " pairs per dim");
}

/// Not transposed: output o reads i = o s - p + k d, for each k landing inside x.
TapTable direct_output_taps(const SpatialDim& dim) {
  TapTable table;
  for (int64_t o = 0; o < dim.out; ++o) {
    for (int64_t k = 0; k < dim.kernel; ++k) {
      const int64_t i = o * dim.stride - dim.padding + k * dim.dilation;
      if (i >= 0 && i < dim.in) table.add({i * dim.in_step, k * dim.kernel_step});
    }
    table.end_row();
  }
  return table;
}

/// Transposed: output o receives from i = (o + p - k d) / s, for each k where that division is
/// exact and lands inside x.
TapTable transposed_output_taps(const SpatialDim& dim) {
  TapTable table;
  for (int64_t o = 0; o < dim.out; ++o) {
    for (int64_t k = 0; k < dim.kernel; ++k) {
      const int64_t shifted = o - k * dim.dilation + dim.padding;
      if (shifted >= 0 && shifted % dim.stride == 0 && shifted / dim.stride < dim.in) {
        table.add({shifted / dim.stride * dim.in_step, k * dim.kernel_step});
      }
    }
    table.end_row();
  }
  return table;
}

/// For each k: every pair (near, far = near s - p + k d) inside both extents, where near is the
/// output position and far the input one (not transposed), or the reverse (transposed).
TapTable dim_kernel_taps(const SpatialDim& dim, bool transposed) {
  const int64_t near_extent = transposed ? dim.in : dim.out;
  const int64_t far_extent = transposed ? dim.out : dim.in;
  TapTable table;
  for (int64_t k = 0; k < dim.kernel; ++k) {
    for (int64_t near = 0; near < near_extent; ++near) {
      const int64_t far = near * dim.stride - dim.padding + k * dim.dilation;
      if (far < 0 || far >= far_extent) continue;
      const int64_t i = transposed ? near : far;
      const int64_t o = transposed ? far : near;
      table.add({i * dim.in_step, o * dim.out_step});
    }
    table.end_row();
  }
  return table;
}

}  // namespace

ConvPlan ConvPlan::make(const ir::ConvGeometry& g, const Shape& x, const Shape& weight,
                        const Shape& out) {
  ConvPlan plan;
  plan.transposed = g.transposed;
  plan.batch = x[0];
  plan.groups = g.groups;
  plan.in_per_group = x[1] / g.groups;
  plan.out_per_group = out[1] / g.groups;
  const std::size_t spatial = x.rank() - 2;
  const std::size_t first = kSpatialDims - spatial;  // the unit dims come first
  for (std::size_t i = 0; i < spatial; ++i) {
    plan.dims[first + i] = {.in = x[i + 2],
                            .out = out[i + 2],
                            .kernel = weight[i + 2],
                            .stride = g.stride[i],
                            .padding = g.padding[i],
                            .dilation = g.dilation[i]};
  }
  // Row-major: the last dim is the fastest.
  for (std::size_t i = kSpatialDims; i-- > 0;) {
    SpatialDim& dim = plan.dims[i];
    dim.in_step = plan.in_volume;
    dim.out_step = plan.out_volume;
    dim.kernel_step = plan.kernel_volume;
    plan.in_volume *= dim.in;
    plan.out_volume *= dim.out;
    plan.kernel_volume *= dim.kernel;
  }
  return plan;
}

int64_t ConvPlan::weight_offset(int64_t group, int64_t in_channel, int64_t out_channel) const {
  // weight [C_out, C_in / groups, *kernel]; transposed [C_in, C_out / groups, *kernel].
  const int64_t pair = transposed
                           ? (group * in_per_group + in_channel) * out_per_group + out_channel
                           : (group * out_per_group + out_channel) * in_per_group + in_channel;
  return pair * kernel_volume;
}

int64_t ConvPlan::weight_in_channel_step() const {
  return transposed ? out_per_group * kernel_volume : kernel_volume;
}

int64_t ConvPlan::x_offset(int64_t n, int64_t group, int64_t channel) const {
  return ((n * groups + group) * in_per_group + channel) * in_volume;
}

int64_t ConvPlan::out_offset(int64_t n, int64_t group, int64_t channel) const {
  return ((n * groups + group) * out_per_group + channel) * out_volume;
}

std::array<int64_t, kSpatialDims> ConvPlan::out_extents() const {
  return {dims[0].out, dims[1].out, dims[2].out};
}

std::array<int64_t, kSpatialDims> ConvPlan::kernel_extents() const {
  return {dims[0].kernel, dims[1].kernel, dims[2].kernel};
}

int64_t ConvPlan::kernel_offset(int64_t kd, int64_t kh, int64_t kw) const {
  return kd * dims[0].kernel_step + kh * dims[1].kernel_step + kw * dims[2].kernel_step;
}

TapTables output_taps(const ConvPlan& plan) {
  TapTables tables;
  for (std::size_t i = 0; i < kSpatialDims; ++i) {
    check_table_size(plan.dims[i], i);
    tables[i] =
        plan.transposed ? transposed_output_taps(plan.dims[i]) : direct_output_taps(plan.dims[i]);
  }
  return tables;
}

TapTables kernel_taps(const ConvPlan& plan) {
  TapTables tables;
  for (std::size_t i = 0; i < kSpatialDims; ++i) {
    check_table_size(plan.dims[i], i);
    tables[i] = dim_kernel_taps(plan.dims[i], plan.transposed);
  }
  return tables;
}

}  // namespace ember::ndarray::conv
