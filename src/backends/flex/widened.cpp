#include "backends/flex/widened.h"

#include "backends/flex/convert.h"
#include "backends/flex/float_dispatch.h"

namespace ember::flex {

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

View WidenedOperands::narrowed(View result, std::size_t k) const {
  if (k >= dtypes_.size() || result.dtype == dtypes_[k]) return result;
  return converted(result, dtypes_[k]);
}

}  // namespace ember::flex
