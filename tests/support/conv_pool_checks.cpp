#include "support/conv_pool_checks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "backends/shader/conv_pool_kernels.h"
#include "ember/tensor_data.h"
#include "ember/tensor_ops.h"
#include "ir/ops.h"
#include "support/fresh_process.h"
#include "support/graphics_device_checks.h"
#include "support/same_bits.h"
#include "support/scoped_env.h"
#include "tensor/dispatch.h"

namespace ember::test {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// Values in (-1, 1) of a fixed pattern, distinct over any tensor here.
std::vector<double> pattern(int64_t n, int seed) {
  std::vector<double> values;
  for (int64_t i = 0; i < n; ++i)
    values.push_back(std::sin(0.7 * static_cast<double>(i) + seed) * 0.999);
  return values;
}

/// One op on inputs; on_device: whether the kernels take it (else the host runs it).
struct Case {
  std::string name;
  ir::Op op;
  std::vector<std::vector<double>> values;
  std::vector<Shape> shapes;
  bool on_device = true;
  /// Axes to permute the first input by before the op (a strided view), if any: its shape in
  /// shapes is the one stored.
  std::optional<ops::Dims> permuted = std::nullopt;
};

Case patterned_case(std::string name, ir::Op op, std::vector<Shape> shapes, bool on_device = true) {
  Case c{std::move(name), std::move(op), {}, shapes, on_device};
  int seed = 1;
  for (const Shape& shape : shapes)
    c.values.push_back(pattern(shape.num_elements(), seed++));
  return c;
}

/// The output shape of op on inputs of shapes (f32).
Shape output_of(const ir::Op& op, const std::vector<Shape>& shapes) {
  std::vector<ir::TensorMeta> metas;
  for (const Shape& shape : shapes)
    metas.push_back({shape, DType::F32});
  return ir::infer(op, metas)[0].shape;
}

ir::ConvGeometry geometry(std::vector<int64_t> stride, std::vector<int64_t> padding,
                          std::vector<int64_t> dilation, int64_t groups = 1,
                          bool transposed = false, std::vector<int64_t> output_padding = {}) {
  if (output_padding.empty()) output_padding.assign(stride.size(), 0);
  return {
      std::move(stride), std::move(padding), std::move(dilation), std::move(output_padding), groups,
      transposed};
}

ir::Pool sliding(ir::PoolOp op, std::vector<int64_t> kernel, std::vector<int64_t> stride,
                 std::vector<int64_t> padding, std::vector<int64_t> dilation) {
  return {op, std::move(kernel), std::move(stride), std::move(padding), std::move(dilation)};
}

/// The convolution cases; bounded: the device loops within lavapipe's bound.
std::vector<Case> conv_cases(bool bounded) {
  const ir::Conv grouped{geometry({2, 1}, {1, 1}, {1, 2}, 2)};
  const ir::Conv transposed{geometry({2, 1, 2}, {0, 1, 1}, {1, 1, 1}, 2, true, {1, 0, 1})};
  const ir::ConvGeometry weight_grad = geometry({1, 1}, {1, 1}, {1, 1}, 2);
  const ir::ConvGeometry transposed_grad = geometry({2, 2}, {1, 0}, {1, 2}, 1, true, {1, 1});
  const Shape weight_grad_x{3, 4, 20, 18};
  const Shape transposed_grad_x{2, 2, 4, 5};
  std::vector<Case> cases = {
      patterned_case("conv2d groups, stride, padding, dilation, bias", grouped,
                     {{2, 6, 9, 7}, {4, 3, 3, 2}, {4}}),
      patterned_case("conv1d of 300 input channels", ir::Conv{geometry({1}, {0}, {1})},
                     {{1, 300, 5}, {2, 300, 3}}),
      patterned_case("conv_transpose3d groups, output_padding", transposed,
                     {{1, 4, 3, 2, 3}, {4, 1, 2, 3, 2}, {2}}),
      // 30 kernel positions x 2001 turns: past what an invocation may loop over on lavapipe.
      patterned_case("conv1d of 2000 channels and 30 taps", ir::Conv{geometry({1}, {0}, {1})},
                     {{1, 2000, 40}, {1, 2000, 30}}, !bounded),
      patterned_case("conv2d of an empty batch", grouped, {{0, 6, 9, 7}, {4, 3, 3, 2}}, false),
      // A stride past the kernels' 32-bit arithmetic: one output, on the host.
      patterned_case("conv1d of stride 2^33", ir::Conv{geometry({int64_t{1} << 33}, {0}, {1})},
                     {{1, 2, 5}, {3, 2, 2}}, false),
      patterned_case(
          "conv2d weight gradient over 1080 positions a weight",
          ir::ConvWeightGrad{weight_grad, Shape{2, 2, 3, 3}},
          {weight_grad_x, output_of(ir::Conv{weight_grad}, {weight_grad_x, Shape{2, 2, 3, 3}})}),
      patterned_case("conv_transpose2d weight gradient",
                     ir::ConvWeightGrad{transposed_grad, Shape{2, 3, 3, 2}},
                     {transposed_grad_x, output_of(ir::Conv{transposed_grad},
                                                   {transposed_grad_x, Shape{2, 3, 3, 2}})}),
  };
  // The tiled kernel (8 output and input channels a group or more): sizes that are not multiples
  // of its 16 x 16 tiles, groups, both directions; an infinite weight at a tap that lies in the
  // padding for the border outputs, which ndarray skips (0 x inf would be NaN).
  Case infinite = patterned_case("conv2d tiled, an infinite weight in the padding",
                                 ir::Conv{geometry({1, 1}, {1, 1}, {1, 1}, 2)},
                                 {{3, 20, 7, 5}, {20, 10, 3, 3}, {20}});
  infinite.values[1][0] = kInf;
  cases.push_back(std::move(infinite));
  cases.push_back(patterned_case("conv_transpose2d tiled",
                                 ir::Conv{geometry({2, 2}, {1, 1}, {1, 1}, 1, true, {1, 1})},
                                 {{2, 12, 4, 3}, {12, 9, 3, 2}}));
  cases.push_back(patterned_case("conv3d tiled",
                                 ir::Conv{geometry({1, 2, 1}, {1, 0, 1}, {1, 1, 2})},
                                 {{1, 18, 4, 6, 5}, {17, 18, 2, 3, 2}, {17}}));
  // x [N, C, H, W] stored as [H, N, W, C]: the kernel reads the copy that permute makes
  // (strided dims first, middle and last).
  Case strided =
      patterned_case("conv2d of a permuted x", ir::Conv{geometry({1, 1}, {1, 0}, {1, 1})},
                     {{7, 2, 5, 3}, {4, 3, 2, 2}});
  strided.permuted = ops::Dims{1, 3, 0, 2};
  cases.push_back(std::move(strided));
  return cases;
}

/// x [1, 2, 5, 6] with NaN, infinities and ties inside the windows.
std::vector<double> special_values() {
  std::vector<double> x = pattern(60, 3);
  x[1] = kNaN;  // a NaN among finite values
  x[8] = kInf;  // an infinity beats everything but NaN
  x[14] = -kInf;
  x[20] = x[21] = x[26] = 0.5;  // a tie: the first position wins
  x[33] = kNaN;                 // two NaNs in one window: the later one
  x[40] = kNaN;
  for (int i = 48; i < 60; ++i)
    x[static_cast<std::size_t>(i)] = -kInf;  // a window of -inf only
  return x;
}

std::vector<Case> pool_cases() {
  ir::Pool max2d = sliding(ir::PoolOp::Max, {3, 2}, {2, 2}, {1, 1}, {1, 2});
  max2d.ceil_mode = true;
  ir::Pool max1d = sliding(ir::PoolOp::Max, {4}, {3}, {0}, {1});
  max1d.ceil_mode = true;
  max1d.index_dtype = DType::I32;
  const ir::Pool max3d = sliding(ir::PoolOp::Max, {2, 3, 2}, {2, 2, 2}, {1, 1, 0}, {1, 1, 1});
  ir::Pool avg2d = sliding(ir::PoolOp::Avg, {3, 3}, {2, 3}, {1, 1}, {1, 1});
  avg2d.ceil_mode = true;
  avg2d.count_include_pad = false;
  ir::Pool avg2d_pad = sliding(ir::PoolOp::Avg, {3, 2}, {1, 2}, {1, 1}, {1, 1});
  ir::Pool avg3d = sliding(ir::PoolOp::Avg, {2, 2, 3}, {1, 2, 2}, {0, 1, 1}, {1, 1, 1});
  avg3d.divisor_override = 5;
  ir::Pool huge_divisor = sliding(ir::PoolOp::Avg, {2}, {2}, {0}, {1});
  huge_divisor.divisor_override = int64_t{1} << 40;
  const ir::AdaptivePool adaptive_max{ir::PoolOp::Max, {3, 4}};
  const ir::AdaptivePool adaptive_avg{ir::PoolOp::Avg, {4}};
  const ir::AdaptivePool downsampling{ir::PoolOp::Avg, {3, 4}};
  const ir::AdaptivePool upsampling{ir::PoolOp::Avg, {7, 5}};
  const Shape x2d{2, 3, 7, 8};
  const Shape x3d{1, 2, 4, 5, 6};
  std::vector<Case> cases = {
      {"max_pool2d with NaN, infinities and ties", max2d, {special_values()}, {{1, 2, 5, 6}}},
      patterned_case("max_pool1d, i32 indices", max1d, {{2, 3, 11}}),
      patterned_case("max_pool3d", max3d, {x3d}),
      patterned_case("avg_pool2d without the padding, ceil_mode", avg2d, {x2d}),
      patterned_case("avg_pool2d with the padding", avg2d_pad, {x2d}),
      patterned_case("avg_pool3d divisor_override", avg3d, {x3d}),
      patterned_case("adaptive_max_pool2d", adaptive_max, {{1, 3, 7, 10}}),
      patterned_case("adaptive_avg_pool1d", adaptive_avg, {{2, 2, 9}}),
      patterned_case("avg_pool2d gradient without the padding", ir::AvgPoolGrad{avg2d, x2d},
                     {output_of(avg2d, {x2d})}),
      patterned_case("avg_pool2d gradient with the padding", ir::AvgPoolGrad{avg2d_pad, x2d},
                     {output_of(avg2d_pad, {x2d})}),
      patterned_case("avg_pool3d gradient divisor_override", ir::AvgPoolGrad{avg3d, x3d},
                     {output_of(avg3d, {x3d})}),
      patterned_case("adaptive_avg_pool2d gradient",
                     ir::AdaptiveAvgPoolGrad{downsampling, {1, 3, 7, 10}}, {{1, 3, 3, 4}}),
      patterned_case("adaptive_avg_pool2d gradient, upsampling",
                     ir::AdaptiveAvgPoolGrad{upsampling, {2, 1, 3, 4}}, {{2, 1, 7, 5}}),
      patterned_case("max_pool2d of an empty batch", max2d, {{0, 2, 5, 6}}, false),
      patterned_case("avg_pool1d divided by 2^40", huge_divisor, {{1, 2, 6}}, false),
  };
  Case strided = patterned_case("avg_pool2d of a permuted x", avg2d_pad, {{7, 2, 8, 3}});
  strided.permuted = ops::Dims{1, 3, 0, 2};
  cases.push_back(std::move(strided));
  return cases;
}

/// c's outputs on device (inputs of dtype).
std::vector<TensorData> outputs_on(const Case& c, const Device& device, DType dtype) {
  std::vector<TensorHandle> inputs;
  for (std::size_t i = 0; i < c.values.size(); ++i) {
    TensorHandle input =
        ops::from_data(TensorData(c.values[i], c.shapes[i], dtype), device, TensorKind::Float);
    inputs.push_back(i == 0 && c.permuted ? ops::permute(input, *c.permuted) : input);
  }
  std::vector<TensorData> results;
  for (const TensorHandle& output : tensor::run(c.op, inputs))
    results.push_back(ops::into_data(output));
  return results;
}

/// The tolerance of c's outputs: the dtype's, but a convolution's f32 sums of up to some hundred
/// products of magnitude 1 cancel to small values, so their absolute error is some ulp of the
/// terms, not of the result (an H100's tiled kernel: 1.8e-6 off on a conv3d output of 0.036).
Tolerance tolerance_of(const Case& c, DType dtype) {
  Tolerance tolerance = Tolerance::for_dtype(dtype);
  const bool sums =
      std::holds_alternative<ir::Conv>(c.op) || std::holds_alternative<ir::ConvWeightGrad>(c.op);
  if (sums && dtype == DType::F32) tolerance.atol = 1e-5;
  return tolerance;
}

void expect_case(const Case& c, const Device& device, DType dtype, bool kernels_take_dtype) {
  const uint64_t before = shader::conv_pool_kernel_runs().load();
  const std::vector<TensorData> actual = outputs_on(c, device, dtype);
  const uint64_t runs = shader::conv_pool_kernel_runs().load() - before;
  EXPECT_EQ(runs, c.on_device && kernels_take_dtype ? 1u : 0u)
      << c.name << " (" << dtype << "): kernel runs";
  const std::vector<TensorData> expected = outputs_on(c, Device::ndarray(), dtype);
  ASSERT_EQ(actual.size(), expected.size()) << c.name;
  const bool max = std::holds_alternative<ir::Pool>(c.op)
                       ? std::get<ir::Pool>(c.op).op == ir::PoolOp::Max
                       : std::holds_alternative<ir::AdaptivePool>(c.op) &&
                             std::get<ir::AdaptivePool>(c.op).op == ir::PoolOp::Max;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    std::string why;
    if (max) {
      EXPECT_TRUE(same_bits_or_both_nan(actual[i], expected[i]))
          << c.name << " (" << dtype << "): output " << i;
    } else {
      EXPECT_TRUE(actual[i].approx_equal(expected[i], tolerance_of(c, dtype), &why))
          << c.name << " (" << dtype << "): " << why;
    }
  }
}

}  // namespace

void expect_conv_pool_kernels_match_ndarray(const Device& device, bool f64_kernels) {
  std::vector<Case> cases = conv_cases(loops_within_lavapipes_bound(device));
  for (Case& c : pool_cases())
    cases.push_back(std::move(c));
  for (const Case& c : cases) {
    expect_case(c, device, DType::F32, true);
    if (device.supports_dtype(DType::F64)) expect_case(c, device, DType::F64, f64_kernels);
  }
}

void expect_tiled_conv_kernel_matches_ndarray(DeviceType type, bool f64_kernels) {
  expect_in_fresh_process([&] {
    const ScopedEnv tiled("EMBER_SHADER_CONV", "tiled");
    expect_conv_pool_kernels_match_ndarray(Device::enumerate(type)[0], f64_kernels);
    return ::testing::Test::HasFailure() ? std::string("a case failed (above)") : std::string();
  });
}

}  // namespace ember::test
