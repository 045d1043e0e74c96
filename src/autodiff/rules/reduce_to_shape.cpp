// reduce_to_shape: the gradient of a broadcast. Broadcasting copies an input along the dims it
// stretches (new leading dims, and dims of size 1), so its gradient sums the output gradient
// over those dims.
#include <cstddef>
#include <cstdint>
#include <sstream>

#include "autodiff/rule.h"
#include "ember/error.h"

namespace ember::autodiff {
namespace {

[[noreturn]] void not_broadcastable(const Shape& from, const Shape& to) {
  std::ostringstream message;
  message << "[reduce_to_shape] gradient of shape " << from << " is not a broadcast of " << to;
  throw InvalidArgument(message.str());
}

/// Whether broadcasting shape to grad's shape stretched grad's dim `dim` (so it must be summed).
bool stretched(const Shape& grad, const Shape& shape, std::size_t dim) {
  const std::size_t leading = grad.rank() - shape.rank();
  if (dim < leading) return true;
  const int64_t size = shape[dim - leading];
  if (size == grad[dim]) return false;
  if (size != 1) not_broadcastable(grad, shape);
  return true;
}

}  // namespace

TensorHandle reduce_to_shape(const TensorHandle& grad, const Shape& shape) {
  const Shape& from = grad.shape();
  if (from == shape) return grad;
  if (from.rank() < shape.rank()) not_broadcastable(from, shape);
  TensorHandle reduced = grad;
  for (std::size_t dim = 0; dim < from.rank(); ++dim) {
    if (stretched(from, shape, dim)) reduced = ops::sum_dim(reduced, static_cast<int64_t>(dim));
  }
  return ops::reshape(reduced, shape.dims());
}

}  // namespace ember::autodiff
