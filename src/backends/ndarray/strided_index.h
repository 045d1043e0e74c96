// Walking tensors element by element. Every ndarray buffer is contiguous row-major; views
// (broadcast, permuted, flipped, sliced) are expressed as strides over such a buffer, and
// turned into the flat offset of each element the view visits, in row-major order of the view.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ember/shape.h"

namespace ember::ndarray {

/// Calls f(index) with every multi-index of shape (a span of rank values), in row-major order.
template <typename F>
void for_each_index(const Shape& shape, F&& f) {
  std::vector<int64_t> index(shape.rank(), 0);
  for (int64_t remaining = shape.num_elements(); remaining > 0; --remaining) {
    f(std::span<const int64_t>(index));
    // Odometer step: bump the last dim, carrying into the previous ones.
    for (std::size_t d = shape.rank(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

/// For each element of shape in row-major order, base + sum(index[d] * strides[d]).
std::vector<int64_t> strided_offsets(const Shape& shape, std::span<const int64_t> strides,
                                     int64_t base = 0);

/// Strides that read a contiguous tensor of shape from broadcast (NumPy rules, dims aligned on
/// the right) to shape to: 0 on dims from lacks or stretches from 1.
std::vector<int64_t> broadcast_strides(const Shape& from, const Shape& to);

/// For each element of to, the flat offset of the element of from it reads when broadcast.
std::vector<int64_t> broadcast_offsets(const Shape& from, const Shape& to);

/// A tensor seen as [outer, size, inner] around one dim: outer * inner lanes of size elements,
/// lane l being all elements whose indices other than dim are fixed. Lane l is also the flat
/// offset of its result when the dim is reduced to 1.
struct Lanes {
  int64_t outer = 1;
  int64_t size = 0;
  int64_t inner = 1;

  /// The lanes of shape along dim (0 <= dim < rank).
  static Lanes along(const Shape& shape, int64_t dim);
  /// One lane through every element (a whole-tensor reduction).
  static Lanes whole(const Shape& shape);

  int64_t count() const { return outer * inner; }
  /// Flat offset of element 0 of lane; element k lies k * inner further. Only called for
  /// existing lanes, so inner > 0.
  int64_t start(int64_t lane) const { return lane / inner * size * inner + lane % inner; }
  int64_t offset(int64_t lane, int64_t k) const { return start(lane) + k * inner; }
};

/// The values of one lane, read in place: element k of the lane is lane[k].
template <typename T>
class Lane {
 public:
  Lane(std::span<const T> values, const Lanes& lanes, int64_t lane)
      : values_(values), start_(lanes.start(lane)), stride_(lanes.inner), size_(lanes.size) {}

  int64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T operator[](int64_t k) const { return values_[start_ + k * stride_]; }

 private:
  std::span<const T> values_;
  int64_t start_;
  int64_t stride_;
  int64_t size_;
};

}  // namespace ember::ndarray
