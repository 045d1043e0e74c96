// Gather of f32 / f64 values by i32 / i64 indices whose shape is x's but along dim (cross_entropy
// picks one log-probability per row this way): each output element read from x in place, rows of
// the outer dims side by side on the pool, with no copy of x (ndarray's fallback would copy all
// of it for the few values picked). An index out of range makes the kernel decline, so that
// ndarray raises its error; other dtypes and shapes fall back too.
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "backends/flex/copy.h"
#include "backends/flex/elementwise_runs.h"
#include "backends/flex/float_dispatch.h"
#include "backends/flex/index_dispatch.h"
#include "backends/flex/kernels.h"
#include "backends/flex/lane_extents.h"

namespace ember::flex {
namespace {

/// out's rows [begin, end) of the outer dims: out[r, k, i] = x[r, indices[r, k, i], i]; false
/// (with out partly written) when an index lies outside [0, size).
template <typename T, typename I>
bool gather_rows(const LaneExtents& e, const T* x, const I* indices, T* out, int64_t begin,
                 int64_t end) {
  for (int64_t r = begin; r < end; ++r) {
    const T* row = x + r * e.size * e.inner;
    for (int64_t k = r * e.count; k < (r + 1) * e.count; ++k) {
      const I* at = indices + k * e.inner;
      T* picked = out + k * e.inner;
      for (int64_t i = 0; i < e.inner; ++i) {
        const auto index = static_cast<int64_t>(at[i]);
        if (index < 0 || index >= e.size) return false;
        picked[i] = row[index * e.inner + i];
      }
    }
  }
  return true;
}

}  // namespace

std::optional<View> run(const ir::Gather& op, Views in, Outputs out) {
  const View& x = in[0];
  if (!is_simd_float(x.dtype) || !is_flex_index(in[1].dtype) || in[1].num_elements() == 0) {
    return std::nullopt;
  }
  const std::optional<LaneExtents> e = lane_extents(x.shape, in[1].shape, op.dim);
  if (!e) return std::nullopt;
  const View values = contiguous(x);
  const View indices = contiguous(in[1]);
  OutputTensor result(out[0]);
  std::atomic<bool> in_range = true;
  const int64_t grain = std::max<int64_t>(1, kElementGrain / (e->count * e->inner));
  visit_simd_float(x.dtype, [&]<typename T>() {
    visit_flex_index(indices.dtype, [&]<typename I>() {
      parallel_for(e->outer, grain, [&](int64_t begin, int64_t end) {
        if (!gather_rows(*e, values.data<T>(), indices.data<I>(), result.data<T>(), begin, end))
          in_range = false;
      });
    });
  });
  if (!in_range) return std::nullopt;  // ndarray raises the error
  return std::move(result).view();
}

}  // namespace ember::flex
