// ops::conv and ops::conv_transpose: one ir::Conv each. Here: the operands' kinds, the per-dim
// options expanded to one value per spatial dim, and dtype promotion; every shape and range rule
// (channels, groups, stride >= 1, output size >= 1, ...) is ir::infer's.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "ember/convolution.h"
#include "tensor/check.h"
#include "tensor/dispatch.h"
#include "tensor/promote.h"

namespace ember::ops {
namespace {

/// The op's name as ir::name spells it ("conv2d", "conv_transpose1d"), so that messages from
/// here and from ir::infer agree; without the "Nd" when x's rank fits no convolution.
std::string conv_name(const TensorHandle& x, bool transposed) {
  std::string name = transposed ? "conv_transpose" : "conv";
  const std::size_t rank = x.defined() ? x.rank() : 0;
  if (rank >= 3 && rank <= 5) name += std::to_string(rank - 2) + "d";
  return name;
}

/// x, weight and bias (when given), each required to be a Float tensor.
Handles float_operands(const TensorHandle& x, const TensorHandle& weight,
                       const OptionalHandle& bias, std::string_view name) {
  Handles operands{x, weight};
  if (bias) operands.push_back(*bias);
  for (const TensorHandle& operand : operands)
    tensor::require(operand, tensor::KindRule::Float, name);
  return operands;
}

/// The convolution of geometry on operands promoted to one dtype.
TensorHandle run_conv(ir::ConvGeometry geometry, const Handles& operands, std::string_view name) {
  return tensor::run(ir::Conv{std::move(geometry)}, tensor::promote(operands, name)).front();
}

}  // namespace

TensorHandle conv(const TensorHandle& x, const TensorHandle& weight, const OptionalHandle& bias,
                  const module::ConvOptions& options) {
  const std::string name = conv_name(x, false);
  const Handles operands = float_operands(x, weight, bias, name);
  const std::size_t dims = tensor::spatial_dims_of(x, name);
  ir::ConvGeometry geometry{
      .stride = tensor::per_spatial_dim(options.stride, dims, "stride", name),
      .padding = tensor::per_spatial_dim(options.padding, dims, "padding", name),
      .dilation = tensor::per_spatial_dim(options.dilation, dims, "dilation", name),
      .output_padding = Dims(dims, 0),
      .groups = options.groups,
      .transposed = false,
  };
  return run_conv(std::move(geometry), operands, name);
}

TensorHandle conv_transpose(const TensorHandle& x, const TensorHandle& weight,
                            const OptionalHandle& bias,
                            const module::ConvTransposeOptions& options) {
  const std::string name = conv_name(x, true);
  const Handles operands = float_operands(x, weight, bias, name);
  const std::size_t dims = tensor::spatial_dims_of(x, name);
  ir::ConvGeometry geometry{
      .stride = tensor::per_spatial_dim(options.stride, dims, "stride", name),
      .padding = tensor::per_spatial_dim(options.padding, dims, "padding", name),
      .dilation = tensor::per_spatial_dim(options.dilation, dims, "dilation", name),
      .output_padding =
          tensor::per_spatial_dim(options.output_padding, dims, "output_padding", name),
      .groups = options.groups,
      .transposed = true,
  };
  return run_conv(std::move(geometry), operands, name);
}

}  // namespace ember::ops
