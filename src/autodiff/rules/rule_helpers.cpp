#include "autodiff/rules/rule_helpers.h"

#include <cstddef>

namespace ember::autodiff::rules {
namespace {

TensorHandle filled_like_input(const BackwardArgs& args, std::size_t input, Scalar value) {
  const ir::TensorMeta& meta = args.input_metas[input];
  const TensorCreationOptions options =
      TensorCreationOptions(output_grad(args).device()).with_dtype(meta.dtype);
  return ops::full(meta.shape, value, options, kind_of(meta.dtype));
}

std::size_t at(int64_t dim) {
  return static_cast<std::size_t>(dim);
}

}  // namespace

TensorHandle zeros_like_input(const BackwardArgs& args, std::size_t input) {
  return filled_like_input(args, input, 0);
}

TensorHandle ones_like_input(const BackwardArgs& args, std::size_t input) {
  return filled_like_input(args, input, 1);
}

TensorHandle zero_where(const TensorHandle& grad, const TensorHandle& mask) {
  return ops::mask_fill(grad, mask, 0);
}

TensorHandle keep_where(const TensorHandle& grad, const TensorHandle& keep) {
  return zero_where(grad, ops::bool_not(keep));
}

TensorHandle as_weights(const TensorHandle& mask, DType dtype) {
  return ops::cast(mask, dtype);
}

TensorHandle reverse_cumsum(const TensorHandle& x, int64_t dim) {
  return ops::flip(ops::cumsum(ops::flip(x, {dim}), dim), {dim});
}

TensorHandle exclusive_cumprod(const TensorHandle& x, int64_t dim) {
  const int64_t n = x.shape()[at(dim)];
  if (n <= 1) return ops::full_like(x, 1);
  // [1, x0, x0*x1, ...]: the inclusive products shifted one place along dim.
  const TensorHandle first = ops::full_like(ops::narrow(x, dim, 0, 1), 1);
  const TensorHandle inclusive = ops::cumprod(ops::narrow(x, dim, 0, n - 1), dim);
  return ops::cat({first, inclusive}, dim);
}

TensorHandle positions_along(const TensorHandle& x, int64_t dim) {
  const int64_t n = x.shape()[at(dim)];
  const TensorHandle positions =
      ops::arange(0, n, 1, TensorCreationOptions(x.device()).with_dtype(DType::I64));
  ops::Dims aligned(x.rank(), 1);
  aligned[at(dim)] = n;
  return ops::expand(ops::reshape(positions, aligned), x.shape().dims());
}

std::vector<Slice> python_slices(const std::vector<ir::SliceRange>& ranges) {
  std::vector<Slice> slices;
  slices.reserve(ranges.size());
  for (const ir::SliceRange& r : ranges)
    slices.emplace_back(r.start, r.end, r.step);
  return slices;
}

}  // namespace ember::autodiff::rules
