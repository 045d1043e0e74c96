// Convolutions (Float only) through ops::conv / ops::conv_transpose, their options written as
// OpArgs: one value per spatial dim, or one for all. Not yet mirrored in tests/golden/generate.py
// (has_golden false); tests/ndarray/conv_test.cpp checks the values against a naive reference.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/convolution.h"
#include "support/op_cases.h"

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
      conv_case("conv3d", false, {1, 2, 3, 4, 3}, {2, 2, 2, 2, 2},
                {.stride = {1, 2, 1}, .padding = {0, 1, 0}}),
      conv_case("conv_transpose1d", true, {2, 3, 4}, {3, 2, 3},
                {.stride = {2}, .padding = {1}, .output_padding = {1}}, 2),
      conv_case("conv_transpose2d", true, {1, 4, 3, 2}, {4, 1, 2, 3},
                {.stride = {2, 3}, .dilation = {1, 2}, .output_padding = {1, 2}, .groups = 2}),
      conv_case("conv_transpose3d", true, {1, 2, 2, 2, 3}, {2, 1, 2, 2, 2},
                {.stride = {2, 1, 1}, .padding = {0, 0, 1}, .output_padding = {1, 0, 0}}, 1),
  };
}

}  // namespace ember::test
