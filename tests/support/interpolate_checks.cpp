#include "support/interpolate_checks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "backends/shader/host_runs.h"
#include "ember/tensor_data.h"
#include "ember/tensor_ops.h"
#include "ir/ops.h"
#include "support/graphics_device_checks.h"
#include "tensor/dispatch.h"

namespace ember::test {
// Named apart from the other checks' helpers (unity builds join the files).
namespace interpolate_checks {

using ir::InterpolateMode;

/// An Interpolate (or its gradient) from x's shape; on_device: whether the kernels take it.
struct Case {
  std::string name;
  ir::Interpolate op;
  Shape x;
  bool on_device = true;
};

std::vector<Case> cases() {
  const auto nearest = InterpolateMode::Nearest;
  const auto linear = InterpolateMode::Linear;
  const auto cubic = InterpolateMode::Cubic;
  return {
      {"nearest1d up", {nearest, {8}, false, {}}, {2, 3, 5}},
      {"nearest2d down by scales", {nearest, {5, 4}, false, {0.6, 0.45}}, {1, 2, 9, 11}},
      {"nearest3d up and down", {nearest, {3, 5, 2}, false, {}}, {1, 2, 2, 3, 4}},
      {"linear1d up", {linear, {9}, false, {}}, {2, 3, 5}},
      {"linear1d down, align_corners", {linear, {4}, true, {}}, {2, 3, 9}},
      {"linear1d to one, align_corners", {linear, {1}, true, {}}, {1, 2, 5}},
      {"bilinear up by scales", {linear, {10, 7}, false, {2.5, 1.5}}, {1, 2, 4, 5}},
      {"bilinear down, align_corners", {linear, {4, 3}, true, {}}, {1, 2, 9, 8}},
      {"trilinear, one dim copied", {linear, {5, 3, 4}, false, {}}, {1, 2, 3, 2, 4}},
      {"trilinear align_corners", {linear, {3, 2, 4}, true, {}}, {1, 2, 2, 3, 2}},
      {"bicubic up", {cubic, {7, 9}, false, {}}, {1, 2, 4, 5}},
      {"bicubic down, align_corners", {cubic, {4, 5}, true, {}}, {1, 2, 9, 11}},
      {"bicubic by scales", {cubic, {8, 4}, false, {1.7, 0.8}}, {1, 2, 5, 6}},
      {"bicubic of one row", {cubic, {3, 6}, false, {}}, {2, 1, 1, 4}},
      {"linear1d of an empty batch", {linear, {9}, false, {}}, {0, 3, 5}, false},
  };
}

/// x's values: a fixed pattern in (-1, 1), with NaN and infinities where special.
std::vector<double> values_of(const Shape& shape, bool special) {
  std::vector<double> values;
  for (int64_t i = 0; i < shape.num_elements(); ++i)
    values.push_back(std::sin(0.7 * static_cast<double>(i) + 1.0) * 0.999);
  if (special && values.size() > 7) {
    values[2] = std::numeric_limits<double>::quiet_NaN();
    values[5] = std::numeric_limits<double>::infinity();
    values[7] = -std::numeric_limits<double>::infinity();
  }
  return values;
}

/// op (Interpolate or InterpolateGrad) of values of shape in dtype on device.
TensorData run_on(const ir::Op& op, const Shape& shape, const std::vector<double>& values,
                  DType dtype, const Device& device) {
  const TensorHandle inputs[] = {
      ops::from_data(TensorData(values, shape, dtype), device, TensorKind::Float)};
  return ops::into_data(tensor::run(op, inputs)[0]);
}

/// op on device against ndarray, and where it ran: host_name's count of HostRuns unchanged when
/// the kernel runs it, one more when the host does.
void expect_op(const std::string& what, const ir::Op& op, const std::string& host_name,
               const Shape& shape, const std::vector<double>& values, DType dtype,
               const Device& device, bool on_device) {
  const uint64_t before = shader::HostRuns::counts_so_far()[host_name];
  const TensorData actual = run_on(op, shape, values, dtype, device);
  const uint64_t host_runs = shader::HostRuns::counts_so_far()[host_name] - before;
  EXPECT_EQ(host_runs, on_device ? 0u : 1u) << what << " (" << dtype << "): host runs";
  const TensorData expected = run_on(op, shape, values, dtype, Device::ndarray());
  std::string why;
  EXPECT_TRUE(actual.approx_equal(expected, Tolerance::for_dtype(dtype), &why))
      << what << " (" << dtype << "): " << why;
}

/// c forward (x with NaN and infinities, then without) and backward on device.
void expect_case(const Case& c, const Device& device, DType dtype, bool kernels_take_dtype) {
  const bool on_device = c.on_device && kernels_take_dtype;
  const ir::Op forward(c.op);
  for (const bool special : {false, true})
    expect_op(c.name + (special ? " with NaN and infinities" : ""), forward, "interpolate", c.x,
              values_of(c.x, special), dtype, device, on_device);
  const Shape y = ir::infer(forward, std::vector<ir::TensorMeta>{{c.x, dtype}})[0].shape;
  expect_op(c.name + " gradient", ir::Op(ir::InterpolateGrad{c.op, c.x}), "interpolate_backward", y,
            values_of(y, false), dtype, device, on_device);
}

void expect_all(const Device& device, bool f64_kernels, bool f16_kernels) {
  for (const Case& c : cases()) {
    expect_case(c, device, DType::F32, true);
    if (device.supports_dtype(DType::F64)) expect_case(c, device, DType::F64, f64_kernels);
    if (device.supports_dtype(DType::F16)) expect_case(c, device, DType::F16, f16_kernels);
  }
  // 2^17 outputs read each of the 2 inputs: more than an invocation of the gradient loops over on
  // lavapipe (a GPU's takes it).
  const Case wide{
      "nearest1d up 65536 times", {InterpolateMode::Nearest, {1 << 17}, false, {}}, {1, 1, 2}};
  const Shape y{1, 1, 1 << 17};
  expect_op(wide.name + " gradient", ir::Op(ir::InterpolateGrad{wide.op, wide.x}),
            "interpolate_backward", y, values_of(y, false), DType::F32, device,
            !loops_within_lavapipes_bound(device));
  expect_op(wide.name, ir::Op(wide.op), "interpolate", wide.x, values_of(wide.x, false), DType::F32,
            device, true);
}

}  // namespace interpolate_checks

void expect_interpolate_kernels_match_ndarray(const Device& device, bool f64_kernels,
                                              bool f16_kernels) {
  interpolate_checks::expect_all(device, f64_kernels, f16_kernels);
}

}  // namespace ember::test
