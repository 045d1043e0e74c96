#include "backends/flex/view_ops.h"

#include <vector>

#include "ir/slice_range.h"

namespace ember::flex {
namespace {

/// View x with new strides and shape (same storage and offset).
View restrided(const View& x, std::vector<int64_t> strides, Shape shape, int64_t offset) {
  return View{x.storage, offset, std::move(strides), std::move(shape), x.dtype};
}

/// The strides that give x's elements the row-major order of shape, or nullopt. x's dims are
/// cut into chunks laid out as one block (each dim's stride is the next one's times its size);
/// every chunk must map onto whole dims of shape, which then get strides inside the chunk.
/// (PyTorch's computeStride.)
std::optional<std::vector<int64_t>> chunked_strides(const View& x, const Shape& shape) {
  std::vector<int64_t> strides(shape.rank(), 0);
  auto view_d = static_cast<int64_t>(shape.rank()) - 1;
  int64_t chunk_stride = x.strides.back();
  int64_t chunk_elements = 1;
  int64_t view_elements = 1;
  for (auto d = static_cast<int64_t>(x.shape.rank()) - 1; d >= 0; --d) {
    const auto du = static_cast<std::size_t>(d);
    chunk_elements *= x.shape[du];
    const bool chunk_ends =
        d == 0 || (x.shape[du - 1] != 1 && x.strides[du - 1] != chunk_elements * chunk_stride);
    if (!chunk_ends) continue;
    while (view_d >= 0 &&
           (view_elements < chunk_elements || shape[static_cast<std::size_t>(view_d)] == 1)) {
      strides[static_cast<std::size_t>(view_d)] = view_elements * chunk_stride;
      view_elements *= shape[static_cast<std::size_t>(view_d)];
      --view_d;
    }
    if (view_elements != chunk_elements) return std::nullopt;
    if (d > 0) {
      chunk_stride = x.strides[du - 1];
      chunk_elements = 1;
      view_elements = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  return strides;
}

}  // namespace

View permuted(const View& x, std::span<const int64_t> axes) {
  std::vector<int64_t> strides;
  std::vector<int64_t> dims;
  for (const int64_t axis : axes) {
    strides.push_back(x.strides[static_cast<std::size_t>(axis)]);
    dims.push_back(x.shape[static_cast<std::size_t>(axis)]);
  }
  return restrided(x, std::move(strides), Shape(std::move(dims)), x.offset);
}

View flipped(const View& x, std::span<const int64_t> axes) {
  std::vector<int64_t> strides = x.strides;
  int64_t offset = x.offset;
  for (const int64_t axis : axes) {
    const auto d = static_cast<std::size_t>(axis);
    if (x.shape[d] == 0) continue;
    offset += (x.shape[d] - 1) * strides[d];
    strides[d] = -strides[d];
  }
  return restrided(x, std::move(strides), x.shape, offset);
}

View broadcast_to(const View& x, const Shape& shape) {
  const std::size_t leading = shape.rank() - x.shape.rank();
  std::vector<int64_t> strides(shape.rank(), 0);
  for (std::size_t d = leading; d < shape.rank(); ++d) {
    const std::size_t source = d - leading;
    if (x.shape[source] == shape[d]) strides[d] = x.strides[source];
  }
  return restrided(x, std::move(strides), shape, x.offset);
}

View sliced(const View& x, std::span<const ir::SliceRange> ranges) {
  std::vector<int64_t> strides = x.strides;
  std::vector<int64_t> dims;
  int64_t offset = x.offset;
  for (std::size_t d = 0; d < ranges.size(); ++d) {
    const ir::SliceRange& r = ranges[d];
    offset += r.start * strides[d];
    strides[d] = ir::slice_stride(r, strides[d]);
    dims.push_back(ir::slice_length(r));
  }
  Shape shape(std::move(dims));
  // An empty slice may start one past the storage's end: keep it pointing inside.
  if (shape.num_elements() == 0) offset = x.offset;
  return restrided(x, std::move(strides), std::move(shape), offset);
}

std::optional<View> reshaped(const View& x, const Shape& shape) {
  if (x.is_contiguous()) return View::contiguous(x.storage, shape, x.dtype, x.offset);
  // A non-contiguous view has elements and rank >= 1, as chunked_strides needs.
  std::optional<std::vector<int64_t>> strides = chunked_strides(x, shape);
  if (!strides) return std::nullopt;
  return restrided(x, *std::move(strides), shape, x.offset);
}

}  // namespace ember::flex
