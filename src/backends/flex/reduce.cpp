// Sum, mean, max, min, argmax and argmin of f32 / f64 along a dim or over the whole tensor,
// through the SIMD loops of simd.h. Sums accumulate in double and round once, as ndarray's.
// A reduced dim that is innermost is read as contiguous rows; otherwise whole rows of the inner
// dims are combined element by element (no transposition). Arg-reductions always take rows (the
// dim moved last). Empty reductions and the other ops fall back to ndarray.
#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/flex/dim_last.h"
#include "backends/flex/elementwise_runs.h"
#include "backends/flex/float_dispatch.h"
#include "backends/flex/kernels.h"
#include "backends/flex/simd.h"
#include "backends/ndarray/strided_index.h"

namespace ember::flex {
namespace {

using ir::ReduceOp;
using ndarray::Lanes;

/// Columns of the inner dims combined per task of a reduction across rows.
constexpr int64_t kColumnBlock = 2048;

bool is_arg(ReduceOp op) {
  return op == ReduceOp::ArgMax || op == ReduceOp::ArgMin;
}
bool is_extreme(ReduceOp op) {
  return op == ReduceOp::Max || op == ReduceOp::Min;
}
bool is_maximum(ReduceOp op) {
  return op == ReduceOp::Max || op == ReduceOp::ArgMax;
}

/// The result of one lane (or column) from its sum: the sum or the mean.
template <typename T>
T from_sum(ReduceOp op, double sum, int64_t size) {
  return static_cast<T>(op == ReduceOp::Mean ? sum / static_cast<double>(size) : sum);
}

/// The first position of lane's extreme (the first NaN when it holds one).
template <typename T>
int64_t extreme_position(const T* lane, int64_t size, bool maximum) {
  const T best = simd::extreme(lane, size, maximum);
  const bool nan = std::isnan(best);
  for (int64_t k = 0; k < size; ++k) {
    if (nan ? std::isnan(lane[k]) : lane[k] == best) return k;
  }
  return 0;  // unreachable: best is one of the lane's values
}

/// One value per contiguous row of size elements: out[r] = reduce(row r).
template <typename T, typename Out, typename F>
void reduce_rows(const T* x, int64_t rows, int64_t size, Out* out, const F& reduce) {
  parallel_for(rows, std::max<int64_t>(1, kElementGrain / size), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      out[r] = reduce(x + r * size);
  });
}

/// The sum of one long row, in parallel chunks combined in order.
template <typename T>
double parallel_sum(const T* x, int64_t size) {
  const int64_t chunks = (size + kElementGrain - 1) / kElementGrain;
  std::vector<double> partial(static_cast<std::size_t>(chunks));
  parallel_for(chunks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      const int64_t first = c * kElementGrain;
      partial[static_cast<std::size_t>(c)] =
          simd::sum(x + first, std::min(kElementGrain, size - first));
    }
  });
  double total = 0.0;
  for (const double p : partial)
    total += p;
  return total;
}

/// Sum, mean, max or min across the rows of each outer block: lanes.inner columns, each the
/// reduction of lanes.size elements lanes.inner apart.
template <typename T>
void reduce_columns(ReduceOp op, const T* x, const Lanes& lanes, T* out) {
  const int64_t blocks = (lanes.inner + kColumnBlock - 1) / kColumnBlock;
  const int64_t grain =
      std::max<int64_t>(1, kElementGrain / (lanes.size * std::min(lanes.inner, kColumnBlock)));
  parallel_for(lanes.outer * blocks, grain, [&](int64_t begin, int64_t end) {
    std::vector<double> sums;
    std::vector<T> extremes;
    for (int64_t task = begin; task < end; ++task) {
      const int64_t o = task / blocks;
      const int64_t first = task % blocks * kColumnBlock;
      const int64_t width = std::min(kColumnBlock, lanes.inner - first);
      const T* block = x + o * lanes.size * lanes.inner + first;
      T* dst = out + o * lanes.inner + first;
      if (is_extreme(op)) {
        extremes.assign(block, block + width);
        for (int64_t k = 1; k < lanes.size; ++k)
          simd::extreme_row(block + k * lanes.inner, extremes.data(), width, is_maximum(op));
        std::copy(extremes.begin(), extremes.end(), dst);
      } else {
        sums.assign(static_cast<std::size_t>(width), 0.0);
        for (int64_t k = 0; k < lanes.size; ++k)
          simd::add_row(block + k * lanes.inner, sums.data(), width);
        for (int64_t j = 0; j < width; ++j)
          dst[j] = from_sum<T>(op, sums[static_cast<std::size_t>(j)], lanes.size);
      }
    }
  });
}

/// Sum, mean, max or min of each lane into out (one value per lane).
template <typename T>
void reduce_values(ReduceOp op, const View& x, const Lanes& lanes, T* out) {
  const T* data = x.data<T>();
  if (lanes.inner > 1) return reduce_columns(op, data, lanes, out);
  const int64_t size = lanes.size;
  if (is_extreme(op)) {
    return reduce_rows(data, lanes.count(), size, out,
                       [&](const T* row) { return simd::extreme(row, size, is_maximum(op)); });
  }
  if (lanes.count() == 1) {
    *out = from_sum<T>(op, parallel_sum(data, size), size);
    return;
  }
  reduce_rows(data, lanes.count(), size, out,
              [&](const T* row) { return from_sum<T>(op, simd::sum(row, size), size); });
}

/// ArgMax or ArgMin of each lane, as out's index dtype.
template <typename T>
View reduce_positions(const ir::Reduce& op, const View& x, const ir::TensorMeta& meta) {
  // Rows along the reduced dim (the whole tensor is one row).
  const View rows = op.dim ? rows_along(x, *op.dim) : x;
  const int64_t size = op.dim ? x.shape[static_cast<std::size_t>(*op.dim)] : x.num_elements();
  std::vector<int64_t> positions(static_cast<std::size_t>(meta.shape.num_elements()));
  reduce_rows(rows.data<T>(), static_cast<int64_t>(positions.size()), size, positions.data(),
              [&](const T* row) { return extreme_position(row, size, is_maximum(op.op)); });
  OutputTensor result(meta);
  visit_dtype(meta.dtype, [&]<typename I>() {
    std::transform(positions.begin(), positions.end(), result.data<I>(),
                   [](int64_t p) { return detail::convert_element<I>(p); });
  });
  return result.view();
}

bool has_fast_path(const ir::Reduce& op, const View& x) {
  const bool covered = op.op == ReduceOp::Sum || op.op == ReduceOp::Mean ||
                       op.op == ReduceOp::Max || op.op == ReduceOp::Min || is_arg(op.op);
  return covered && is_simd_float(x.dtype) && x.num_elements() > 0;
}

}  // namespace

std::optional<View> run(const ir::Reduce& op, Views in, Outputs out) {
  if (!has_fast_path(op, in[0])) return std::nullopt;
  const View x = contiguous(in[0]);
  return visit_simd_float(x.dtype, [&]<typename T>() {
    if (is_arg(op.op)) return reduce_positions<T>(op, x, out[0]);
    const Lanes lanes = op.dim ? Lanes::along(x.shape, *op.dim) : Lanes::whole(x.shape);
    OutputTensor result(out[0]);
    reduce_values(op.op, x, lanes, result.data<T>());
    return result.view();
  });
}

}  // namespace ember::flex
