// Layout and creation ops. Reshape, permute, expand and slice return ATen views (no copy): a
// buffer is never written once made. Random tensors run ndarray's kernel on the host: ember's
// Philox stream (ir/random.h) gives every device the same tensor for a seed, which ATen's
// generators cannot.
#include "backends/libtorch/aten.h"

namespace ember::libtorch {
namespace {

/// The view of x that ranges select (one range per dim).
at::Tensor sliced(at::Tensor x, const std::vector<ir::SliceRange>& ranges) {
  for (std::size_t d = 0; d < ranges.size(); ++d) {
    const ir::SliceRange& r = ranges[d];
    x = x.slice(static_cast<int64_t>(d), r.start, r.end, r.step);
  }
  return x;
}

}  // namespace

Results run(const ir::Reshape& op, const Args& a) {
  return {a.in[0].reshape(sizes_of(op.shape))};
}

Results run(const ir::Permute& op, const Args& a) {
  return {a.in[0].permute(op.axes)};
}

Results run(const ir::Flip& op, const Args& a) {
  return {at::flip(a.in[0], op.axes)};
}

Results run(const ir::Expand& op, const Args& a) {
  return {a.in[0].expand(sizes_of(op.shape))};
}

Results run(const ir::Slice& op, const Args& a) {
  return {sliced(a.in[0], op.ranges)};
}

Results run(const ir::SliceAssign& op, const Args& a) {
  at::Tensor out = a.in[0].clone(at::MemoryFormat::Contiguous);
  sliced(out, op.ranges).copy_(a.in[1]);
  return {out};
}

Results run(const ir::Cat& op, const Args& a) {
  return {at::cat(at::TensorList(a.in.data(), a.in.size()), op.dim)};
}

Results run(const ir::Full& op, const Args& a) {
  return {scalar_tensor(op.value, op.dtype, a.options).expand(sizes_of(op.shape))};
}

Results run(const ir::Arange& op, const Args& a) {
  return {at::arange(op.start, op.end, op.step, a.options.dtype(scalar_type(op.dtype, "arange")))};
}

Results run(const ir::Random& /*op*/, const Args& /*a*/) {
  return {};
}

}  // namespace ember::libtorch
