// Interpolation cases: every mode with and without align_corners, sizes and scale factors (which
// map coordinates), up and down. Interpolation is linear in x, so the finite differences are
// exact up to rounding. Tiny shapes.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gradcheck/gradcheck.h"

namespace ember::test {
namespace {

using Mode = ir::InterpolateMode;

/// An Interpolate op; no scales unless given.
ir::Interpolate interp(ir::InterpolateMode mode, std::vector<int64_t> size,
                       bool align_corners = false, std::vector<double> scales = {}) {
  return {mode, std::move(size), align_corners, std::move(scales)};
}

GradCase interpolate_case(const std::string& name, ir::Interpolate op, const Shape& x) {
  return op_case("interpolate/" + name, std::move(op), {reals(name, x)});
}

}  // namespace

std::vector<GradCase> interpolate_grad_cases() {
  return {
      interpolate_case("nearest1d", interp(Mode::Nearest, {7}), {2, 2, 3}),
      interpolate_case("nearest2d_scale", interp(Mode::Nearest, {5, 3}, false, {1.7, 0.8}),
                       {1, 2, 3, 4}),
      interpolate_case("linear", interp(Mode::Linear, {7}), {2, 2, 4}),
      interpolate_case("linear_align_corners", interp(Mode::Linear, {7}, true), {2, 2, 4}),
      interpolate_case("bilinear", interp(Mode::Linear, {5, 3}), {1, 2, 3, 4}),
      interpolate_case("bilinear_align_corners", interp(Mode::Linear, {5, 3}, true), {1, 2, 3, 4}),
      interpolate_case("bilinear_downscale", interp(Mode::Linear, {2, 3}, false, {0.5, 0.75}),
                       {1, 1, 5, 4}),
      interpolate_case("trilinear", interp(Mode::Linear, {3, 2, 4}), {1, 1, 2, 3, 2}),
      interpolate_case("trilinear_align_corners", interp(Mode::Linear, {3, 2, 4}, true),
                       {1, 1, 2, 3, 2}),
      interpolate_case("bicubic", interp(Mode::Cubic, {5, 6}), {1, 2, 3, 4}),
      interpolate_case("bicubic_align_corners", interp(Mode::Cubic, {5, 6}, true), {1, 2, 3, 4}),
  };
}

}  // namespace ember::test
