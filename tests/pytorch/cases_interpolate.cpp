// Interpolation cases (generate.py's interpolate_cases): every mode, align_corners both ways
// for the linear modes and bicubic, an output size or a scale factor (up and down).
#include <string>
#include <utility>
#include <vector>

#include "pytorch/pytorch_cases.h"

namespace ember::test {
namespace {

using module::InterpolateMode;
using module::InterpolateOptions;

TorchCase interpolate_case(std::string name, InterpolateOptions options) {
  return {std::move(name), [options](const ops::Handles& x) {
            return ops::Handles{ops::interpolate(x[0], options)};
          }};
}

InterpolateOptions sized(ops::Dims size, InterpolateMode mode, bool align_corners = false) {
  return {.size = std::move(size), .mode = mode, .align_corners = align_corners};
}

InterpolateOptions scaled(std::vector<double> scale, InterpolateMode mode,
                          bool align_corners = false) {
  return {.scale_factor = std::move(scale), .mode = mode, .align_corners = align_corners};
}

}  // namespace

std::vector<TorchCase> interpolate_torch_cases() {
  using enum InterpolateMode;
  return {
      interpolate_case("interpolate/nearest_size", sized({8}, Nearest)),
      interpolate_case("interpolate/nearest_scale", scaled({1.7}, Nearest)),
      interpolate_case("interpolate/nearest_size_2d", sized({3, 7}, Nearest)),
      interpolate_case("interpolate/nearest_scale_2d", scaled({2.0, 1.5}, Nearest)),
      interpolate_case("interpolate/nearest_size_3d", sized({3, 2, 4}, Nearest)),
      interpolate_case("interpolate/linear_size", sized({8}, Linear)),
      interpolate_case("interpolate/linear_size_align", sized({8}, Linear, true)),
      interpolate_case("interpolate/linear_scale", scaled({2.5}, Linear)),
      interpolate_case("interpolate/bilinear_size", sized({5, 7}, Bilinear)),
      interpolate_case("interpolate/bilinear_size_align", sized({5, 7}, Bilinear, true)),
      interpolate_case("interpolate/bilinear_scale_down", scaled({1.5, 0.5}, Bilinear)),
      interpolate_case("interpolate/bicubic_size", sized({6, 5}, Bicubic)),
      interpolate_case("interpolate/bicubic_size_align", sized({6, 5}, Bicubic, true)),
      interpolate_case("interpolate/bicubic_scale", scaled({2.0}, Bicubic)),
      interpolate_case("interpolate/trilinear_size", sized({3, 4, 5}, Trilinear)),
      interpolate_case("interpolate/trilinear_scale_align", scaled({2.0}, Trilinear, true)),
  };
}

}  // namespace ember::test
