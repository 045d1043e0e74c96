// layer_norm and rms_norm (ir::LayerNorm) and their gradient on f32 / f64 rows, threads over rows
// (bf16 and f16 through the widened fallback). Each row is read from memory once: its statistics
// (simd::sum, simd::squared_deviations, in double), then, the row in cache, its result. The
// gradient reads x and grad_y once: per row the sums of g and g * xhat, then dx; the weight and
// bias gradients are summed per block of kBlockRows rows in the element type, and the blocks'
// partial sums added in double afterwards (a pass over M / kBlockRows rows, a few percent of x).
#include <hwy/cache_control.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "backends/flex/copy.h"
#include "backends/flex/elementwise_runs.h"
#include "backends/flex/float_dispatch.h"
#include "backends/flex/kernels.h"
#include "backends/flex/simd.h"
#include "backends/flex/simd_norm.h"
#include "backends/flex/thread_pool.h"
#include "core/ceil_div.h"

namespace ember::flex {
namespace {

/// Rows per block of the weight and bias gradients' partial sums.
constexpr int64_t kBlockRows = 32;

/// The rows of x [..., n] and their length.
struct RowShape {
  int64_t rows;
  int64_t n;
};
RowShape row_shape(const View& x) {
  const int64_t n = x.shape.dims().back();
  return {n == 0 ? 0 : x.num_elements() / n, n};
}

/// Whether a result of x's size is written with streaming stores: x and it together are larger
/// than the caches (softmax's rule), so that no line of it is read before it is written.
bool streams(const View& x) {
  return 2 * x.num_elements() * static_cast<int64_t>(x.element_size()) > kStreamingBytes;
}

/// Rows per chunk of the pool: about kElementGrain values.
int64_t row_grain(int64_t n) {
  return std::max<int64_t>(1, kElementGrain / std::max<int64_t>(1, n));
}

/// The data of the optional input at index (nullptr when absent), made contiguous in kept.
template <typename T>
const T* optional_data(bool present, Views in, std::size_t index, std::vector<View>& kept) {
  if (!present) return nullptr;
  kept.push_back(contiguous(in[index]));
  return kept.back().data<T>();
}

template <typename T>
std::vector<View> normalize(const ir::LayerNorm& op, Views in, Outputs out) {
  const View x = contiguous(in[0]);
  std::vector<View> kept;
  const T* w = optional_data<T>(op.weight, in, 1, kept);
  const T* b = optional_data<T>(op.bias, in, op.weight ? 2 : 1, kept);
  const auto [rows, n] = row_shape(x);
  OutputTensor y(out[0]);
  std::optional<OutputTensor> mean;
  if (!op.rms) mean.emplace(out[1]);
  OutputTensor rstd(out.back());
  const T* src = x.data<T>();
  T* dst = y.data<T>();
  T* means = mean ? mean->data<T>() : nullptr;
  T* rstds = rstd.data<T>();
  const bool stream = streams(x);
  parallel_for(rows, row_grain(n), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* row = src + r * n;
      const double m = op.rms ? 0.0 : simd::sum(row, n) / static_cast<double>(n);
      const double squares = simd::squared_deviations(row, n, m);
      const double s = 1.0 / std::sqrt(squares / static_cast<double>(n) + op.eps);
      simd::normalize_row(row, dst + r * n, n, static_cast<T>(m), static_cast<T>(s), w, b, stream);
      if (means != nullptr) means[r] = static_cast<T>(m);
      rstds[r] = static_cast<T>(s);
    }
    // Streaming stores are weakly ordered: fenced before the chunk counts as done.
    if (stream) hwy::FlushStream();
  });
  std::vector<View> results{std::move(y).view()};
  if (mean) results.push_back(std::move(*mean).view());
  results.push_back(std::move(rstd).view());
  return results;
}

/// partials [blocks, n] summed over the blocks in double and rounded into a new tensor of meta.
template <typename T>
View sum_blocks(const std::vector<T>& partials, int64_t blocks, int64_t n,
                const ir::TensorMeta& meta) {
  OutputTensor result(meta);
  T* dst = result.data<T>();
  parallel_for(n, kElementGrain / std::max<int64_t>(1, blocks), [&](int64_t begin, int64_t end) {
    std::vector<double> acc(static_cast<std::size_t>(end - begin));
    for (int64_t k = 0; k < blocks; ++k) {
      const T* part = partials.data() + k * n + begin;
      for (int64_t i = 0; i < end - begin; ++i)
        acc[static_cast<std::size_t>(i)] += static_cast<double>(part[i]);
    }
    for (int64_t i = begin; i < end; ++i)
      dst[i] = static_cast<T>(acc[static_cast<std::size_t>(i - begin)]);
  });
  return std::move(result).view();
}

template <typename T>
std::vector<View> normalize_grad(const ir::LayerNormGrad& op, Views in, Outputs out) {
  const ir::LayerNorm& norm = op.norm;
  const View x = contiguous(in[0]);
  const View dy = contiguous(in[in.size() - 1]);
  const View rstd = contiguous(in[in.size() - 2]);
  std::vector<View> kept;
  const T* w = optional_data<T>(norm.weight, in, 1, kept);
  const T* means = norm.rms ? nullptr : optional_data<T>(true, in, in.size() - 3, kept);
  const auto [rows, n] = row_shape(x);
  const int64_t blocks = ceil_div(rows, kBlockRows);
  const auto partial_size = static_cast<std::size_t>(blocks * n);
  std::vector<T> dw(norm.weight ? partial_size : 0), db(norm.bias ? partial_size : 0);
  OutputTensor dx(out[0]);
  const T* xs = x.data<T>();
  const T* dys = dy.data<T>();
  const T* rstds = rstd.data<T>();
  T* dxs = dx.data<T>();
  const bool stream = streams(x);
  parallel_for(blocks, std::max<int64_t>(1, row_grain(n) / kBlockRows),
               [&](int64_t begin, int64_t end) {
                 for (int64_t k = begin; k < end; ++k) {
                   T* dw_block = dw.empty() ? nullptr : dw.data() + k * n;
                   T* db_block = db.empty() ? nullptr : db.data() + k * n;
                   for (int64_t r = k * kBlockRows; r < std::min(rows, (k + 1) * kBlockRows); ++r) {
                     const T m = means != nullptr ? means[r] : T{0};
                     double sums[2];
                     simd::norm_grad_sums(xs + r * n, dys + r * n, w, n, m, rstds[r], dw_block,
                                          db_block, sums);
                     const auto count = static_cast<double>(n);
                     const T g_mean = norm.rms ? T{0} : static_cast<T>(sums[0] / count);
                     simd::norm_grad_row(xs + r * n, dys + r * n, w, dxs + r * n, n, m, rstds[r],
                                         g_mean, static_cast<T>(sums[1] / count), stream);
                   }
                 }
                 if (stream) hwy::FlushStream();
               });
  std::vector<View> results{std::move(dx).view()};
  if (norm.weight) results.push_back(sum_blocks(dw, blocks, n, out[1]));
  if (norm.bias) results.push_back(sum_blocks(db, blocks, n, out.back()));
  return results;
}

}  // namespace

// Empty rows (n = 0: NaN statistics) go to ndarray.
std::optional<std::vector<View>> run(const ir::LayerNorm& op, Views in, Outputs out) {
  if (!is_simd_float(in[0].dtype) || in[0].num_elements() == 0) return std::nullopt;
  return visit_simd_float(in[0].dtype, [&]<typename T>() { return normalize<T>(op, in, out); });
}

std::optional<std::vector<View>> run(const ir::LayerNormGrad& op, Views in, Outputs out) {
  if (!is_simd_float(in[0].dtype) || in[0].num_elements() == 0) return std::nullopt;
  return visit_simd_float(in[0].dtype,
                          [&]<typename T>() { return normalize_grad<T>(op, in, out); });
}

}  // namespace ember::flex
