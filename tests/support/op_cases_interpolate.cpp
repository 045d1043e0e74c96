// Interpolation (Float only) through ops::interpolate in every mode, with and without
// align_corners, by size or by one scale factor for every dim, options written as OpArgs. Not
// yet mirrored in tests/golden/generate.py (has_golden false); tests/ndarray/interpolate_test.cpp
// checks the values by hand and against PyTorch's documented examples.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ember/interpolate.h"
#include "support/op_cases.h"

namespace ember::test {
namespace {

using module::InterpolateMode;

/// The modes by PyTorch's names, as a case's "mode" argument spells them.
InterpolateMode mode_named(const std::string& name) {
  static const std::map<std::string, InterpolateMode> modes = {
      {"nearest", InterpolateMode::Nearest},
      {"linear", InterpolateMode::Linear},
      {"bilinear", InterpolateMode::Bilinear},
      {"trilinear", InterpolateMode::Trilinear},
      {"bicubic", InterpolateMode::Bicubic}};
  return modes.at(name);
}

/// ops::interpolate by "size" when it is not empty, else by "scale_factor".
ops::Handles run_interpolate(const ops::Handles& in, const OpArgs& args, const OpTarget&) {
  module::InterpolateOptions options{
      .mode = mode_named(std::get<std::string>(args.values().at("mode"))),
      .align_corners = args.flag("align_corners")};
  if (std::vector<int64_t> size = args.ints("size"); !size.empty()) {
    options.size = std::move(size);
  } else {
    options.scale_factor = std::vector<double>{args.real("scale_factor")};
  }
  return {ops::interpolate(in.at(0), options)};
}

/// What a case resizes to: a size, or one scale factor for every dim (size empty).
struct Target {
  std::vector<int64_t> size;
  double scale_factor = 0.0;
};

OpCase interpolate_case(std::string name, Shape x, Target target, std::string mode,
                        bool align_corners = false) {
  OpArgs args{{"size", std::move(target.size)},
              {"scale_factor", target.scale_factor},
              {"mode", std::move(mode)},
              {"align_corners", align_corners}};
  OpCase c = make_case(std::move(name), DTypes::Float, {drawn(std::move(x))}, run_interpolate,
                       fixed_args(std::move(args)));
  c.has_golden = false;
  return c;
}

/// The gradient of interpolating x by op: the transposed passes, in reverse dim order.
OpCase interpolate_grad_case(std::string name, ir::Interpolate op, const Shape& x) {
  ir::Op forward(op);
  return gradient_case(std::move(name), ir::InterpolateGrad{std::move(op), x}, forward, x);
}

}  // namespace

std::vector<OpCase> interpolate_cases() {
  return {
      interpolate_case("interpolate", {2, 3, 4, 5}, {{6, 3}}, "nearest"),
      // floor(5 * 1.7) = 8 outputs, coordinates i / 1.7 (not i * 5 / 8).
      interpolate_case("interpolate/nearest1d_scale", {2, 3, 5}, {{}, 1.7}, "nearest"),
      interpolate_case("interpolate/nearest3d", {1, 2, 2, 3, 4}, {{3, 5, 2}}, "nearest"),
      interpolate_case("interpolate/linear", {2, 3, 5}, {{8}}, "linear"),
      interpolate_case("interpolate/linear_align_corners", {2, 3, 5}, {{3}}, "linear", true),
      interpolate_case("interpolate/bilinear_scale", {1, 2, 4, 5}, {{}, 2.5}, "bilinear"),
      interpolate_case("interpolate/bilinear_align_corners", {1, 2, 4, 5}, {{7, 3}}, "bilinear",
                       true),
      interpolate_case("interpolate/trilinear", {1, 2, 3, 2, 4}, {{5, 3, 2}}, "trilinear"),
      interpolate_case("interpolate/bicubic", {1, 2, 4, 5}, {{7, 9}}, "bicubic"),
      // floor(4 * 0.6) = 2 and floor(5 * 0.6) = 3 outputs.
      interpolate_case("interpolate/bicubic_align_corners_scale", {1, 2, 4, 5}, {{}, 0.6},
                       "bicubic", true),
      interpolate_grad_case("interpolate_backward/nearest",
                            {ir::InterpolateMode::Nearest, {5, 3}, false, {1.7, 0.8}},
                            {2, 3, 3, 4}),
      interpolate_grad_case("interpolate_backward/linear",
                            {ir::InterpolateMode::Linear, {9}, false, {}}, {2, 3, 5}),
      interpolate_grad_case("interpolate_backward/bilinear_downscale",
                            {ir::InterpolateMode::Linear, {2, 3}, false, {0.5, 0.75}},
                            {1, 2, 4, 5}),
      interpolate_grad_case("interpolate_backward/trilinear_align_corners",
                            {ir::InterpolateMode::Linear, {3, 2, 4}, true, {}}, {1, 2, 2, 3, 2}),
      interpolate_grad_case("interpolate_backward/bicubic",
                            {ir::InterpolateMode::Cubic, {7, 9}, false, {}}, {1, 2, 4, 5}),
  };
}

}  // namespace ember::test
