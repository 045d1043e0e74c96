// Pooling of f32 / f64 on contiguous planes, N * C planes side by side on the thread pool. The
// geometry comes from ndarray's window tables (pool_windows.h) and every loop visits a window's
// positions in ndarray's order, so the results are ndarray's bit for bit: max keeps the first
// maximum and lets a NaN (a later NaN too) replace it; averages and their gradient sum in double
// and round once. Other dtypes, index dtypes other than i32 / i64 and empty tensors fall back.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "backends/flex/copy.h"
#include "backends/flex/elementwise_runs.h"
#include "backends/flex/float_dispatch.h"
#include "backends/flex/index_dispatch.h"
#include "backends/flex/kernels.h"
#include "backends/flex/simd_pool.h"
#include "backends/ndarray/pool_windows.h"

namespace ember::flex {
namespace {

using ndarray::pool::Cell;
using ndarray::pool::Divisor;
using ndarray::pool::kAdaptiveDivisor;
using ndarray::pool::Window;
using ndarray::pool::Windows;
namespace pool = ndarray::pool;

/// Calls body(plane) for every plane, chunks of planes on the pool.
template <typename Body>
void for_each_plane(const Windows& w, const Body& body) {
  const int64_t plane = std::max<int64_t>({1, w.in_plane(), w.out_plane()});
  parallel_for(w.planes, std::max<int64_t>(1, kElementGrain / plane),
               [&](int64_t begin, int64_t end) {
                 for (int64_t p = begin; p < end; ++p)
                   body(p);
               });
}

/// Whether flex computes a pooling of x into out: a float dtype with SIMD kernels, and elements.
bool has_fast_path(const View& x, const ir::TensorMeta& out) {
  return is_simd_float(x.dtype) && x.num_elements() > 0 && out.shape.num_elements() > 0;
}

/// The outputs along the last spatial dim of a sliding max pooling that simd::max_row computes:
/// those in [begin, end), whose windows lie inside the input, and the row's geometry.
struct InteriorRow {
  simd::MaxRow row;
  int64_t begin = 0;
  int64_t end = 0;
};

/// The interior of op's rows over windows w of type T, or nullopt when there is none or T's
/// position lanes cannot hold a plane's positions.
template <typename T>
std::optional<InteriorRow> interior_row(const ir::Pool& op, const Windows& w) {
  const int64_t kernel = op.kernel.back();
  const int64_t stride = op.stride.back();
  const int64_t padding = op.padding.back();
  const int64_t dilation = op.dilation.back();
  const int64_t width = w.axes[2].in_size;
  const auto outputs = static_cast<int64_t>(w.axes[2].windows.size());
  if (sizeof(T) == 4 && w.in_plane() > std::numeric_limits<int32_t>::max()) return std::nullopt;
  // Window o spans [o s - p, o s - p + (k - 1) d]: inside the row from begin to end.
  const int64_t last_start = width - 1 + padding - (kernel - 1) * dilation;
  const int64_t begin = (padding + stride - 1) / stride;
  const int64_t end = last_start < 0 ? 0 : std::min(outputs, last_start / stride + 1);
  if (end <= begin) return std::nullopt;
  return InteriorRow{{nullptr, 0, -padding, kernel, dilation, stride, width}, begin, end};
}

/// Sets rows to the plane offsets of the rows (along the last dim) that windows wa, wb of the
/// outer dims read, in row-major order.
void row_offsets(const Windows& w, const Window& wa, const Window& wb, std::vector<int64_t>& rows) {
  const auto& [a, b, c] = w.axes;
  rows.clear();
  for (int64_t i = 0; i < wa.count; ++i) {
    for (int64_t j = 0; j < wb.count; ++j)
      rows.push_back(((wa.first + i * a.step) * b.in_size + wb.first + j * b.step) * c.in_size);
  }
}

/// The maximum of cell's window of plane in, and its position in the plane.
template <typename T, typename I>
void max_cell(const Windows& w, const Cell& cell, const T* in, T& value, I& position) {
  int64_t best = -1;  // every window holds an input element (ir's rule)
  T best_value{};
  pool::for_each_position(w, cell, [&](int64_t p) {
    const T v = in[p];
    if (best < 0 || v > best_value || std::isnan(v)) {
      best = p;
      best_value = v;
    }
  });
  value = best_value;
  position = static_cast<I>(best);
}

/// The maximum of every window of one plane and its position in the plane: by simd::max_row
/// over the interior of each row, cell by cell elsewhere.
template <typename T, typename I>
void max_plane(const Windows& w, const std::optional<InteriorRow>& interior, const T* in, T* values,
               I* positions) {
  const auto& [a, b, c] = w.axes;
  const auto columns = static_cast<int64_t>(c.windows.size());
  std::vector<int64_t> rows;
  for (const Window& wa : a.windows) {
    for (const Window& wb : b.windows) {
      int64_t begin = 0;  // outputs [begin, end) of the row done by max_row
      int64_t end = 0;
      if (interior) {
        row_offsets(w, wa, wb, rows);
        simd::MaxRow row = interior->row;
        row.rows = rows.data();
        row.row_count = static_cast<int64_t>(rows.size());
        begin = interior->begin;
        end = interior->end;
        simd::max_row(in, row, begin, end, values, positions);
      }
      for (int64_t o = 0; o < columns; ++o) {
        if (o < begin || o >= end)
          max_cell(w, Cell{&wa, &wb, &c.windows[static_cast<std::size_t>(o)]}, in, values[o],
                   positions[o]);
      }
      values += columns;
      positions += columns;
    }
  }
}

/// Max pooling over windows w; op is the sliding pool they come from (nullptr for adaptive
/// windows, which are all done cell by cell).
std::optional<std::vector<View>> max_pool(const Windows& w, const ir::Pool* op, const View& x,
                                          Outputs out) {
  if (!is_flex_index(out[1].dtype)) return std::nullopt;
  OutputTensor values(out[0]);
  OutputTensor positions(out[1]);
  visit_simd_float(x.dtype, [&]<typename T>() {
    const std::optional<InteriorRow> interior = op ? interior_row<T>(*op, w) : std::nullopt;
    visit_flex_index(out[1].dtype, [&]<typename I>() {
      const T* src = x.data<T>();
      T* dst = values.data<T>();
      I* at = positions.data<I>();
      for_each_plane(w, [&](int64_t p) {
        max_plane(w, interior, src + p * w.in_plane(), dst + p * w.out_plane(),
                  at + p * w.out_plane());
      });
    });
  });
  return std::vector<View>{values.view(), positions.view()};
}

/// The average of every window of x, summed in double.
View avg_pool(const Windows& w, const Divisor& divisor, const View& x, const ir::TensorMeta& out) {
  OutputTensor result(out);
  visit_simd_float(x.dtype, [&]<typename T>() {
    const T* src = x.data<T>();
    T* dst = result.data<T>();
    for_each_plane(w, [&](int64_t p) {
      const T* in = src + p * w.in_plane();
      T* averages = dst + p * w.out_plane();
      pool::for_each_cell(w, [&](int64_t o, const Cell& cell) {
        double sum = 0.0;
        pool::for_each_position(w, cell, [&](int64_t i) { sum += static_cast<double>(in[i]); });
        averages[o] = static_cast<T>(sum / divisor.of(cell));
      });
    });
  });
  return result.view();
}

/// avg_pool's gradient: each output gradient over its divisor, added (in double) to every
/// element of its window.
View avg_pool_grad(const Windows& w, const Divisor& divisor, const View& grad_output,
                   const ir::TensorMeta& out) {
  OutputTensor result(out);
  visit_simd_float(grad_output.dtype, [&]<typename T>() {
    const T* grad = grad_output.data<T>();
    T* dst = result.data<T>();
    for_each_plane(w, [&](int64_t p) {
      const T* g = grad + p * w.out_plane();
      std::vector<double> dx(static_cast<std::size_t>(w.in_plane()));
      pool::for_each_cell(w, [&](int64_t o, const Cell& cell) {
        const double share = static_cast<double>(g[o]) / divisor.of(cell);
        pool::for_each_position(w, cell,
                                [&](int64_t i) { dx[static_cast<std::size_t>(i)] += share; });
      });
      std::transform(dx.begin(), dx.end(), dst + p * w.in_plane(),
                     [](double v) { return static_cast<T>(v); });
    });
  });
  return result.view();
}

/// A pooling of kind op over windows w: max (values, positions) or average (values); sliding
/// is the Pool op the windows come from (nullptr for adaptive windows).
std::optional<std::vector<View>> pool_over(ir::PoolOp op, const ir::Pool* sliding, const Windows& w,
                                           const Divisor& divisor, const View& x, Outputs out) {
  if (op == ir::PoolOp::Max) return max_pool(w, sliding, x, out);
  return std::vector<View>{avg_pool(w, divisor, x, out[0])};
}

}  // namespace

std::optional<std::vector<View>> run(const ir::Pool& op, Views in, Outputs out) {
  if (!has_fast_path(in[0], out[0])) return std::nullopt;
  const View x = contiguous(in[0]);
  return pool_over(op.op, &op, pool::pool_windows(op, x.shape, out[0].shape),
                   pool::pool_divisor(op), x, out);
}

std::optional<std::vector<View>> run(const ir::AdaptivePool& op, Views in, Outputs out) {
  if (!has_fast_path(in[0], out[0])) return std::nullopt;
  const View x = contiguous(in[0]);
  return pool_over(op.op, nullptr, pool::adaptive_windows(x.shape, out[0].shape), kAdaptiveDivisor,
                   x, out);
}

std::optional<View> run(const ir::AvgPoolGrad& op, Views in, Outputs out) {
  if (!has_fast_path(in[0], out[0])) return std::nullopt;
  const View grad_output = contiguous(in[0]);
  return avg_pool_grad(pool::pool_windows(op.pool, op.input_shape, grad_output.shape),
                       pool::pool_divisor(op.pool), grad_output, out[0]);
}

std::optional<View> run(const ir::AdaptiveAvgPoolGrad& op, Views in, Outputs out) {
  if (!has_fast_path(in[0], out[0])) return std::nullopt;
  const View grad_output = contiguous(in[0]);
  return avg_pool_grad(pool::adaptive_windows(op.input_shape, grad_output.shape), kAdaptiveDivisor,
                       grad_output, out[0]);
}

}  // namespace ember::flex
