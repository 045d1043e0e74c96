// The CUDA C sources of interpolation, its gradient and the average pooling gradients, and the
// tables they read. Every geometry rule stays in ndarray's plans (interpolate_plan.h: each output
// index's taps; pool_windows.h: each output index's window): the tables are those plans, turned
// where needed into gathers (for each destination element, what reaches it, in the order
// ndarray's loops add it). Each sum is one thread's, in double, in ndarray's order, so the values
// are ndarray's bit for bit: no atomics.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/ndarray/interpolate_plan.h"
#include "backends/ndarray/pool_windows.h"
#include "ember/dtype.h"

namespace ember::cuda {

/// One resampling pass along one dim of a float dtype's values (or of the double intermediates
/// between passes), seen as [outer, size, inner]:
///   ember_resample(const void* src, void* dst, int from_x, int to_x, long long outer,
///                  long long src_size, long long dst_size, long long inner,
///                  const long long* table)
/// dst[b, o, k] = the sum over o's entries e, in order from 0.0, of weight[e] * src[b, from[e], k],
/// in double without fused multiply-adds (ndarray's resample_dim). src holds x_t when from_x, else
/// double; dst x_t (rounded once) when to_x, else double. table (resample_table): offsets[dst_size
/// + 1] into the entries, then from[entries], then weight[entries] (doubles).
std::string resample_source(DType dtype);

/// The table of one pass of plan: forward, each output index's taps; transposed (the gradient),
/// for each input index the (output index, weight) of every tap that reads it, in the order
/// ndarray's scatter adds them (output index ascending, then tap).
std::vector<int64_t> resample_table(const ndarray::interpolate::DimPlan& plan, bool transposed);

/// The kernel parameter ember_pool_grad, by value.
struct PoolGradParameters {
  int64_t in[3];        ///< the input plane's spatial sizes (front-padded to three)
  int64_t outs[3];      ///< the output plane's
  uint64_t windows[3];  ///< device addresses: {first, count, padded_count} per output index
  uint64_t covers[3];   ///< device addresses: pool_grad_tables' covers of each axis
  double divisor;
  int count_padding;
  int has_divisor;
};

/// The gradient of average pooling of a float dtype, as a gather:
///   ember_avg_pool_grad(const x_t* grad, x_t* dx, long long planes, ember_pool_grad p)
/// dx at input position (x0, x1, x2) of a plane = the sum in double, from 0.0, of grad[a, b, c] /
/// divisor over the output cells (a, b, c) whose windows hold it, in row-major order of the cells
/// (ndarray's avg_pool_grad adds them in that order); the divisor as the forward kernel's.
std::string avg_pool_grad_source(DType dtype);

/// The tables of ember_avg_pool_grad in one array: per axis its windows ({first, count,
/// padded_count} per output index) and its covers (offsets[in_size + 1] into the entries, then
/// the entries: for each input index, the output indices whose windows hold it, ascending);
/// windows_at and covers_at are where each axis's tables start.
struct PoolGradTables {
  std::vector<int64_t> table;
  std::array<std::size_t, 3> windows_at{};
  std::array<std::size_t, 3> covers_at{};
};
PoolGradTables pool_grad_tables(const ndarray::pool::Windows& windows);

}  // namespace ember::cuda
