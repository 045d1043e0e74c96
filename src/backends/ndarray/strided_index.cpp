#include "backends/ndarray/strided_index.h"

namespace ember::ndarray {

std::vector<int64_t> strided_offsets(const Shape& shape, std::span<const int64_t> strides,
                                     int64_t base) {
  std::vector<int64_t> offsets;
  offsets.reserve(static_cast<std::size_t>(shape.num_elements()));
  for_each_index(shape, [&](std::span<const int64_t> index) {
    int64_t offset = base;
    for (std::size_t d = 0; d < index.size(); ++d)
      offset += index[d] * strides[d];
    offsets.push_back(offset);
  });
  return offsets;
}

std::vector<int64_t> broadcast_strides(const Shape& from, const Shape& to) {
  const std::vector<int64_t> contiguous = from.contiguous_strides();
  const std::size_t leading = to.rank() - from.rank();
  std::vector<int64_t> strides(to.rank(), 0);
  for (std::size_t d = leading; d < to.rank(); ++d) {
    const std::size_t source_dim = d - leading;
    if (from[source_dim] != 1) strides[d] = contiguous[source_dim];
  }
  return strides;
}

std::vector<int64_t> broadcast_offsets(const Shape& from, const Shape& to) {
  return strided_offsets(to, broadcast_strides(from, to));
}

Lanes Lanes::along(const Shape& shape, int64_t dim) {
  Lanes lanes;
  const auto axis = static_cast<std::size_t>(dim);
  for (std::size_t d = 0; d < axis; ++d)
    lanes.outer *= shape[d];
  lanes.size = shape[axis];
  for (std::size_t d = axis + 1; d < shape.rank(); ++d)
    lanes.inner *= shape[d];
  return lanes;
}

Lanes Lanes::whole(const Shape& shape) {
  return Lanes{1, shape.num_elements(), 1};
}

}  // namespace ember::ndarray
