// Indexed reads and writes: ATen's index_select, index_add/index_copy, gather and scatter, after
// ember's check of the indices (ATen's own would fail as a foreign error, and not name the op).
#include <string>

#include "backends/libtorch/aten.h"

namespace ember::libtorch {
namespace {

/// indices as int64 (ATen's index type), after checking each is in [0, size): InvalidArgument
/// naming the first that is not, as ndarray's does.
at::Tensor checked_indices(const Args& a, const at::Tensor& indices, int64_t dim, int64_t size) {
  const at::Tensor index = indices.to(at::kLong);
  const at::Tensor bad = at::logical_or(at::lt(index, 0), at::ge(index, size));
  if (index.numel() == 0 || !bad.any().item<bool>()) return index;
  const int64_t first = bad.reshape({-1}).nonzero()[0][0].item<int64_t>();
  throw InvalidArgument(
      a.prefix() + "index " + std::to_string(index.reshape({-1})[first].item<int64_t>()) +
      " out of range for dim " + std::to_string(dim) + " of size " + std::to_string(size));
}

/// x, widened for an addition (half precision adds in f32 and rounds once, as ndarray).
at::Tensor for_update(const at::Tensor& x, ir::IndexUpdate update) {
  return update == ir::IndexUpdate::Add ? widened(x) : x;
}

}  // namespace

Results run(const ir::Select& op, const Args& a) {
  const at::Tensor& x = a.in[0];
  return {at::index_select(x, op.dim, checked_indices(a, a.in[1], op.dim, x.size(op.dim)))};
}

Results run(const ir::SelectAssign& op, const Args& a) {
  const at::Tensor x = for_update(a.in[0], op.update);
  const at::Tensor values = for_update(a.in[2], op.update);
  const at::Tensor index = checked_indices(a, a.in[1], op.dim, x.size(op.dim));
  return {op.update == ir::IndexUpdate::Add ? x.index_add(op.dim, index, values)
                                            : x.index_copy(op.dim, index, values)};
}

Results run(const ir::Gather& op, const Args& a) {
  const at::Tensor& x = a.in[0];
  return {at::gather(x, op.dim, checked_indices(a, a.in[1], op.dim, x.size(op.dim)))};
}

Results run(const ir::Scatter& op, const Args& a) {
  const at::Tensor x = for_update(a.in[0], op.update);
  const at::Tensor values = for_update(a.in[2], op.update);
  const at::Tensor index = checked_indices(a, a.in[1], op.dim, x.size(op.dim));
  return {op.update == ir::IndexUpdate::Add ? x.scatter_add(op.dim, index, values)
                                            : x.scatter(op.dim, index, values)};
}

}  // namespace ember::libtorch
