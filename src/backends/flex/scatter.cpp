// Scatter of f32 / f64 values by i32 / i64 indices whose shape is x's but along dim (the shape max
// pooling's gradient scatters with). x is copied once into the result, then each lane along dim
// takes its updates in the order ndarray applies them (duplicates add up in the same order, the
// last assignment wins), lanes of different outer positions side by side on the pool. An index
// out of range makes the kernel decline, so that ndarray raises its error; other dtypes and
// shapes fall back too.
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

/// Updates rows [begin, end) of the outer dims of result with values at indices, in row-major
/// order; false (with result partly written) when an index lies outside [0, size).
template <typename T, typename I>
bool scatter_rows(const LaneExtents& e, ir::IndexUpdate mode, const I* indices, const T* values,
                  T* result, int64_t begin, int64_t end) {
  const bool add = mode == ir::IndexUpdate::Add;
  for (int64_t r = begin; r < end; ++r) {
    T* row = result + r * e.size * e.inner;
    for (int64_t k = r * e.count; k < (r + 1) * e.count; ++k) {
      const I* at = indices + k * e.inner;
      const T* v = values + k * e.inner;
      for (int64_t i = 0; i < e.inner; ++i) {
        const auto index = static_cast<int64_t>(at[i]);
        if (index < 0 || index >= e.size) return false;
        T& slot = row[index * e.inner + i];
        slot = add ? slot + v[i] : v[i];
      }
    }
  }
  return true;
}

}  // namespace

std::optional<View> run(const ir::Scatter& op, Views in, Outputs out) {
  const View& x = in[0];
  if (!is_simd_float(x.dtype) || !is_flex_index(in[1].dtype) || in[1].num_elements() == 0) {
    return std::nullopt;
  }
  const std::optional<LaneExtents> e = lane_extents(x.shape, in[1].shape, op.dim);
  if (!e) return std::nullopt;
  const View indices = contiguous(in[1]);
  const View values = contiguous(in[2]);
  OutputTensor result(out[0]);
  copy_to(x, result.bytes());
  std::atomic<bool> in_range = true;
  const int64_t grain = std::max<int64_t>(1, kElementGrain / (e->count * e->inner));
  visit_simd_float(x.dtype, [&]<typename T>() {
    visit_flex_index(indices.dtype, [&]<typename I>() {
      parallel_for(e->outer, grain, [&](int64_t begin, int64_t end) {
        if (!scatter_rows(*e, op.update, indices.data<I>(), values.data<T>(), result.data<T>(),
                          begin, end)) {
          in_range = false;
        }
      });
    });
  });
  if (!in_range) return std::nullopt;  // ndarray raises the error
  return result.view();
}

}  // namespace ember::flex
