// Pooling kernels over the window tables of pool_windows.h. Max pooling keeps each window's
// first maximum and its position in the plane; a NaN replaces any value, a later NaN an earlier
// one (PyTorch's rule). Average pooling sums in double and rounds once to x's dtype; its gradient
// spreads each output gradient evenly over the window the output averaged.
#include <cstdint>
#include <vector>

#include "backends/ndarray/element.h"
#include "backends/ndarray/index_data.h"
#include "backends/ndarray/kernels.h"
#include "backends/ndarray/pool_windows.h"

namespace ember::ndarray {
namespace {

using pool::Cell;
using pool::Divisor;
using pool::kAdaptiveDivisor;
using pool::pool_divisor;
using pool::Window;
using pool::Windows;

/// Whether v takes best's place as a window's maximum.
template <typename T>
bool replaces(T v, T best) {
  return is_nan(v) || load(v) > load(best);
}

/// The maximum of every window of x, and its position in x's plane.
template <typename T>
std::vector<TensorData> max_pool(const Windows& w, const TensorData& x, Outputs out) {
  TensorData values = zeros_like(out[0]);
  std::vector<int64_t> positions(static_cast<std::size_t>(out[0].shape.num_elements()));
  const auto src = x.as<T>();
  const auto dst = values.as_mut<T>();
  for (int64_t plane = 0; plane < w.planes; ++plane) {
    const T* in = src.data() + plane * w.in_plane();
    const int64_t base = plane * w.out_plane();
    pool::for_each_cell(w, [&](int64_t o, const Cell& cell) {
      int64_t best = -1;  // every window holds an input element (ir's rule)
      pool::for_each_position(w, cell, [&](int64_t p) {
        if (best < 0 || replaces(in[p], in[best])) best = p;
      });
      dst[base + o] = in[best];
      positions[base + o] = best;
    });
  }
  std::vector<TensorData> results;
  results.push_back(std::move(values));
  results.push_back(index_data(positions, out[1]));
  return results;
}

std::vector<TensorData> max_pool(const ir::Op& op, const Windows& w, const TensorData& x,
                                 Outputs out) {
  std::vector<TensorData> results;
  visit_dtype(x.dtype(), [&]<typename T>() {
    if constexpr (is_bool_v<T>) {
      throw_unsupported(op, x.dtype());
    } else {
      results = max_pool<T>(w, x, out);
    }
  });
  return results;
}

/// Rejects what ir::infer does: averages of non-float data.
void require_float(const ir::Op& op, DType dtype) {
  if (!is_float(dtype)) throw_unsupported(op, dtype);
}

/// The average of every window of x.
TensorData avg_pool(const ir::Op& op, const Windows& w, const Divisor& divisor, const TensorData& x,
                    const ir::TensorMeta& out) {
  require_float(op, x.dtype());
  const std::vector<double> src = x.to_vector<double>();
  std::vector<double> dst(static_cast<std::size_t>(out.shape.num_elements()));
  for (int64_t plane = 0; plane < w.planes; ++plane) {
    const double* in = src.data() + plane * w.in_plane();
    double* averages = dst.data() + plane * w.out_plane();
    pool::for_each_cell(w, [&](int64_t o, const Cell& cell) {
      double sum = 0.0;
      pool::for_each_position(w, cell, [&](int64_t p) { sum += in[p]; });
      averages[o] = sum / divisor.of(cell);
    });
  }
  return TensorData(dst, out.shape, out.dtype);
}

/// The gradient of avg_pool: each output gradient divided by its window's divisor, added to
/// every element of the window.
TensorData avg_pool_grad(const ir::Op& op, const Windows& w, const Divisor& divisor,
                         const TensorData& grad_output, const ir::TensorMeta& out) {
  require_float(op, grad_output.dtype());
  const std::vector<double> grad = grad_output.to_vector<double>();
  std::vector<double> dst(static_cast<std::size_t>(out.shape.num_elements()));
  for (int64_t plane = 0; plane < w.planes; ++plane) {
    const double* g = grad.data() + plane * w.out_plane();
    double* dx = dst.data() + plane * w.in_plane();
    pool::for_each_cell(w, [&](int64_t o, const Cell& cell) {
      const double share = g[o] / divisor.of(cell);
      pool::for_each_position(w, cell, [&](int64_t p) { dx[p] += share; });
    });
  }
  return TensorData(dst, out.shape, out.dtype);
}

}  // namespace

std::vector<TensorData> run(const ir::Pool& op, Inputs in, Outputs out) {
  const TensorData& x = *in[0];
  const Windows w = pool::pool_windows(op, x.shape(), out[0].shape);
  if (op.op == ir::PoolOp::Max) return max_pool(op, w, x, out);
  std::vector<TensorData> results;
  results.push_back(avg_pool(op, w, pool_divisor(op), x, out[0]));
  return results;
}

std::vector<TensorData> run(const ir::AdaptivePool& op, Inputs in, Outputs out) {
  const TensorData& x = *in[0];
  const Windows w = pool::adaptive_windows(x.shape(), out[0].shape);
  if (op.op == ir::PoolOp::Max) return max_pool(op, w, x, out);
  std::vector<TensorData> results;
  results.push_back(avg_pool(op, w, kAdaptiveDivisor, x, out[0]));
  return results;
}

TensorData run(const ir::AvgPoolGrad& op, Inputs in, Outputs out) {
  const Windows w = pool::pool_windows(op.pool, op.input_shape, in[0]->shape());
  return avg_pool_grad(op, w, pool_divisor(op.pool), *in[0], out[0]);
}

TensorData run(const ir::AdaptiveAvgPoolGrad& op, Inputs in, Outputs out) {
  const Windows w = pool::adaptive_windows(op.input_shape, in[0]->shape());
  return avg_pool_grad(op, w, kAdaptiveDivisor, *in[0], out[0]);
}

}  // namespace ember::ndarray
