#include "backends/flex/widened.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/flex/convert.h"
#include "backends/flex/elementwise_runs.h"
#include "backends/flex/float_dispatch.h"
#include "backends/flex/narrow.h"
#include "backends/flex/simd.h"
#include "backends/flex/thread_buffer.h"
#include "backends/flex/thread_pool.h"
#include "backends/flex/view_ops.h"

namespace ember::flex {
namespace {

/// Elements per slab of a slabbed reduction: 4 MiB widened, well within a last-level cache.
constexpr int64_t kSlabElements = int64_t{1} << 20;

/// x's rows [begin, begin + count) of its first dim.
View first_rows(const View& x, int64_t begin, int64_t count) {
  std::vector<ir::SliceRange> ranges;
  for (std::size_t d = 0; d < x.shape.rank(); ++d)
    ranges.push_back({0, x.shape[d], 1});
  ranges[0] = {begin, begin + count, 1};
  return sliced(x, ranges);
}

/// A bf16 / f16 sum, mean, max or min along the last dim of a contiguous tensor, one pass over the
/// narrow bytes: a sum widens in registers (simd.h's narrow sums), taken in double and rounded
/// once, as ndarray's; an extreme widens each row into a buffer the thread keeps and runs the f32
/// loop. nullopt otherwise.
std::optional<View> reduce_rows(const ir::Reduce& op, const View& x, const ir::TensorMeta& out) {
  const bool sums = op.op == ir::ReduceOp::Sum || op.op == ir::ReduceOp::Mean;
  const bool extreme = op.op == ir::ReduceOp::Max || op.op == ir::ReduceOp::Min;
  const auto last = static_cast<int64_t>(x.shape.rank()) - 1;
  if (!(sums || extreme) || op.dim != last || !x.is_contiguous() || x.num_elements() == 0)
    return std::nullopt;
  const int64_t n = x.shape[static_cast<std::size_t>(last)];
  OutputTensor result(out);
  visit_kernel_float(x.dtype, [&]<typename T>() {
    if constexpr (NarrowFloat<T>) {
      const T* src = x.data<T>();
      T* dst = result.data<T>();
      // A sum widens in registers; an extreme widens the row into a buffer the thread keeps.
      const auto reduce = [&](const T* narrow_row) {
        if (!extreme) {
          const double sum = simd::sum(narrow_row, n);
          return static_cast<float>(op.op == ir::ReduceOp::Mean ? sum / static_cast<double>(n)
                                                                : sum);
        }
        float* row = thread_buffer<struct WidenedRow, float>(n);
        simd::widen(narrow_row, row, n);
        return simd::extreme(row, n, op.op == ir::ReduceOp::Max);
      };
      parallel_for(x.num_elements() / n, std::max<int64_t>(1, kElementGrain / n),
                   [&](int64_t begin, int64_t end) {
                     for (int64_t r = begin; r < end; ++r) {
                       const float value = reduce(src + r * n);
                       simd::narrow(&value, dst + r, 1);
                     }
                   });
    }
  });
  return std::move(result).view();
}

}  // namespace

WidenedOperands::WidenedOperands(Views in, Outputs out) {
  widened_.reserve(in.size());  // pointers_ point into it
  for (const View& view : in) {
    if (!is_narrow_float(view.dtype)) {
      pointers_.push_back(&view);
      continue;
    }
    any_ = true;
    widened_.push_back(converted(view, DType::F32));
    pointers_.push_back(&widened_.back());
  }
  for (const ir::TensorMeta& meta : out) {
    dtypes_.push_back(meta.dtype);
    metas_.push_back({meta.shape, is_narrow_float(meta.dtype) ? DType::F32 : meta.dtype});
  }
}

std::optional<std::vector<View>> run_widened(const ir::Reduce& op, Views in, Outputs out) {
  const View& x = in[0];
  if (!is_narrow_float(x.dtype)) return std::nullopt;
  if (std::optional<View> rows = reduce_rows(op, x, out[0])) return std::vector<View>{*rows};
  if (!op.dim || *op.dim == 0 || x.num_elements() <= kSlabElements)
    return run_widened<ir::Reduce>(op, in, out);
  const int64_t row_elements = x.num_elements() / x.shape[0];
  const int64_t slab_rows = std::max<int64_t>(1, kSlabElements / row_elements);
  const int64_t row_bytes = out[0].shape.num_elements() / out[0].shape[0] *
                            static_cast<int64_t>(dtype_size(out[0].dtype));
  OutputTensor result(out[0]);
  for (int64_t begin = 0; begin < x.shape[0]; begin += slab_rows) {
    const int64_t count = std::min(slab_rows, x.shape[0] - begin);
    const View slab = first_rows(x, begin, count);
    const View* slab_views[] = {&slab};
    ir::TensorMeta meta = out[0];
    meta.shape = first_rows(result.view(), begin, count).shape;
    std::optional<std::vector<View>> part =
        run_widened<ir::Reduce>(op, Views(slab_views), {&meta, 1});
    if (!part) return std::nullopt;
    // The kernel's result is contiguous (a new tensor, or narrowed into one).
    std::memcpy(result.bytes() + begin * row_bytes, part->at(0).bytes(),
                static_cast<std::size_t>(count * row_bytes));
  }
  return std::vector<View>{result.view()};
}

View WidenedOperands::narrowed(View result, std::size_t k) const {
  if (k >= dtypes_.size() || result.dtype == dtypes_[k]) return result;
  return converted(result, dtypes_[k]);
}

}  // namespace ember::flex
