// Shape: the extent of each dimension of a tensor, outermost first.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <vector>

namespace ember {

class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  const std::vector<int64_t>& dims() const { return dims_; }
  std::size_t rank() const { return dims_.size(); }
  int64_t operator[](std::size_t i) const { return dims_[i]; }
  /// Product of the dims (1 for rank 0); InvalidArgument when it overflows int64.
  int64_t num_elements() const;
  /// Row-major (C-order) strides in elements. A zero dim counts as 1, as in PyTorch, so the
  /// strides of an empty tensor stay those of its non-empty dims.
  std::vector<int64_t> contiguous_strides() const;

  friend bool operator==(const Shape&, const Shape&) = default;

 private:
  std::vector<int64_t> dims_;
};

/// Prints "[2, 3]"; rank 0 prints "[]".
std::ostream& operator<<(std::ostream& os, const Shape& s);

}  // namespace ember
