// StridedLoop: the walk every flex kernel over views shares. N operands of one shape, each with
// its own strides (elements), visited in row-major order of the shape. Dims of size 1 are dropped
// and neighbours merged wherever every operand allows, so contiguous operands make one run and a
// broadcast row becomes a run with stride 0.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ember/shape.h"

namespace ember::flex {

template <std::size_t N>
class StridedLoop {
 public:
  using Offsets = std::array<int64_t, N>;

  StridedLoop(const Shape& shape, const std::array<std::span<const int64_t>, N>& strides) {
    if (shape.num_elements() == 0) {
      dims_ = {0};
      for (auto& s : strides_)
        s = {0};
      return;
    }
    for (std::size_t d = 0; d < shape.rank(); ++d) {
      if (shape[d] == 1) continue;
      if (!dims_.empty() && continues(strides, d, shape[d])) {
        // The previous (outer) dim continues this one: one dim of both sizes.
        dims_.back() *= shape[d];
        for (std::size_t k = 0; k < N; ++k)
          strides_[k].back() = strides[k][d];
        continue;
      }
      dims_.push_back(shape[d]);
      for (std::size_t k = 0; k < N; ++k)
        strides_[k].push_back(strides[k][d]);
    }
    if (dims_.empty()) {  // a single element
      dims_ = {1};
      for (auto& s : strides_)
        s = {0};
    }
  }

  int64_t size() const {
    int64_t n = 1;
    for (const int64_t d : dims_)
      n *= d;
    return n;
  }
  /// Length of the innermost run (elements visited with one call of the for_range callback
  /// when the range covers them).
  int64_t inner_size() const { return dims_.back(); }
  /// Stride of operand k along a run.
  int64_t inner_stride(std::size_t k) const { return strides_[k].back(); }

  /// Calls f(offsets, count) for each run of consecutive elements in [begin, end): element j of
  /// the run lies at offsets[k] + j * inner_stride(k) in operand k.
  template <typename F>
  void for_range(int64_t begin, int64_t end, F&& f) const {
    if (begin >= end) return;
    const std::size_t outer = dims_.size() - 1;
    const int64_t inner = dims_.back();
    std::vector<int64_t> index(outer, 0);
    Offsets row{};  // offsets of the current row's first element
    int64_t row_number = begin / inner;
    for (std::size_t d = outer; d-- > 0;) {
      index[d] = row_number % dims_[d];
      row_number /= dims_[d];
      for (std::size_t k = 0; k < N; ++k)
        row[k] += index[d] * strides_[k][d];
    }
    int64_t column = begin % inner;
    for (int64_t position = begin; position < end; column = 0) {
      const int64_t count = std::min(inner - column, end - position);
      Offsets at = row;
      for (std::size_t k = 0; k < N; ++k)
        at[k] += column * strides_[k].back();
      f(at, count);
      position += count;
      next_row(index, row);
    }
  }

 private:
  /// Whether the last kept dim steps, in every operand, exactly over dim d (of size size).
  bool continues(const std::array<std::span<const int64_t>, N>& strides, std::size_t d,
                 int64_t size) const {
    for (std::size_t k = 0; k < N; ++k) {
      if (strides_[k].back() != strides[k][d] * size) return false;
    }
    return true;
  }

  /// Odometer step over the outer dims, keeping row's offsets in step.
  void next_row(std::vector<int64_t>& index, Offsets& row) const {
    for (std::size_t d = index.size(); d-- > 0;) {
      for (std::size_t k = 0; k < N; ++k)
        row[k] += strides_[k][d];
      if (++index[d] < dims_[d]) return;
      for (std::size_t k = 0; k < N; ++k)
        row[k] -= strides_[k][d] * dims_[d];
      index[d] = 0;
    }
  }

  std::vector<int64_t> dims_;                    ///< Outermost first; never empty.
  std::array<std::vector<int64_t>, N> strides_;  ///< One per operand, per dim of dims_.
};

}  // namespace ember::flex
