// Activations and softmax on f32 / f64 through the SIMD loops of simd.h, and on bf16 / f16 through
// the same loops in f32 (narrow.h: activations in chunks, softmax a row at a time). Softmax runs
// along contiguous rows: its dim is moved last (copied once if needed) and the result handed back
// as a view in the input's dim order.
#include <algorithm>

#include "backends/flex/dim_last.h"
#include "backends/flex/elementwise_runs.h"
#include "backends/flex/float_dispatch.h"
#include "backends/flex/kernels.h"
#include "backends/flex/narrow.h"
#include "backends/flex/simd.h"

namespace ember::flex {

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

std::optional<View> run(const ir::Softmax& op, Views in, Outputs /*out*/) {
  const View& x = in[0];
  if (!is_kernel_float(x.dtype) || x.num_elements() == 0) return std::nullopt;
  return visit_kernel_float(x.dtype, [&]<typename T>() {
    const View rows = rows_along(x, op.dim);
    const int64_t size = x.shape[static_cast<std::size_t>(op.dim)];
    OutputTensor result(rows.meta());
    const T* src = rows.data<T>();
    T* dst = result.data<T>();
    const auto softmax = row_in_f32<T>(
        [&](const auto* in, auto* out, int64_t n) { simd::softmax(in, out, n, op.log); });
    parallel_for(rows.num_elements() / size, std::max<int64_t>(1, kElementGrain / size),
                 [&](int64_t begin, int64_t end) {
                   for (int64_t r = begin; r < end; ++r)
                     softmax(src + r * size, dst + r * size, size);
                 });
    return permuted(result.view(), inverse_axes(axes_moving_last(x.shape.rank(), op.dim)));
  });
}

}  // namespace ember::flex
