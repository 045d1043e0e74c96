#include "ember/nn/flatten.h"

#include <vector>

#include "config_checks.h"

namespace ember::nn {
namespace {

/// dim in [-rank, rank) as a position in [0, rank).
int64_t position(int64_t dim, std::size_t rank, const char* what, const Shape& shape) {
  const auto r = static_cast<int64_t>(rank);
  if (dim < -r || dim >= r) detail::fail("Flatten", what, ' ', dim, " is outside x ", shape);
  return dim < 0 ? dim + r : dim;
}

}  // namespace

TensorHandle Flatten::merge(const TensorHandle& x, std::size_t result_rank) const {
  const Shape& shape = x.shape();
  const int64_t start = position(start_dim, shape.rank(), "start_dim", shape);
  const int64_t end = position(end_dim, shape.rank(), "end_dim", shape);
  if (start > end) {
    detail::fail("Flatten", "start_dim ", start_dim, " comes after end_dim ", end_dim, " in x ",
                 shape);
  }
  const auto merged_rank = static_cast<int64_t>(shape.rank()) - (end - start);
  if (merged_rank != static_cast<int64_t>(result_rank)) {
    detail::fail("Flatten", "dims ", start, " to ", end, " of x ", shape, " merge into rank ",
                 merged_rank, ", not ", result_rank);
  }
  std::vector<int64_t> dims(shape.dims().begin(), shape.dims().begin() + start);
  // The product spelled out rather than -1, which a zero-size dim would leave ambiguous.
  int64_t merged = 1;
  for (int64_t d = start; d <= end; ++d)
    merged *= shape[static_cast<std::size_t>(d)];
  dims.push_back(merged);
  dims.insert(dims.end(), shape.dims().begin() + end + 1, shape.dims().end());
  return ops::reshape(x, dims);
}

Flatten FlattenConfig::init(const Device& /*device*/) const {
  return {start_dim, end_dim};
}

}  // namespace ember::nn
