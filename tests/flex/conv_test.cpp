// Convolutions (f32 through oneDNN where built with it, else and f64 as GEMM): one product checked
// by hand, then a sweep of geometries (1 to 3 spatial dims, stride, padding, dilation, groups,
// bias, transposed with output padding) and both weight gradients against the ndarray kernels,
// which sum taps directly; and that oneDNN, when built in, takes every f32 case of the sweep, and
// every bf16 one where the CPU runs bf16 natively (at PyTorch's bf16 tolerances).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/flex/dnnl_conv.h"
#include "ember/convolution.h"
#include "flex_test_util.h"

namespace ember::flex::test {
namespace {

ir::ConvGeometry geometry(std::size_t spatial, int64_t stride, int64_t padding, int64_t dilation,
                          int64_t groups, bool transposed, int64_t output_padding = 0) {
  return {std::vector<int64_t>(spatial, stride),
          std::vector<int64_t>(spatial, padding),
          std::vector<int64_t>(spatial, dilation),
          std::vector<int64_t>(spatial, output_padding),
          groups,
          transposed};
}

TEST(FlexConv, OneDimensionalConvolutionByHand) {
  // x = [1, 2, 3, 4] padded by one zero each side, kernel [1, 0, -1]:
  // out[o] = x[o - 1] - x[o + 1] = [-2, -2, -2, 3].
  FlexBackend flex;
  const TensorData x(std::vector<float>{1, 2, 3, 4}, {1, 1, 4});
  const TensorData w(std::vector<float>{1, 0, -1}, {1, 1, 3});
  const ir::Conv op{geometry(1, 1, 1, 1, 1, false)};
  EXPECT_EQ(run_on(flex, op, {x, w}).at(0).to_vector<float>(), (std::vector<float>{-2, -2, -2, 3}));
}

struct ConvCase {
  std::string name;
  ir::ConvGeometry geometry;
  Shape x;
  Shape weight;
};

/// x [2, 4, *in] with groups dividing 4; weight shapes follow each direction's rule.
std::vector<ConvCase> conv_cases() {
  std::vector<ConvCase> cases;
  const std::vector<Shape> inputs = {{2, 4, 9}, {2, 4, 7, 6}, {2, 4, 5, 4, 6}};
  for (const Shape& x : inputs) {
    const std::size_t spatial = x.rank() - 2;
    const std::string dims = std::to_string(spatial) + "d";
    for (const int64_t groups : {1, 2}) {
      for (const auto& [stride, padding, dilation] :
           std::vector<std::array<int64_t, 3>>{{1, 0, 1}, {2, 1, 1}, {1, 2, 2}, {3, 1, 1}}) {
        std::vector<int64_t> kernel = {6, 4 / groups};    // forward: [C_out, C_in / groups, k...]
        std::vector<int64_t> kernel_t = {4, 6 / groups};  // transposed: [C_in, C_out / groups]
        for (std::size_t d = 0; d < spatial; ++d) {
          kernel.push_back(3);
          kernel_t.push_back(3);
        }
        const std::string tag = dims + " g" + std::to_string(groups) + " s" +
                                std::to_string(stride) + " p" + std::to_string(padding) + " d" +
                                std::to_string(dilation);
        cases.push_back({"conv " + tag, geometry(spatial, stride, padding, dilation, groups, false),
                         x, Shape(kernel)});
        const int64_t output_padding = stride > 1 ? 1 : 0;
        cases.push_back({"transposed " + tag,
                         geometry(spatial, stride, padding, dilation, groups, true, output_padding),
                         x, Shape(kernel_t)});
      }
    }
    // A 1x1 kernel of stride 1 reads x as its own columns.
    std::vector<int64_t> pointwise = {6, 4};
    for (std::size_t d = 0; d < spatial; ++d)
      pointwise.push_back(1);
    cases.push_back(
        {"pointwise " + dims, geometry(spatial, 1, 0, 1, 1, false), x, Shape(pointwise)});
    std::vector<int64_t> pointwise_t = {4, 6};
    for (std::size_t d = 0; d < spatial; ++d)
      pointwise_t.push_back(1);
    cases.push_back({"pointwise transposed " + dims, geometry(spatial, 1, 0, 1, 1, true), x,
                     Shape(pointwise_t)});
  }
  return cases;
}

/// Test values of dtype: of both signs in f64; in f32 positive, so that sums of a hundred
/// products do not cancel and the two summation orders agree within f32's tolerance.
TensorData conv_data(const Shape& shape, DType dtype) {
  if (dtype == DType::F64) return varied_data(shape, dtype);
  return positive_data(shape, dtype);
}

TEST(FlexConv, ConvolutionsMatchTheReferenceForEveryGeometry) {
  for (const DType dtype : {DType::F32, DType::F64}) {
    for (const ConvCase& c : conv_cases()) {
      const TensorData x = conv_data(c.x, dtype);
      const TensorData w = conv_data(c.weight, dtype);
      const int64_t out_channels =
          c.geometry.transposed ? c.weight[1] * c.geometry.groups : c.weight[0];
      const TensorData bias = conv_data({out_channels}, dtype);
      const std::string what = c.name + " " + std::string(dtype_name(dtype));
      expect_backends_agree(ir::Conv{c.geometry}, {x, w}, what);
      expect_backends_agree(ir::Conv{c.geometry}, {x, w, bias}, what + " with bias");
    }
  }
}

TEST(FlexConv, WeightGradientsMatchTheReferenceForEveryGeometry) {
  for (const DType dtype : {DType::F32, DType::F64}) {
    for (const ConvCase& c : conv_cases()) {
      const TensorData x = conv_data(c.x, dtype);
      const TensorData w = conv_data(c.weight, dtype);
      FlexBackend flex;
      const Shape out_shape = run_on(flex, ir::Conv{c.geometry}, {x, w}).at(0).shape();
      const TensorData grad_output = conv_data(out_shape, dtype);
      expect_backends_agree(ir::ConvWeightGrad{c.geometry, c.weight}, {x, grad_output},
                            c.name + " weight grad " + std::string(dtype_name(dtype)));
    }
  }
}

/// Zeroed bytes for a tensor of shape and dtype, for oneDNN to write.
std::vector<std::byte> room_for(const Shape& shape, DType dtype) {
  return std::vector<std::byte>(static_cast<std::size_t>(shape.num_elements()) * dtype_size(dtype));
}

/// actual against the reference: f32 at its own tolerance, bf16 at PyTorch's.
void expect_like_reference(const TensorData& actual, const TensorData& expected,
                           const std::string& what) {
  if (expected.dtype() == DType::F32) return expect_close(actual, expected, what);
  expect_close_as_torch(actual, expected, what);
}

// The sweep above cannot tell which path ran: here oneDNN is called directly, must accept every
// f32 case (a decline would silently send the case to im2col) and, where the CPU runs bf16
// natively, every bf16 one, and must give ndarray's values (for bf16, ndarray sums the rounded
// inputs' products in f32 and rounds once).
TEST(FlexConv, OneDnnTakesEveryF32AndNativeBf16CaseOfTheSweepWhenBuiltWithIt) {
  if (!dnnl_in_build()) GTEST_SKIP() << "built without oneDNN (libdnnl-dev)";
  ndarray::NdArrayBackend reference;
  const Device flex = Device::flex();
  for (const DType dtype : {DType::F32, DType::BF16}) {
    if (!dnnl_conv_takes(dtype)) continue;  // bf16: the CPU lacks AVX512-BF16
    for (const ConvCase& c : conv_cases()) {
      const std::string what = c.name + " " + std::string(dtype_name(dtype));
      const TensorData x = conv_data(c.x, dtype);
      const TensorData w = conv_data(c.weight, dtype);
      const TensorData expected = run_on(reference, ir::Conv{c.geometry}, {x, w}).at(0);
      const TensorHandle x_flex = ops::from_data(x, flex, TensorKind::Float);
      const TensorHandle w_flex = ops::from_data(w, flex, TensorKind::Float);
      std::vector<std::byte> out = room_for(expected.shape(), dtype);
      ASSERT_TRUE(dnnl_convolve(c.geometry, view_of(x_flex), view_of(w_flex), nullptr, out.data(),
                                expected.shape()))
          << what;
      expect_like_reference(TensorData(out, expected.shape(), dtype), expected, what + " (oneDNN)");

      const TensorData grad_output = conv_data(expected.shape(), dtype);
      const TensorData expected_grad =
          run_on(reference, ir::ConvWeightGrad{c.geometry, c.weight}, {x, grad_output}).at(0);
      const TensorHandle g_flex = ops::from_data(grad_output, flex, TensorKind::Float);
      std::vector<std::byte> grad = room_for(c.weight, dtype);
      ASSERT_TRUE(
          dnnl_weight_gradient(c.geometry, view_of(x_flex), view_of(g_flex), grad.data(), c.weight))
          << what;
      expect_like_reference(TensorData(grad, c.weight, dtype), expected_grad,
                            what + " weight grad (oneDNN)");
    }
  }
}

TEST(FlexConv, Bf16ConvolutionsMatchTheReferenceThroughTheBackend) {
  // Through the flex backend: oneDNN where native, else the f32 path; a transposed convolution
  // with a bias takes the f32 path either way.
  for (const ConvCase& c : conv_cases()) {
    const TensorData x = conv_data(c.x, DType::BF16);
    const TensorData w = conv_data(c.weight, DType::BF16);
    const int64_t out_channels =
        c.geometry.transposed ? c.weight[1] * c.geometry.groups : c.weight[0];
    const TensorData bias = conv_data({out_channels}, DType::BF16);
    compare_backends(ir::Conv{c.geometry}, {x, w, bias}, c.name + " bf16 with bias",
                     expect_close_as_torch);
  }
}

TEST(FlexConv, OtherDtypesAndStridedInputsGiveTheReferenceResult) {
  const ir::ConvGeometry g = geometry(2, 1, 1, 1, 1, false);
  expect_backends_agree(
      ir::Conv{g}, {varied_data({1, 2, 5, 5}, DType::F16), varied_data({3, 2, 3, 3}, DType::F16)},
      "f16 (reference path)");
  expect_matches_ndarray(
      [](const Device& d) {
        // x as a permuted view: copied contiguous once before im2col.
        const TensorHandle x = ops::permute(varied({1, 5, 6, 2}, d), {0, 3, 1, 2});
        return ops::conv(x, varied({3, 2, 3, 3}, d), {}, {{1}, {1}, {1}, 1});
      },
      "conv of a permuted x");
}

}  // namespace
}  // namespace ember::flex::test
