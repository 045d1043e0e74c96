// Activations and softmax on f32 / f64 through the SIMD loops of simd.h; activations of bf16 /
// f16 run the same loops in f32 (narrow.h, in chunks), their softmax along the last dim the f32
// row kernel on each row widened in cache, and across rows the widened fallback. Softmax along
// the last dim runs along contiguous rows (a strided view copied once first); along another dim,
// across rows in the input's layout, a block of columns at a time, without a transposition.
// Either way each value is read from memory once and, when the tensor is larger than the caches,
// its result written once with streaming stores.
#include <hwy/cache_control.h>

#include <algorithm>

#include "backends/flex/dim_last.h"
#include "backends/flex/elementwise_runs.h"
#include "backends/flex/fetch_toward_l2.h"
#include "backends/flex/float_dispatch.h"
#include "backends/flex/kernels.h"
#include "backends/flex/narrow.h"
#include "backends/flex/simd.h"
#include "backends/flex/simd_norm.h"
#include "backends/flex/thread_buffer.h"
#include "backends/ndarray/strided_index.h"
#include "core/ceil_div.h"

namespace ember::flex {

using ndarray::Lanes;

std::optional<View> run(const ir::Activation& op, Views in, Outputs out) {
  const DType dtype = in[0].dtype;
  if (!is_kernel_float(dtype)) return std::nullopt;
  return visit_kernel_float(dtype, [&]<typename T>() {
    const View x = contiguous(in[0]);
    OutputTensor result(out[0]);
    const T* src = x.data<T>();
    T* dst = result.data<T>();
    const auto f =
        unary_in_f32<T>([&](const auto* a, auto* b, int64_t n) { simd::activation(op, a, b, n); });
    parallel_for(x.num_elements(), kElementGrain,
                 [&](int64_t begin, int64_t end) { f(src + begin, dst + begin, end - begin); });
    return result.view();
  });
}

namespace {

/// Bytes a softmax across rows keeps per block of columns between its passes: the exponentials of
/// every row (softmax) or the rows themselves (log-softmax), and the columns' running state
/// (simd::softmax_column_state). Twice a Zen 3 core's L2 (512 KiB): along dim 1 of [16, 1024,
/// 1024] (1024 rows, so 224 columns rather than 112: runs of 896 bytes of each row, 4 KiB apart,
/// which the prefetchers follow further), log-softmax and softmax's gradient ran 1.1-1.15x as fast
/// as with 512 KiB, softmax as fast (the second pass finds the block in L3); half of it ran dim 1
/// 0.75-0.9x as fast. Along dim 0 kMaxColumns bounds the block first.
constexpr int64_t kColumnBlockBytes = int64_t{1} << 20;
/// Columns of a block: a multiple of the widest vector (16 f32), at most this many: runs of 4 KiB
/// of each f32 row. Along dim 0 of [16, 1024, 1024] on a Zen 3 VM (512 KiB of L2), 1024 columns
/// ran softmax 1.3x, log-softmax 1.3x and softmax's gradient 1.15x as fast as 2048 or 4096 (a
/// block's rows, its exponentials and the next block fetched meanwhile then fit in L2 together;
/// 512 and 256 ran as 1024); along dim 1 (1024 rows) kColumnBlockBytes bounds it first.
constexpr int64_t kColumnAlign = 16;
constexpr int64_t kMaxColumns = 1024;

/// Whether softmax's input and output together are larger than the caches.
template <typename T>
bool streams(const View& x) {
  return 2 * x.num_elements() * static_cast<int64_t>(sizeof(T)) > kStreamingBytes;
}

/// Softmax along contiguous rows of size elements (dim moved last, copied if need be), handed
/// back as a view in x's dim order. bf16 and f16 rows are widened one at a time into an f32
/// buffer that stays in cache, the f32 row kernel runs there and its result is narrowed into the
/// output (round to nearest even, the widened fallback's bits): memory sees only the 16-bit
/// values, where converting the whole tensor to f32 and back took three passes over memory.
template <typename T>
View softmax_along_rows(const ir::Softmax& op, const View& x) {
  const View rows = rows_along(x, op.dim);
  const int64_t size = x.shape[static_cast<std::size_t>(op.dim)];
  OutputTensor result(rows.meta());
  const T* src = rows.data<T>();
  T* dst = result.data<T>();
  const bool streaming = streams<T>(x);
  parallel_for(
      rows.num_elements() / size, std::max<int64_t>(1, kElementGrain / size),
      [&](int64_t begin, int64_t end) {
        if constexpr (NarrowFloat<T>) {
          float* wide = thread_buffer<struct NarrowSoftmaxRows, float>(2 * size);
          for (int64_t r = begin; r < end; ++r) {
            if (streaming && r + 1 < end) fetch_toward_l2(src + (r + 1) * size, size);
            simd::widen(src + r * size, wide, size);
            simd::softmax(wide, wide + size, size, op.log, nullptr, nullptr);
            simd::narrow(wide + size, dst + r * size, size);
          }
        } else {
          T* exponentials = streaming ? thread_buffer<struct RowExponentials, T>(size) : nullptr;
          for (int64_t r = begin; r < end; ++r) {
            const T* next = streaming && r + 1 < end ? src + (r + 1) * size : nullptr;
            simd::softmax(src + r * size, dst + r * size, size, op.log, exponentials, next);
          }
          // Streaming stores are weakly ordered: fenced before the chunk counts as done.
          if (streaming) hwy::FlushStream();
        }
      });
  return permuted(std::move(result).view(), inverse_axes(axes_moving_last(x.shape.rank(), op.dim)));
}

/// The blocks of columns a kernel across rows (a dim other than the last) walks in x's layout:
/// width columns of one outer index at a time (an outer index's last block may be narrower),
/// block t's lanes.size rows lanes.inner apart from offset(t). width keeps a block's cached values
/// (column_bytes per column) within kColumnBlockBytes.
struct ColumnBlocks {
  ColumnBlocks(const Lanes& lanes, int64_t column_bytes) : lanes(lanes) {
    const int64_t fit = kColumnBlockBytes / column_bytes;
    width = std::min(
        {lanes.inner, kMaxColumns, std::max(kColumnAlign, fit / kColumnAlign * kColumnAlign)});
    per_outer = ceil_div(lanes.inner, width);
  }
  int64_t count() const { return lanes.outer * per_outer; }
  /// Blocks per task of the pool: about kElementGrain values.
  int64_t grain() const { return std::max<int64_t>(1, kElementGrain / (lanes.size * width)); }
  int64_t column(int64_t t) const { return t % per_outer * width; }
  int64_t offset(int64_t t) const { return t / per_outer * lanes.size * lanes.inner + column(t); }
  int64_t columns(int64_t t) const { return std::min(width, lanes.inner - column(t)); }

  Lanes lanes;
  int64_t width = 0;
  int64_t per_outer = 0;
};

/// Softmax across rows (a dim other than the last), in place in x's layout: blocks of columns of
/// each outer index, each read from memory once (their maxima and sums online, simd.h), no
/// transposition.
template <typename T>
View softmax_across_rows(const ir::Softmax& op, const View& contiguous_x, const Lanes& lanes) {
  OutputTensor result(contiguous_x.meta());
  const T* src = contiguous_x.data<T>();
  T* dst = result.data<T>();
  const ColumnBlocks blocks(lanes, static_cast<int64_t>(sizeof(T)) *
                                       (simd::softmax_column_state(lanes.size) + lanes.size));
  const bool streaming = streams<T>(contiguous_x);
  parallel_for(blocks.count(), blocks.grain(), [&](int64_t begin, int64_t end) {
    T* scratch = thread_buffer<struct SoftmaxColumnsScratch, T>(
        simd::softmax_columns_scratch<T>(lanes.size, blocks.width));
    for (int64_t t = begin; t < end; ++t) {
      // The chunk's next block is fetched while this one computes.
      const bool last = t + 1 == end;
      simd::softmax_columns(src + blocks.offset(t), lanes.inner, lanes.size, dst + blocks.offset(t),
                            blocks.columns(t), op.log, scratch, streaming,
                            last ? nullptr : src + blocks.offset(t + 1),
                            last ? 0 : blocks.columns(t + 1));
    }
    if (streaming) hwy::FlushStream();
  });
  return std::move(result).view();
}

/// The gradient of a softmax (not log-softmax) across rows, in y's layout: per block of columns,
/// the columns' sums of g y as y and g come from memory, then, the block in cache, dx; y and g
/// read once, dx written once (simd::softmax_grad_columns).
template <typename T>
View softmax_grad_across_rows(const View& y, const View& g, const Lanes& lanes) {
  OutputTensor result(y.meta());
  const T* ys = y.data<T>();
  const T* gs = g.data<T>();
  T* dst = result.data<T>();
  const ColumnBlocks blocks(lanes, 4 * lanes.size * static_cast<int64_t>(sizeof(T)));
  const bool streaming = streams<T>(y);
  parallel_for(blocks.count(), blocks.grain(), [&](int64_t begin, int64_t end) {
    double* totals = thread_buffer<struct SoftmaxGradTotals, double>(blocks.width);
    T* sums = thread_buffer<struct SoftmaxGradSums, T>(blocks.width);
    for (int64_t t = begin; t < end; ++t) {
      const int64_t at = blocks.offset(t);
      // The chunk's next block is fetched while this one computes.
      const int64_t next = t + 1 < end ? blocks.offset(t + 1) : at;
      simd::softmax_grad_columns(ys + at, gs + at, lanes.inner, lanes.size, dst + at,
                                 blocks.columns(t), totals, sums, streaming, ys + next, gs + next,
                                 t + 1 < end ? blocks.columns(t + 1) : 0);
    }
    if (streaming) hwy::FlushStream();
  });
  return std::move(result).view();
}

/// The gradient of a softmax along contiguous rows of n values: per row the sum of g y (or of g),
/// then, y and g in cache, dx; y and g read once, dx written once.
template <typename T>
View softmax_grad_rows(const ir::Softmax& op, const View& y, const View& g, int64_t n) {
  OutputTensor result(y.meta());
  const T* ys = y.data<T>();
  const T* gs = g.data<T>();
  T* dst = result.data<T>();
  const bool streaming = streams<T>(y);
  parallel_for(y.num_elements() / n, std::max<int64_t>(1, kElementGrain / n),
               [&](int64_t begin, int64_t end) {
                 for (int64_t r = begin; r < end; ++r) {
                   const T* yr = ys + r * n;
                   const T* gr = gs + r * n;
                   const double sum = op.log ? simd::sum(gr, n) : simd::dot(gr, yr, n);
                   // The next rows come from memory while this one's gradient computes.
                   if (streaming && r + 1 < end) {
                     fetch_toward_l2(yr + n, n);
                     fetch_toward_l2(gr + n, n);
                   }
                   simd::softmax_grad_row(yr, gr, static_cast<T>(sum), op.log, dst + r * n, n,
                                          streaming);
                 }
                 if (streaming) hwy::FlushStream();
               });
  return std::move(result).view();
}

}  // namespace

std::optional<View> run(const ir::SoftmaxGrad& op, Views in, Outputs /*out*/) {
  const View& y = in[0];
  if (!is_simd_float(y.dtype) || y.num_elements() == 0) return std::nullopt;
  const Lanes lanes = Lanes::along(y.shape, op.softmax.dim);
  // Log-softmax across rows: the backward rule's composite runs instead (runs_fused_rows).
  if (lanes.inner != 1 && op.softmax.log) return std::nullopt;
  return visit_simd_float(y.dtype, [&]<typename T>() {
    if (lanes.inner != 1)
      return softmax_grad_across_rows<T>(contiguous(y), contiguous(in[1]), lanes);
    return softmax_grad_rows<T>(op.softmax, contiguous(y), contiguous(in[1]), lanes.size);
  });
}

std::optional<View> run(const ir::Softmax& op, Views in, Outputs /*out*/) {
  const View& x = in[0];
  if (!is_kernel_float(x.dtype) || x.num_elements() == 0) return std::nullopt;
  const Lanes lanes = Lanes::along(x.shape, op.dim);
  if (is_narrow_float(x.dtype)) {
    // Across rows bf16 and f16 take the widened fallback (the whole tensor in f32).
    if (lanes.inner != 1) return std::nullopt;
    return visit_kernel_float(x.dtype, [&]<typename T>() { return softmax_along_rows<T>(op, x); });
  }
  return visit_simd_float(x.dtype, [&]<typename T>() {
    if (lanes.inner == 1) return softmax_along_rows<T>(op, x);
    return softmax_across_rows<T>(op, contiguous(x), lanes);
  });
}

}  // namespace ember::flex
