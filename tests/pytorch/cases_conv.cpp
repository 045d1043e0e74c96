// Convolution cases (generate.py's conv_cases): conv1d/2d/3d with stride, padding, dilation,
// groups and bias; conv_transpose1d/2d/3d with output_padding, groups and dilation.
#include <string>
#include <utility>

#include "pytorch/pytorch_cases.h"

namespace ember::test {
namespace {

using module::ConvOptions;
using module::ConvTransposeOptions;

/// ops::conv of x, weight and (with a third input) bias.
TorchCase conv_case(std::string name, ConvOptions options) {
  return {std::move(name), [options](const ops::Handles& x) {
            return ops::Handles{ops::conv(x[0], x[1], optional_input(x, 2), options)};
          }};
}

TorchCase conv_transpose_case(std::string name, ConvTransposeOptions options) {
  return {std::move(name), [options](const ops::Handles& x) {
            return ops::Handles{ops::conv_transpose(x[0], x[1], optional_input(x, 2), options)};
          }};
}

}  // namespace

std::vector<TorchCase> conv_torch_cases() {
  return {
      conv_case("conv1d/bias", {}),
      conv_case("conv1d/stride2_pad1_dil2", {.stride = {2}, .padding = {1}, .dilation = {2}}),
      conv_case("conv1d/groups2_bias", {.groups = 2}),
      conv_case("conv2d/bias", {}),
      conv_case("conv2d/stride_pad_dil", {.stride = {2, 1}, .padding = {1, 2}, .dilation = {1, 2}}),
      conv_case("conv2d/groups2_stride2", {.stride = {2}, .groups = 2}),
      conv_case("conv2d/depthwise_pad1", {.padding = {1}, .groups = 3}),
      conv_case("conv3d/stride_pad_bias", {.stride = {1, 2, 1}, .padding = {1}}),
      conv_case("conv3d/groups2_dil2", {.dilation = {2}, .groups = 2}),
      conv_transpose_case("conv_transpose1d/bias", {}),
      conv_transpose_case("conv_transpose1d/stride2_pad1_outpad1",
                          {.stride = {2}, .padding = {1}, .output_padding = {1}}),
      conv_transpose_case("conv_transpose1d/groups2_dil2_outpad1",
                          {.stride = {2}, .output_padding = {1}, .dilation = {2}, .groups = 2}),
      conv_transpose_case("conv_transpose2d/bias", {}),
      conv_transpose_case("conv_transpose2d/stride_pad_outpad",
                          {.stride = {2, 3}, .padding = {1, 0}, .output_padding = {1, 2}}),
      conv_transpose_case("conv_transpose2d/groups2_dil_stride2",
                          {.stride = {2}, .dilation = {2, 1}, .groups = 2}),
      conv_transpose_case("conv_transpose3d/stride2_pad1_outpad1",
                          {.stride = {2}, .padding = {1}, .output_padding = {1}}),
      conv_transpose_case("conv_transpose3d/groups2_dil2", {.dilation = {2}, .groups = 2}),
  };
}

}  // namespace ember::test
