// The elements a strided layout reaches, measured from element [0, ..., 0]: how much memory a
// foreign strided buffer (DLPack, Backend::wrap_host_memory) must hold, computed with every
// product checked, since the shape and strides may come from outside ember.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "ember/shape.h"

namespace ember::backend {

/// The lowest and highest element offsets a layout reaches: first <= 0 <= last, or {0, -1}
/// (nothing) for a shape without elements.
struct ElementSpan {
  int64_t first = 0;
  int64_t last = -1;
  /// How many elements lie from first to last, both included.
  int64_t count() const { return last - first + 1; }
};

/// The span of shape laid out with strides (in elements, one per dim, any sign; as many as
/// shape has dims, which are not negative); nullopt when an offset or the count overflows int64.
std::optional<ElementSpan> element_span(const Shape& shape, std::span<const int64_t> strides);

}  // namespace ember::backend
