// Pooling cases (generate.py's pool_cases): max_pool1d/2d with their indices (padding,
// dilation, ceil_mode), avg_pool1d/2d (count_include_pad both ways, ceil_mode,
// divisor_override), adaptive_avg_pool1d/2d and adaptive_max_pool2d with sizes that do not
// divide.
#include <string>
#include <utility>

#include "pytorch/pytorch_cases.h"

namespace ember::test {
namespace {

using module::AvgPoolOptions;
using module::MaxPoolOptions;

/// The pooled values and the indices of the maxima.
TorchCase max_pool_case(std::string name, MaxPoolOptions options) {
  return {std::move(name), [options](const ops::Handles& x) {
            auto [values, indices] = ops::max_pool_with_indices(x[0], options);
            return ops::Handles{values, indices};
          }};
}

TorchCase avg_pool_case(std::string name, AvgPoolOptions options) {
  return {std::move(name),
          [options](const ops::Handles& x) { return ops::Handles{ops::avg_pool(x[0], options)}; }};
}

TorchCase adaptive_avg_case(std::string name, ops::Dims output_size) {
  return {std::move(name), [output_size](const ops::Handles& x) {
            return ops::Handles{ops::adaptive_avg_pool(x[0], output_size)};
          }};
}

TorchCase adaptive_max_case(std::string name, ops::Dims output_size) {
  return {std::move(name), [output_size](const ops::Handles& x) {
            auto [values, indices] = ops::adaptive_max_pool_with_indices(x[0], output_size);
            return ops::Handles{values, indices};
          }};
}

}  // namespace

std::vector<TorchCase> pool_torch_cases() {
  return {
      max_pool_case("max_pool1d/k3_s2", {.kernel_size = {3}, .stride = {2}}),
      max_pool_case(
          "max_pool1d/pad1_dil2_ceil",
          {.kernel_size = {3}, .stride = {2}, .padding = {1}, .dilation = {2}, .ceil_mode = true}),
      max_pool_case("max_pool2d/k2", {.kernel_size = {2}}),
      max_pool_case("max_pool2d/pad_dil_ceil", {.kernel_size = {3, 2},
                                                .stride = {2},
                                                .padding = {1},
                                                .dilation = {2, 1},
                                                .ceil_mode = true}),
      max_pool_case("max_pool2d/k2_s2_ceil",
                    {.kernel_size = {2}, .stride = {2}, .ceil_mode = true}),
      avg_pool_case("avg_pool1d/k3_s2", {.kernel_size = {3}, .stride = {2}}),
      avg_pool_case("avg_pool1d/pad1_ceil_include",
                    {.kernel_size = {3}, .stride = {2}, .padding = {1}, .ceil_mode = true}),
      avg_pool_case("avg_pool1d/pad1_ceil_exclude", {.kernel_size = {3},
                                                     .stride = {2},
                                                     .padding = {1},
                                                     .ceil_mode = true,
                                                     .count_include_pad = false}),
      avg_pool_case("avg_pool2d/pad_include",
                    {.kernel_size = {3, 2}, .stride = {2}, .padding = {1}}),
      avg_pool_case("avg_pool2d/pad_ceil_exclude", {.kernel_size = {3, 2},
                                                    .stride = {2},
                                                    .padding = {1},
                                                    .ceil_mode = true,
                                                    .count_include_pad = false}),
      avg_pool_case("avg_pool2d/pad_ceil_include",
                    {.kernel_size = {3}, .stride = {2}, .padding = {1}, .ceil_mode = true}),
      avg_pool_case("avg_pool2d/divisor_override",
                    {.kernel_size = {3}, .stride = {2}, .padding = {1}, .divisor_override = 4}),
      adaptive_avg_case("adaptive_avg_pool1d/7_to_3", {3}),
      adaptive_avg_case("adaptive_avg_pool1d/5_to_8", {8}),
      adaptive_avg_case("adaptive_avg_pool2d/7x5_to_3x2", {3, 2}),
      adaptive_avg_case("adaptive_avg_pool2d/4x4_to_3x5", {3, 5}),
      adaptive_max_case("adaptive_max_pool2d/7x5_to_3x2", {3, 2}),
      adaptive_max_case("adaptive_max_pool2d/5x4_to_4x3", {4, 3}),
  };
}

}  // namespace ember::test
