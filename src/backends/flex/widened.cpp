#include "backends/flex/widened.h"

#include <algorithm>
#include <cstring>

#include "backends/flex/convert.h"
#include "backends/flex/float_dispatch.h"
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
  if (!is_narrow_float(x.dtype) || !op.dim || *op.dim == 0 || x.num_elements() <= kSlabElements)
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
