// Convolutions (Float only) through ops::conv / ops::conv_transpose, their options written as
// OpArgs: one value per spatial dim, or one for all; and the weight gradient op of both
// directions (ir::ConvWeightGrad, a gradient op with no ops:: function: run as autodiff's rule
// runs it). Not yet mirrored in tests/golden/generate.py (has_golden false);
// tests/ndarray/conv_test.cpp checks the values against a naive reference. The geometries cover
// what a GPU library may take another path for: groups (depthwise too), strides, padding,
// dilation, 1 to 3 spatial dims, and channels enough for its tiled kernels.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/convolution.h"
#include "ir/ops.h"
#include "support/op_cases.h"
#include "tensor/dispatch.h"

namespace ember::test {
namespace {

/// Values around 1 in magnitude, so sums of a few dozen products stay within f16's precision.
const ValueSpec kUnit{-1.0, 1.0};

/// The first output of conv (not transposed) or conv_transpose on (x, weight[, bias]).
OpRun run_conv(bool transposed) {
  return [transposed](const ops::Handles& in, const OpArgs& args, const OpTarget&) -> ops::Handles {
    const ops::OptionalHandle bias = in.size() > 2 ? ops::OptionalHandle(in[2]) : std::nullopt;
    if (transposed) {
      return {ops::conv_transpose(in.at(0), in.at(1), bias,
                                  {.stride = args.ints("stride"),
                                   .padding = args.ints("padding"),
                                   .output_padding = args.ints("output_padding"),
                                   .dilation = args.ints("dilation"),
                                   .groups = args.integer("groups")})};
    }
    return {ops::conv(in.at(0), in.at(1), bias,
                      {.stride = args.ints("stride"),
                       .padding = args.ints("padding"),
                       .dilation = args.ints("dilation"),
                       .groups = args.integer("groups")})};
  };
}

/// The options of a case; output_padding is read by conv_transpose only.
struct Options {
  std::vector<int64_t> stride{1};
  std::vector<int64_t> padding{0};
  std::vector<int64_t> dilation{1};
  std::vector<int64_t> output_padding{0};
  int64_t groups = 1;
};

OpArgs args_of(const Options& o) {
  return {{"stride", o.stride},
          {"padding", o.padding},
          {"dilation", o.dilation},
          {"output_padding", o.output_padding},
          {"groups", o.groups}};
}

/// A case on x and weight (and bias of bias_size values when given).
OpCase conv_case(std::string name, bool transposed, Shape x, Shape weight, Options options,
                 std::optional<int64_t> bias_size = std::nullopt) {
  std::vector<InputSpec> inputs{drawn(std::move(x), kUnit), drawn(std::move(weight), kUnit)};
  if (bias_size) inputs.push_back(drawn({*bias_size}, kUnit));
  OpCase c = make_case(std::move(name), DTypes::Float, std::move(inputs), run_conv(transposed),
                       fixed_args(args_of(options)));
  c.has_golden = false;
  return c;
}

/// The weight gradient of the convolution g describes (transposed or not) of x by a weight of
/// shape weight, against an output gradient drawn in the convolution's output shape.
OpCase weight_grad_case(std::string name, const ir::ConvGeometry& g, const Shape& x,
                        const Shape& weight) {
  const ir::TensorMeta metas[] = {{x, DType::F32}, {weight, DType::F32}};
  const Shape out = ir::infer(ir::Op(ir::Conv{g}), metas)[0].shape;
  const ir::ConvWeightGrad op{g, weight};
  OpCase c =
      make_case(std::move(name), DTypes::Float, {drawn(x, kUnit), drawn(out, kUnit)},
                [op](const ops::Handles& in, const OpArgs&, const OpTarget&) -> ops::Handles {
                  return {tensor::run_one(op, {in.at(0), in.at(1)})};
                });
  c.has_golden = false;
  return c;
}

}  // namespace

std::vector<OpCase> conv_cases() {
  return {
      // floor((8 - 3) / 2) + 1 = 3 outputs: the floor drops the last input.
      conv_case("conv1d", false, {2, 3, 8}, {4, 3, 3}, {.stride = {2}}),
      conv_case("conv1d/bias", false, {1, 2, 5}, {3, 2, 2}, {.padding = {1}}, 3),
      conv_case("conv2d/stride_padding_dilation", false, {2, 2, 6, 5}, {3, 2, 3, 2},
                {.stride = {2, 1}, .padding = {1, 0}, .dilation = {1, 2}}),
      conv_case("conv2d/groups", false, {1, 4, 4, 4}, {6, 2, 2, 2}, {.padding = {1}, .groups = 2},
                6),
      conv_case("conv1d/groups_dilation", false, {2, 4, 9}, {6, 2, 3},
                {.stride = {2}, .padding = {2}, .dilation = {2}, .groups = 2}, 6),
      // Every input channel its own group (depthwise), with a stride.
      conv_case("conv2d/depthwise", false, {2, 4, 7, 6}, {4, 1, 3, 3},
                {.stride = {2}, .padding = {1}, .groups = 4}),
      // Channels enough for a library's tiled kernels (72 products an output).
      conv_case("conv2d/channels", false, {2, 8, 9, 9}, {16, 8, 3, 3}, {.padding = {1}}, 16),
      conv_case("conv3d", false, {1, 2, 3, 4, 3}, {2, 2, 2, 2, 2},
                {.stride = {1, 2, 1}, .padding = {0, 1, 0}}),
      conv_case("conv3d/groups_dilation", false, {1, 4, 5, 5, 4}, {4, 2, 2, 2, 2},
                {.stride = {1, 1, 2}, .padding = {1, 0, 1}, .dilation = {2, 1, 1}, .groups = 2}),
      conv_case("conv_transpose1d", true, {2, 3, 4}, {3, 2, 3},
                {.stride = {2}, .padding = {1}, .output_padding = {1}}, 2),
      conv_case("conv_transpose2d", true, {1, 4, 3, 2}, {4, 1, 2, 3},
                {.stride = {2, 3}, .dilation = {1, 2}, .output_padding = {1, 2}, .groups = 2}),
      conv_case("conv_transpose3d", true, {1, 2, 2, 2, 3}, {2, 1, 2, 2, 2},
                {.stride = {2, 1, 1}, .padding = {0, 0, 1}, .output_padding = {1, 0, 0}}, 1),
      // output_padding 1 >= stride 1 (allowed: < dilation 2): an output no forward convolution
      // of this geometry makes.
      conv_case("conv_transpose1d/output_padding_past_stride", true, {1, 2, 4}, {2, 3, 2},
                {.dilation = {2}, .output_padding = {1}}),
      // Geometry {stride, padding, dilation, output_padding, groups, transposed}.
      weight_grad_case("conv1d_weight_backward", {{2}, {1}, {1}, {0}}, {2, 3, 8}, {4, 3, 3}),
      weight_grad_case("conv2d_weight_backward/stride_padding_dilation",
                       {{2, 1}, {1, 0}, {1, 2}, {0, 0}}, {2, 2, 6, 5}, {3, 2, 3, 2}),
      weight_grad_case("conv2d_weight_backward/groups", {{1, 1}, {1, 1}, {1, 1}, {0, 0}, 2},
                       {2, 4, 5, 5}, {6, 2, 3, 3}),
      weight_grad_case("conv3d_weight_backward", {{1, 2, 1}, {0, 1, 0}, {1, 1, 1}, {0, 0, 0}},
                       {1, 2, 3, 4, 3}, {2, 2, 2, 2, 2}),
      weight_grad_case("conv_transpose2d_weight_backward/groups",
                       {{2, 1}, {0, 1}, {1, 1}, {1, 0}, 2, true}, {1, 2, 3, 3}, {2, 2, 2, 2}),
      weight_grad_case("conv_transpose1d_weight_backward/output_padding_past_stride",
                       {{1}, {0}, {2}, {1}, 1, true}, {1, 1, 3}, {1, 2, 2}),
  };
}

}  // namespace ember::test
