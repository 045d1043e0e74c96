// Rules of the convolutions: Conv (both directions) and ConvWeightGrad, which shares Conv's
// checks. An op may come from untrusted bytes, so every geometry value is range-checked and the
// output sizes are computed with overflow checks: a kernel only ever sees sizes that fit in int64.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "ir/op_rules.h"

namespace ember::ir::rules {
namespace {

constexpr std::size_t kMinRank = 3;  // [N, C, L]
constexpr std::size_t kMaxRank = 5;  // [N, C, D, H, W]

/// int64 arithmetic that remembers whether a result left int64 instead of wrapping.
class CheckedMath {
 public:
  int64_t add(int64_t a, int64_t b) {
    int64_t r = 0;
    overflow_ |= __builtin_add_overflow(a, b, &r);
    return r;
  }
  int64_t sub(int64_t a, int64_t b) {
    int64_t r = 0;
    overflow_ |= __builtin_sub_overflow(a, b, &r);
    return r;
  }
  int64_t mul(int64_t a, int64_t b) {
    int64_t r = 0;
    overflow_ |= __builtin_mul_overflow(a, b, &r);
    return r;
  }
  bool overflow() const { return overflow_; }

 private:
  bool overflow_ = false;
};

/// Requires one value per spatial dim, each >= minimum: "stride [0, 1] must be >= 1".
void check_per_dim(const Op& op, std::string_view what, const std::vector<int64_t>& values,
                   std::size_t spatial_dims, int64_t minimum) {
  require(values.size() == spatial_dims, op, what, ' ', List{values}, " has ", values.size(),
          " values; expected ", spatial_dims, " (one per spatial dim)");
  for (int64_t value : values)
    require(value >= minimum, op, what, ' ', List{values}, " must be >= ", minimum);
}

/// PyTorch's rule: each output_padding < stride or < dilation (a larger one would add outputs no
/// input reaches); zeros unless transposed.
void check_output_padding(const Op& op, const ConvGeometry& g) {
  const std::vector<int64_t>& output_padding = g.output_padding;
  check_per_dim(op, "output_padding", output_padding, g.stride.size(), 0);
  for (std::size_t i = 0; i < output_padding.size(); ++i) {
    require(g.transposed || output_padding[i] == 0, op, "output_padding ", List{output_padding},
            " must be zeros: the convolution is not transposed");
    require(output_padding[i] < g.stride[i] || output_padding[i] < g.dilation[i], op,
            "output_padding ", List{output_padding}, " must be smaller than stride ",
            List{g.stride}, " or dilation ", List{g.dilation}, " in each dim");
  }
}

void check_geometry(const Op& op, const ConvGeometry& g, std::size_t spatial_dims) {
  check_per_dim(op, "stride", g.stride, spatial_dims, 1);
  check_per_dim(op, "padding", g.padding, spatial_dims, 0);
  check_per_dim(op, "dilation", g.dilation, spatial_dims, 1);
  check_output_padding(op, g);
  require(g.groups >= 1, op, "groups ", g.groups, " must be >= 1");
}

/// Checks weight against x's channels and the groups; returns the output channels.
int64_t check_weight(const Op& op, const ConvGeometry& g, const Shape& x, const Shape& weight) {
  require(weight.rank() == x.rank(), op, "x ", x, " and weight ", weight, ": ranks ", x.rank(),
          " and ", weight.rank(), " differ");
  for (std::size_t i = 2; i < weight.rank(); ++i)
    require(weight[i] >= 1, op, "weight ", weight, " has an empty kernel");
  const int64_t in_channels = x[1];
  require(in_channels % g.groups == 0, op, "groups ", g.groups, " does not divide the ",
          in_channels, " channels of x ", x);
  if (g.transposed) {
    // weight [C_in, C_out / groups, *kernel]
    require(weight[0] == in_channels, op, "weight ", weight, " must have dim 0 = ", in_channels,
            ", the channels of x ", x);
    int64_t out_channels = 0;
    require(!__builtin_mul_overflow(weight[1], g.groups, &out_channels), op,
            "output channels overflow int64");
    return out_channels;
  }
  // weight [C_out, C_in / groups, *kernel]
  require(weight[1] == in_channels / g.groups, op, "weight ", weight,
          " must have dim 1 = ", in_channels / g.groups, ", the channels of x ", x,
          " per group (groups ", g.groups, ")");
  require(weight[0] % g.groups == 0, op, "groups ", g.groups, " does not divide the ", weight[0],
          " output channels of weight ", weight);
  return weight[0];
}

/// floor((in + 2p - d (k - 1) - 1) / s) + 1, required >= 1.
int64_t conv_size(const Op& op, const ConvGeometry& g, std::size_t dim, int64_t in,
                  int64_t kernel) {
  CheckedMath m;
  const int64_t padded = m.add(in, m.mul(2, g.padding[dim]));
  const int64_t dilated_kernel = m.add(m.mul(g.dilation[dim], kernel - 1), 1);
  require(!m.overflow(), op, "output size of spatial dim ", dim, " overflows int64");
  require(padded >= dilated_kernel, op, "output size < 1 in spatial dim ", dim, ": padded input ",
          padded, " (input ", in, ", padding ", g.padding[dim], ") < dilated kernel ",
          dilated_kernel, " (kernel ", kernel, ", dilation ", g.dilation[dim], ")");
  return (padded - dilated_kernel) / g.stride[dim] + 1;
}

/// (in - 1) s - 2p + d (k - 1) + output_padding + 1, required >= 1.
int64_t conv_transpose_size(const Op& op, const ConvGeometry& g, std::size_t dim, int64_t in,
                            int64_t kernel) {
  CheckedMath m;
  const int64_t stretched = m.sub(m.mul(in - 1, g.stride[dim]), m.mul(2, g.padding[dim]));
  const int64_t tail = m.add(m.mul(g.dilation[dim], kernel - 1), g.output_padding[dim]);
  const int64_t out = m.add(m.add(stretched, tail), 1);
  require(!m.overflow(), op, "output size of spatial dim ", dim, " overflows int64");
  require(out >= 1, op, "output size ", out, " < 1 in spatial dim ", dim, ": input ", in,
          ", kernel ", kernel, ", stride ", g.stride[dim], ", padding ", g.padding[dim],
          ", dilation ", g.dilation[dim], ", output_padding ", g.output_padding[dim]);
  return out;
}

/// The output shape of a Conv of geometry g on x and weight, after every check but the dtypes.
Shape conv_output_shape(const Op& op, const ConvGeometry& g, const Shape& x, const Shape& weight) {
  require(x.rank() >= kMinRank && x.rank() <= kMaxRank, op,
          "expects x of shape [N, C, *spatial] with 1 to 3 spatial dims, got ", x);
  check_geometry(op, g, x.rank() - 2);
  std::vector<int64_t> dims{x[0], check_weight(op, g, x, weight)};
  for (std::size_t dim = 0; dim + 2 < x.rank(); ++dim) {
    const int64_t in = x[dim + 2];
    const int64_t kernel = weight[dim + 2];
    dims.push_back(g.transposed ? conv_transpose_size(op, g, dim, in, kernel)
                                : conv_size(op, g, dim, in, kernel));
  }
  Shape out(std::move(dims));
  check_new_shape(op, out);
  return out;
}

void check_bias(const Op& op, const TensorMeta& bias, DType dtype, int64_t out_channels) {
  check_same_dtype(op, "x", dtype, "bias", bias.dtype);
  require(bias.shape == Shape{out_channels}, op, "bias ", bias.shape, " must be [", out_channels,
          "], one value per output channel");
}

}  // namespace

Outputs infer_rule(const Conv& conv, const Op& op, Inputs inputs) {
  require(inputs.size() == 2 || inputs.size() == 3, op,
          "expects 2 or 3 inputs (x, weight, bias), got ", inputs.size());
  const TensorMeta& x = inputs[0];
  check_dtype(op, x.dtype, kFloatDTypes);
  check_same_dtype(op, "x", x.dtype, "weight", inputs[1].dtype);
  Shape out = conv_output_shape(op, conv.geometry, x.shape, inputs[1].shape);
  if (inputs.size() == 3) check_bias(op, inputs[2], x.dtype, out[1]);
  return {{std::move(out), x.dtype}};
}

Outputs infer_rule(const ConvWeightGrad& grad, const Op& op, Inputs inputs) {
  check_arity(op, inputs, 2);
  const TensorMeta& x = inputs[0];
  const TensorMeta& grad_output = inputs[1];
  check_dtype(op, x.dtype, kFloatDTypes);
  check_same_dtype(op, "x", x.dtype, "grad_output", grad_output.dtype);
  check_new_shape(op, grad.weight_shape);
  const Shape out = conv_output_shape(op, grad.geometry, x.shape, grad.weight_shape);
  check_same_shape(op, "grad_output", grad_output.shape, "convolution output", out);
  return {{grad.weight_shape, x.dtype}};
}

}  // namespace ember::ir::rules
