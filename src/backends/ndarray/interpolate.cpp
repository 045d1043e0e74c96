// Resampling. Interpolate is separable: along each spatial dim, output index i is a weighted sum
// of at most four input indices (its taps: one for nearest, two for linear, four for cubic), so
// the kernel resamples one dim at a time through a double buffer and rounds once to x's dtype,
// the dims that shrink first (interpolate::pass_order). The gradient runs the transposed passes:
// each tap sends the output gradient back to its input index with the same weight. The taps come
// from interpolate_plan.h, which holds every coordinate rule (cuda's kernels read the same plans).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "backends/ndarray/interpolate_plan.h"
#include "backends/ndarray/kernels.h"

namespace ember::ndarray {
namespace {

using interpolate::DimPlan;
using interpolate::plans_for;
using interpolate::Taps;

/// One pass over values seen as [outer, size, inner] along a dim: dst[:, o, :] += w src[:, i, :]
/// for each tap (i, w) of output index o, or transposed, dst[:, i, :] += w src[:, o, :].
void resample_dim(std::span<const double> src, std::span<double> dst, const DimPlan& plan,
                  int64_t outer, int64_t inner, bool transposed) {
  const int64_t src_size = transposed ? plan.out : plan.in;
  const int64_t dst_size = transposed ? plan.in : plan.out;
  for (int64_t b = 0; b < outer; ++b) {
    for (int64_t o = 0; o < plan.out; ++o) {
      const Taps& taps = plan.taps[static_cast<std::size_t>(o)];
      for (std::size_t t = 0; t < taps.count; ++t) {
        const int64_t from = transposed ? o : taps.index[t];
        const int64_t to = transposed ? taps.index[t] : o;
        const double* s = src.data() + (b * src_size + from) * inner;
        double* d = dst.data() + (b * dst_size + to) * inner;
        for (int64_t k = 0; k < inner; ++k)
          d[k] += taps.weight[t] * s[k];
      }
    }
  }
}

/// values of shape dims resampled along every planned dim, in pass_order: from the input to the
/// output sizes, or transposed from the output sizes to the input's.
std::vector<double> apply_plans(std::vector<double> values, std::vector<int64_t> dims,
                                const std::vector<DimPlan>& plans, bool transposed) {
  for (const std::size_t dim : interpolate::pass_order(plans, transposed)) {
    const std::size_t axis = dim + 2;
    const DimPlan& plan = plans[dim];
    int64_t outer = 1;
    int64_t inner = 1;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      if (d < axis) outer *= dims[d];
      if (d > axis) inner *= dims[d];
    }
    dims[axis] = transposed ? plan.in : plan.out;
    std::vector<double> next(static_cast<std::size_t>(outer * dims[axis] * inner));
    resample_dim(values, next, plan, outer, inner, transposed);
    values = std::move(next);
  }
  return values;
}

/// src resampled to result's shape by the passes of op between input and output, for caller (the
/// op run, named in errors).
TensorData resample(const ir::Op& caller, const ir::Interpolate& op, const Shape& input,
                    const Shape& output, const TensorData& src, const ir::TensorMeta& result,
                    bool transposed) {
  if (!is_float(src.dtype())) throw_unsupported(caller, src.dtype());
  // An empty batch: nothing to compute, and its sizes need not describe memory that exists.
  if (result.shape.num_elements() == 0) return zeros_like(result);
  const std::vector<DimPlan> plans = plans_for(op, input, output, src.dtype());
  return TensorData(apply_plans(src.to_vector<double>(), src.shape().dims(), plans, transposed),
                    result.shape, result.dtype);
}

}  // namespace

TensorData run(const ir::Interpolate& op, Inputs in, Outputs out) {
  const TensorData& x = *in[0];
  return resample(op, op, x.shape(), out[0].shape, x, out[0], false);
}

TensorData run(const ir::InterpolateGrad& op, Inputs in, Outputs out) {
  const TensorData& grad_output = *in[0];
  return resample(op, op.interpolate, op.input_shape, grad_output.shape(), grad_output, out[0],
                  true);
}

}  // namespace ember::ndarray
