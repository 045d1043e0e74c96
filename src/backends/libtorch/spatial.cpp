// Convolution, pooling and resampling, and their gradient ops: ATen's kernels, whose geometry
// rules ember's ops copy (PyTorch's). A one-dim average pool runs as a two-dim one over a height
// of 1 (ATen's avg_pool1d has no divisor_override nor backward of its own). ATen's max pools take
// floats alone: integers of up to 32 bits pool in f64 (exact), i64 runs ndarray's kernels on the
// host.
#include <vector>

#include "backends/libtorch/aten.h"

namespace ember::libtorch {
namespace {

using Dims = std::vector<int64_t>;

/// values with first put in front: a one-dim geometry as a two-dim one over a height of 1.
Dims lifted(const Dims& values, int64_t first) {
  Dims out{first};
  out.insert(out.end(), values.begin(), values.end());
  return out;
}

/// A pool's geometry, lifted to two dims when it has one.
struct PoolGeometry {
  Dims kernel, stride, padding, dilation;
  bool lift;  ///< a one-dim pool: x gets a height of 1 (unsqueeze(-2)), the result loses it

  explicit PoolGeometry(const ir::Pool& p, bool lift_one_dim)
      : kernel(p.kernel),
        stride(p.stride),
        padding(p.padding),
        dilation(p.dilation),
        lift(lift_one_dim && p.kernel.size() == 1) {
    if (!lift) return;
    kernel = lifted(kernel, 1);
    stride = lifted(stride, 1);
    padding = lifted(padding, 0);
    dilation = lifted(dilation, 1);
  }
  at::Tensor in(const at::Tensor& x) const { return lift ? x.unsqueeze(-2) : x; }
  at::Tensor out(const at::Tensor& y) const { return lift ? y.squeeze(-2) : y; }
};

at::Tensor average_pool(const ir::Pool& op, const at::Tensor& x) {
  const PoolGeometry g(op, true);
  const at::Tensor in = g.in(x);
  return g.out(g.kernel.size() == 2
                   ? at::avg_pool2d(in, g.kernel, g.stride, g.padding, op.ceil_mode,
                                    op.count_include_pad, torch_optional(op.divisor_override))
                   : at::avg_pool3d(in, g.kernel, g.stride, g.padding, op.ceil_mode,
                                    op.count_include_pad, torch_optional(op.divisor_override)));
}

Results max_pool(const ir::Pool& op, const at::Tensor& x) {
  const PoolGeometry g(op, false);
  const auto pool = g.kernel.size() == 1   ? at::max_pool1d_with_indices
                    : g.kernel.size() == 2 ? at::max_pool2d_with_indices
                                           : at::max_pool3d_with_indices;
  auto [values, indices] = pool(x, g.kernel, g.stride, g.padding, g.dilation, op.ceil_mode);
  return {values, indices};
}

/// x as ATen's max pools take it (floats alone): half precision in f32, integers in f64, which
/// holds every integer of up to 32 bits exactly, so that maxima and their positions are the
/// integers' own. (An i64 tensor, which f64 does not hold, pools on the host.)
at::Tensor maximizable(const at::Tensor& x) {
  return is_float(x) ? widened(x) : x.to(at::kDouble);
}

/// x's spatial rank: its dims after N and C.
std::size_t spatial_rank(const at::Tensor& x) {
  return static_cast<std::size_t>(x.dim()) - 2;
}

/// The adaptive average pool's gradient, a one-dim one lifted to two dims.
at::Tensor adaptive_average_grad(const at::Tensor& grad, const at::Tensor& input) {
  if (spatial_rank(input) == 3) return at::_adaptive_avg_pool3d_backward(grad, input);
  if (spatial_rank(input) == 2) return at::_adaptive_avg_pool2d_backward(grad, input);
  return at::_adaptive_avg_pool2d_backward(grad.unsqueeze(-2), input.unsqueeze(-2)).squeeze(-2);
}

/// The scale of spatial dim d, when op gives one.
c10::optional<double> scale(const ir::Interpolate& op, std::size_t d) {
  if (op.scales.empty()) return c10::nullopt;
  return op.scales[d];
}

at::Tensor nearest(const ir::Interpolate& op, const at::Tensor& x) {
  switch (op.size.size()) {
    case 1:
      return at::upsample_nearest1d(x, op.size, scale(op, 0));
    case 2:
      return at::upsample_nearest2d(x, op.size, scale(op, 0), scale(op, 1));
    default:
      return at::upsample_nearest3d(x, op.size, scale(op, 0), scale(op, 1), scale(op, 2));
  }
}

at::Tensor linear(const ir::Interpolate& op, const at::Tensor& x) {
  const bool corners = op.align_corners;
  switch (op.size.size()) {
    case 1:
      return at::upsample_linear1d(x, op.size, corners, scale(op, 0));
    case 2:
      return at::upsample_bilinear2d(x, op.size, corners, scale(op, 0), scale(op, 1));
    default:
      return at::upsample_trilinear3d(x, op.size, corners, scale(op, 0), scale(op, 1),
                                      scale(op, 2));
  }
}

at::Tensor nearest_grad(const ir::Interpolate& op, const at::Tensor& g, at::IntArrayRef input) {
  switch (op.size.size()) {
    case 1:
      return at::upsample_nearest1d_backward(g, op.size, input, scale(op, 0));
    case 2:
      return at::upsample_nearest2d_backward(g, op.size, input, scale(op, 0), scale(op, 1));
    default:
      return at::upsample_nearest3d_backward(g, op.size, input, scale(op, 0), scale(op, 1),
                                             scale(op, 2));
  }
}

at::Tensor linear_grad(const ir::Interpolate& op, const at::Tensor& g, at::IntArrayRef input) {
  const bool corners = op.align_corners;
  switch (op.size.size()) {
    case 1:
      return at::upsample_linear1d_backward(g, op.size, input, corners, scale(op, 0));
    case 2:
      return at::upsample_bilinear2d_backward(g, op.size, input, corners, scale(op, 0),
                                              scale(op, 1));
    default:
      return at::upsample_trilinear3d_backward(g, op.size, input, corners, scale(op, 0),
                                               scale(op, 1), scale(op, 2));
  }
}

}  // namespace

Results run(const ir::Conv& op, const Args& a) {
  const ir::ConvGeometry& g = op.geometry;
  const c10::optional<at::Tensor> bias =
      a.in.size() > 2 ? c10::optional<at::Tensor>(widened(a.in[2])) : c10::nullopt;
  return {at::convolution(widened(a.in[0]), widened(a.in[1]), bias, g.stride, g.padding, g.dilation,
                          g.transposed, g.output_padding, g.groups)};
}

Results run(const ir::ConvWeightGrad& op, const Args& a) {
  const ir::ConvGeometry& g = op.geometry;
  const at::Tensor x = widened(a.in[0]);
  // The weight's values take no part in its own gradient; ATen wants its shape as a tensor.
  const at::Tensor weight = at::zeros(sizes_of(op.weight_shape), x.options());
  auto grads = at::convolution_backward(widened(a.in[1]), x, weight, c10::nullopt, g.stride,
                                        g.padding, g.dilation, g.transposed, g.output_padding,
                                        g.groups, {false, true, false});
  return {std::get<1>(grads)};
}

Results run(const ir::Pool& op, const Args& a) {
  const at::Tensor& x = a.in[0];
  if (op.op == ir::PoolOp::Avg) return {average_pool(op, widened(x))};
  if (x.scalar_type() == at::kLong) return {};
  return max_pool(op, maximizable(x));
}

Results run(const ir::AdaptivePool& op, const Args& a) {
  const at::Tensor& x = a.in[0];
  const std::size_t rank = op.output_size.size();
  if (op.op == ir::PoolOp::Avg) {
    const at::Tensor wide = widened(x);
    return {rank == 1   ? at::adaptive_avg_pool1d(wide, op.output_size)
            : rank == 2 ? at::adaptive_avg_pool2d(wide, op.output_size)
                        : at::adaptive_avg_pool3d(wide, op.output_size)};
  }
  if (x.scalar_type() == at::kLong) return {};
  const auto pool = rank == 1   ? at::adaptive_max_pool1d
                    : rank == 2 ? at::adaptive_max_pool2d
                                : at::adaptive_max_pool3d;
  auto [values, indices] = pool(maximizable(x), op.output_size);
  return {values, indices};
}

Results run(const ir::AvgPoolGrad& op, const Args& a) {
  const PoolGeometry g(op.pool, true);
  const at::Tensor grad = g.in(widened(a.in[0]));
  const at::Tensor input = g.in(at::zeros(sizes_of(op.input_shape), grad.options()));
  const ir::Pool& p = op.pool;
  return {g.out(
      g.kernel.size() == 2
          ? at::avg_pool2d_backward(grad, input, g.kernel, g.stride, g.padding, p.ceil_mode,
                                    p.count_include_pad, torch_optional(p.divisor_override))
          : at::avg_pool3d_backward(grad, input, g.kernel, g.stride, g.padding, p.ceil_mode,
                                    p.count_include_pad, torch_optional(p.divisor_override)))};
}

Results run(const ir::AdaptiveAvgPoolGrad& op, const Args& a) {
  const at::Tensor grad = widened(a.in[0]);
  return {adaptive_average_grad(grad, at::zeros(sizes_of(op.input_shape), grad.options()))};
}

Results run(const ir::Interpolate& op, const Args& a) {
  const at::Tensor x = widened(a.in[0]);
  switch (op.mode) {
    case ir::InterpolateMode::Nearest:
      return {nearest(op, x)};
    case ir::InterpolateMode::Linear:
      return {linear(op, x)};
    case ir::InterpolateMode::Cubic:
      return {at::upsample_bicubic2d(x, op.size, op.align_corners, scale(op, 0), scale(op, 1))};
  }
  __builtin_unreachable();  // every enumerator returns above
}

Results run(const ir::InterpolateGrad& op, const Args& a) {
  const ir::Interpolate& i = op.interpolate;
  const at::Tensor g = widened(a.in[0]);
  const at::IntArrayRef input = sizes_of(op.input_shape);
  switch (i.mode) {
    case ir::InterpolateMode::Nearest:
      return {nearest_grad(i, g, input)};
    case ir::InterpolateMode::Linear:
      return {linear_grad(i, g, input)};
    case ir::InterpolateMode::Cubic:
      return {at::upsample_bicubic2d_backward(g, i.size, input, i.align_corners, scale(i, 0),
                                              scale(i, 1))};
  }
  __builtin_unreachable();  // every enumerator returns above
}

}  // namespace ember::libtorch
