// Rules of pooling: Pool (max or average over sliding windows), AdaptivePool (windows that tile
// the input) and the gradient ops of average pooling, which check the pooling they undo. An op
// may come from untrusted bytes, so every geometry value is range-checked and output sizes are
// computed in 128 bits: a kernel only ever sees sizes that fit in int64 and windows that hold at
// least one input element.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "ir/op_rules.h"
#include "ir/spatial_checks.h"

namespace ember::ir::rules {
namespace {

/// Wide enough for d (k - 1) and in + 2p of any int64 operands.
using Wide = __int128;

void check_pool_op(const Op& op, PoolOp pool_op) {
  require(pool_op <= PoolOp::Avg, op, "unknown pool op ", static_cast<int>(pool_op));
}

/// Max pooling compares (any numeric dtype); average pooling divides (float only).
const DTypeClass& accepted_dtypes(PoolOp pool_op) {
  return pool_op == PoolOp::Max ? kNumericDTypes : kFloatDTypes;
}

/// a / b rounded towards negative infinity (b > 0), as PyTorch's div_rtn.
Wide floor_div(Wide a, Wide b) {
  const Wide quotient = a / b;
  return quotient * b > a ? quotient - 1 : quotient;
}

/// The options that only average pooling has: no dilation, a divisor_override >= 1.
void check_avg_options(const Pool& pool, const Op& op) {
  for (int64_t dilation : pool.dilation)
    require(dilation == 1, op, "dilation ", List{pool.dilation}, " must be 1 for average pooling");
  if (pool.divisor_override) {
    require(*pool.divisor_override >= 1, op, "divisor_override ", *pool.divisor_override,
            " must be >= 1");
  }
}

void check_geometry(const Pool& pool, const Op& op, std::size_t spatial_dims) {
  check_per_dim(op, "kernel", pool.kernel, spatial_dims, 1);
  check_per_dim(op, "stride", pool.stride, spatial_dims, 1);
  check_per_dim(op, "padding", pool.padding, spatial_dims, 0);
  check_per_dim(op, "dilation", pool.dilation, spatial_dims, 1);
  for (std::size_t d = 0; d < spatial_dims; ++d) {
    require(pool.padding[d] <= pool.kernel[d] / 2, op, "padding ", List{pool.padding},
            " must be at most half of kernel ", List{pool.kernel});
  }
  if (pool.op == PoolOp::Avg) {
    check_avg_options(pool, op);
  } else {
    require(!pool.divisor_override, op, "divisor_override is for average pooling only");
  }
}

/// PyTorch's output size: floor((in + 2p - d (k - 1) - 1) / s) + 1, or with ceil_mode the
/// ceiling, less one when the last window would start past the input and its left padding.
/// Required >= 1.
int64_t pooled_size(const Pool& pool, const Op& op, std::size_t dim, int64_t in) {
  const Wide kernel = pool.kernel[dim];
  const Wide stride = pool.stride[dim];
  const Wide padding = pool.padding[dim];
  const Wide dilation = pool.dilation[dim];
  const Wide span = in + 2 * padding - dilation * (kernel - 1) - 1;
  Wide out = floor_div(span + (pool.ceil_mode ? stride - 1 : 0), stride) + 1;
  if (pool.ceil_mode && (out - 1) * stride >= in + padding) --out;
  require(out >= 1, op, "output size < 1 in spatial dim ", dim, ": input ", in, ", kernel ",
          pool.kernel[dim], ", stride ", pool.stride[dim], ", padding ", pool.padding[dim],
          ", dilation ", pool.dilation[dim]);
  require(out <= std::numeric_limits<int64_t>::max(), op, "output size of spatial dim ", dim,
          " overflows int64");
  return static_cast<int64_t>(out);
}

/// Requires the first window to reach the input. Note: it is the only one that can miss it.
/// Every window starts before the input's end and ends at or after its start (p <= k / 2 and the
/// size rule), so a window misses the input only by stepping over it, when dilation > in; then
/// at most one window fits (the size rule with p <= k / 2 gives out <= 1).
void check_first_window(const Pool& pool, const Op& op, std::size_t dim, int64_t in) {
  const Wide dilation = pool.dilation[dim];
  const Wide padding = pool.padding[dim];
  const Wide first_inside = (padding + dilation - 1) / dilation;  // first tap at or past 0
  require(first_inside < pool.kernel[dim] && first_inside * dilation - padding < in, op,
          "the window of spatial dim ", dim, " holds only padding: input ", in, ", kernel ",
          pool.kernel[dim], ", padding ", pool.padding[dim], ", dilation ", pool.dilation[dim]);
}

/// values (and, for max pooling, indices) of shape out.
Outputs pool_results(PoolOp pool_op, DType index_dtype, const TensorMeta& x, Shape out) {
  if (pool_op == PoolOp::Avg) return {{std::move(out), x.dtype}};
  return {{out, x.dtype}, {out, index_dtype}};
}

/// Pool's outputs for x, after every check; role names x in messages.
Outputs pool_outputs(const Pool& pool, const Op& op, const TensorMeta& x, std::string_view role) {
  check_pool_op(op, pool.op);
  check_dtype(op, x.dtype, accepted_dtypes(pool.op));
  const std::size_t spatial_dims = check_spatial_shape(op, role, x.shape);
  check_geometry(pool, op, spatial_dims);
  std::vector<int64_t> spatial;
  for (std::size_t dim = 0; dim < spatial_dims; ++dim) {
    const int64_t in = x.shape[dim + 2];
    spatial.push_back(pooled_size(pool, op, dim, in));
    check_first_window(pool, op, dim, in);
  }
  if (pool.op == PoolOp::Max) check_index_dtype(op, pool.index_dtype, spatial_size(x.shape));
  return pool_results(pool.op, pool.index_dtype, x, with_spatial(op, x.shape, spatial));
}

/// AdaptivePool's outputs for x, after every check; role names x in messages.
Outputs adaptive_outputs(const AdaptivePool& pool, const Op& op, const TensorMeta& x,
                         std::string_view role) {
  check_pool_op(op, pool.op);
  check_dtype(op, x.dtype, accepted_dtypes(pool.op));
  const std::size_t spatial_dims = check_spatial_shape(op, role, x.shape);
  check_per_dim(op, "output_size", pool.output_size, spatial_dims, 1);
  if (pool.op == PoolOp::Max) check_index_dtype(op, pool.index_dtype, spatial_size(x.shape));
  return pool_results(pool.op, pool.index_dtype, x, with_spatial(op, x.shape, pool.output_size));
}

void check_is_avg(const Op& op, PoolOp pool_op) {
  require(pool_op == PoolOp::Avg, op, "undoes average pooling only");
}

}  // namespace

Outputs infer_rule(const Pool& pool, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 1);
  return pool_outputs(pool, op, inputs[0], "x");
}

Outputs infer_rule(const AdaptivePool& pool, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 1);
  return adaptive_outputs(pool, op, inputs[0], "x");
}

Outputs infer_rule(const AvgPoolGrad& grad, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 1);
  check_is_avg(op, grad.pool.op);
  check_new_shape(op, grad.input_shape);
  const TensorMeta x{grad.input_shape, inputs[0].dtype};
  return input_gradient(op, inputs[0], x.shape,
                        pool_outputs(grad.pool, op, x, "input_shape")[0].shape);
}

Outputs infer_rule(const AdaptiveAvgPoolGrad& grad, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 1);
  check_is_avg(op, grad.pool.op);
  check_new_shape(op, grad.input_shape);
  const TensorMeta x{grad.input_shape, inputs[0].dtype};
  return input_gradient(op, inputs[0], x.shape,
                        adaptive_outputs(grad.pool, op, x, "input_shape")[0].shape);
}

}  // namespace ember::ir::rules
