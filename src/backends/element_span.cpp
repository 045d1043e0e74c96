#include "backends/element_span.h"

namespace ember::backend {

std::optional<ElementSpan> element_span(const Shape& shape, std::span<const int64_t> strides) {
  for (std::size_t d = 0; d < shape.rank(); ++d) {
    if (shape[d] == 0) return ElementSpan{};
  }
  ElementSpan span{0, 0};
  for (std::size_t d = 0; d < shape.rank(); ++d) {
    // The farthest element along d lies (dim - 1) strides from the first, on one side of it.
    int64_t reach = 0;
    if (__builtin_mul_overflow(shape[d] - 1, strides[d], &reach)) return std::nullopt;
    int64_t& side = reach < 0 ? span.first : span.last;
    if (__builtin_add_overflow(side, reach, &side)) return std::nullopt;
  }
  int64_t count = 0;
  if (__builtin_sub_overflow(span.last, span.first, &count) ||
      __builtin_add_overflow(count, 1, &count)) {
    return std::nullopt;
  }
  return span;
}

}  // namespace ember::backend
