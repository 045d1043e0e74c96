// Reductions, matmul, sort, the cumulative ops and softmax: one ATen call each, with ember's
// rules where ATen's differ (an integer mean truncates the wrapped sum; a variance over
// n - correction <= 0 elements is NaN; an empty lane has no maximum). The fused attention and row
// ops run ndarray's kernels on the host: the public functions emit them only on a backend whose
// runs_fused_attention / runs_fused_rows says yes, which this one does not, so they arrive only
// when run directly.
#include <limits>
#include <string>

#include "backends/libtorch/aten.h"

namespace ember::libtorch {
namespace {

/// x, with a Bool tensor as u8 (0 / 1): ATen's max, min and sort take no Bool on every version.
at::Tensor ordered(const at::Tensor& x) {
  return x.scalar_type() == at::kBool ? x.to(at::kByte) : widened(x);
}

/// The number of elements each lane of op reduces.
int64_t lane_size(const ir::Reduce& op, const at::Tensor& x) {
  return op.dim ? x.size(*op.dim) : x.numel();
}

/// Throws ndarray's error when op takes an element of each lane (max, argmax, an integer mean)
/// and some lane is empty.
void check_lanes_not_empty(const ir::Reduce& op, const Args& a) {
  if (lane_size(op, a.in[0]) == 0 && a.out[0].shape.num_elements() > 0)
    throw InvalidArgument(a.prefix() + "cannot reduce an empty dim");
}

/// The reduced dims: op's one, or all.
std::vector<int64_t> dims_of(const ir::Reduce& op, const at::Tensor& x) {
  if (op.dim) return {*op.dim};
  std::vector<int64_t> all(static_cast<std::size_t>(x.dim()));
  for (int64_t d = 0; d < x.dim(); ++d)
    all[static_cast<std::size_t>(d)] = d;
  return all;
}

/// ArgMax and ArgMin: the first extreme, a NaN counting as the extreme (ATen's rule and ember's).
at::Tensor arg_extreme(const ir::Reduce& op, const at::Tensor& x) {
  const bool maximum = op.op == ir::ReduceOp::ArgMax;
  const at::Tensor wide = ordered(x);
  if (!op.dim) return maximum ? at::argmax(wide) : at::argmin(wide);
  return maximum ? at::argmax(wide, *op.dim, true) : at::argmin(wide, *op.dim, true);
}

/// Max and Min: the extreme of each lane, NaN propagating.
at::Tensor extreme(const ir::Reduce& op, const at::Tensor& x) {
  const at::Tensor wide = ordered(x);
  const std::vector<int64_t> dims = dims_of(op, x);
  return op.op == ir::ReduceOp::Max ? at::amax(wide, dims, true) : at::amin(wide, dims, true);
}

/// Integer mean: the sum wrapped in x's type, divided by n truncating (ndarray's).
at::Tensor integer_mean(const ir::Reduce& op, const at::Tensor& x) {
  const at::Tensor sum = at::sum(x, dims_of(op, x), true, x.scalar_type()).to(at::kLong);
  return at::div(sum, lane_size(op, x), "trunc");
}

/// Var, NaN where n - correction <= 0 (PyTorch's Python rule; ATen's C++ gives infinities).
at::Tensor variance(const ir::Reduce& op, const at::Tensor& x) {
  const at::Tensor wide = widened(x);
  const std::vector<int64_t> dims = dims_of(op, x);
  at::Tensor var =
      at::var(wide, at::OptionalIntArrayRef(dims), c10::optional<int64_t>(op.correction), true);
  if (lane_size(op, x) - op.correction <= 0) var.fill_(std::numeric_limits<double>::quiet_NaN());
  return var;
}

/// Any and All: nonzero is true (NaN included).
at::Tensor truth(const ir::Reduce& op, const at::Tensor& x) {
  const at::Tensor nonzero = at::ne(x, 0);
  const bool any = op.op == ir::ReduceOp::Any;
  if (!op.dim) return any ? nonzero.any() : nonzero.all();
  return any ? nonzero.any(*op.dim, true) : nonzero.all(*op.dim, true);
}

}  // namespace

Results run(const ir::Reduce& op, const Args& a) {
  const at::Tensor& x = a.in[0];
  const at::Tensor wide = widened(x);
  const std::vector<int64_t> dims = dims_of(op, x);
  switch (op.op) {
    case ir::ReduceOp::Sum:  // in x's own type: integers wrap (ATen would sum them in int64)
      return {at::sum(wide, dims, true, wide.scalar_type())};
    case ir::ReduceOp::Mean:
      if (!is_float(x)) {
        check_lanes_not_empty(op, a);
        return {integer_mean(op, x)};
      }
      return {at::mean(wide, dims, true)};
    case ir::ReduceOp::Prod:
      return {op.dim ? at::prod(wide, *op.dim, true, wide.scalar_type())
                     : at::prod(wide, wide.scalar_type())};
    case ir::ReduceOp::Max:
    case ir::ReduceOp::Min:
      check_lanes_not_empty(op, a);
      return {extreme(op, x)};
    case ir::ReduceOp::ArgMax:
    case ir::ReduceOp::ArgMin:
      check_lanes_not_empty(op, a);
      return {arg_extreme(op, x)};
    case ir::ReduceOp::Var:
      return {variance(op, x)};
    case ir::ReduceOp::Any:
    case ir::ReduceOp::All:
      return {truth(op, x)};
  }
  __builtin_unreachable();  // every enumerator returns above
}

Results run(const ir::Matmul& /*op*/, const Args& a) {
  const at::Tensor lhs = widened(a.in[0]);
  const at::Tensor rhs = widened(a.in[1]);
  // LibTorch's CUDA products are floating-point only (baddbmm_cuda has no integer kernel): an
  // integer product runs on its CPU, exact and wrapping as ndarray's.
  if (lhs.is_cuda() && !at::isFloatingType(lhs.scalar_type()))
    return {at::matmul(lhs.cpu(), rhs.cpu()).to(lhs.device())};
  return {at::matmul(lhs, rhs)};
}

Results run(const ir::Sort& op, const Args& a) {
  auto [values, indices] = at::sort(ordered(a.in[0]), true, op.dim, op.descending);
  return {values, indices};
}

Results run(const ir::Cumulative& op, const Args& a) {
  const at::Tensor x = widened(a.in[0]);
  switch (op.op) {
    case ir::CumulativeOp::Sum:
      return {at::cumsum(x, op.dim, x.scalar_type())};
    case ir::CumulativeOp::Prod:
      return {at::cumprod(x, op.dim, x.scalar_type())};
    case ir::CumulativeOp::Max:
      return {std::get<0>(at::cummax(x, op.dim))};
    case ir::CumulativeOp::Min:
      return {std::get<0>(at::cummin(x, op.dim))};
  }
  __builtin_unreachable();  // every enumerator returns above
}

Results run(const ir::Softmax& op, const Args& a) {
  const at::Tensor x = widened(a.in[0]);
  return {op.log ? at::log_softmax(x, op.dim) : at::softmax(x, op.dim)};
}

Results run(const ir::Attention& /*op*/, const Args& /*a*/) {
  return {};
}

Results run(const ir::AttentionGrad& /*op*/, const Args& /*a*/) {
  return {};
}

// The fused row ops arrive only when run directly (runs_fused_rows says no): ndarray's kernels.
Results run(const ir::LayerNorm& /*op*/, const Args& /*a*/) {
  return {};
}

Results run(const ir::LayerNormGrad& /*op*/, const Args& /*a*/) {
  return {};
}

Results run(const ir::CrossEntropy& /*op*/, const Args& /*a*/) {
  return {};
}

Results run(const ir::CrossEntropyGrad& /*op*/, const Args& /*a*/) {
  return {};
}

Results run(const ir::SoftmaxGrad& /*op*/, const Args& /*a*/) {
  return {};
}

}  // namespace ember::libtorch
