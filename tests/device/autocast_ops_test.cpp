// What ops do on an autocast device (docs/mixed-precision.md): matmul and convolution run on
// inputs cast to the autocast dtype, reductions and softmax on f16/bf16 inputs cast to f32, the
// rest on the dtypes they are given. On every device under test; ndarray is the reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ember/ember.h"
#include "support/devices_under_test.h"

namespace ember {
namespace {

Device bf16_device(const Device& d) {
  return d.autocast(FloatDType::BF16);
}

/// The devices under test that compute in dtype: autocast to a dtype the device lacks throws
/// (vulkan has no bf16).
std::vector<Device> devices_supporting(DType dtype) {
  std::vector<Device> devices;
  for (const Device& device : test::devices_under_test())
    if (device.supports_dtype(dtype)) devices.push_back(device);
  return devices;
}

template <std::size_t D>
Tensor<D> on(const Device& d, const std::vector<float>& values, Shape shape) {
  return Tensor<D>::from_data(TensorData(values, std::move(shape)), d);
}

template <std::size_t D, typename K>
std::vector<float> floats_of(const Tensor<D, K>& t) {
  return t.into_data().template to_vector<float>();
}

/// Random f32 values in [-2, 2), drawn on ndarray, so the same for a seed whatever d is.
template <std::size_t D>
Tensor<D> random_on(const Device& d, const typename Tensor<D>::Dims& dims, uint64_t seed) {
  const Device reference = Device::ndarray();
  reference.seed(seed);
  return Tensor<D>::random(dims, Distribution::uniform(-2.0, 2.0), reference).to_device(d);
}

/// Whether got is within one bf16 rounding step of want: a product accumulated in another order
/// may land on the other side of a rounding boundary.
::testing::AssertionResult within_one_bf16_step(const std::vector<float>& got,
                                                const std::vector<float>& want) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "sizes differ";
  for (std::size_t i = 0; i < got.size(); ++i) {
    // bf16 keeps 8 significant bits: a step is at most 2^-7 of the value.
    const float step = std::ldexp(std::abs(want[i]), -7) + 1e-30f;
    if (std::abs(got[i] - want[i]) > step) {
      return ::testing::AssertionFailure()
             << "element " << i << ": got " << got[i] << ", want " << want[i];
    }
  }
  return ::testing::AssertionSuccess();
}

// By hand: 1 + 2^-6 + 2^-9 rounds to 1 + 2^-6 in bf16 (8 significant bits), so the product with
// [1, 1]^T of [x, -1] is 2^-6 when the inputs are cast first, and x - 1 = 0.017578125 (exact in
// bf16) when the product runs in f32.
TEST(AutocastOps, MatmulCastsItsInputsBeforeTheProduct) {
  for (const Device& device : devices_supporting(DType::BF16)) {
    SCOPED_TRACE(device.name());
    const std::vector<float> a = {1.017578125f, -1.0f};
    const std::vector<float> b = {1.0f, 1.0f};
    const Tensor<2> lowered =
        on<2>(bf16_device(device), a, {1, 2}).matmul(on<2>(bf16_device(device), b, {2, 1}));
    EXPECT_EQ(lowered.dtype(), DType::BF16);
    EXPECT_EQ(floats_of(lowered), std::vector<float>{0.015625f});
    const Tensor<2> full = on<2>(device, a, {1, 2}).matmul(on<2>(device, b, {2, 1}));
    EXPECT_EQ(full.dtype(), DType::F32);
    EXPECT_EQ(floats_of(full), std::vector<float>{0.017578125f});
  }
}

// The reference: ndarray's f32 product of the bf16-rounded inputs, rounded to bf16.
TEST(AutocastOps, MatmulEqualsTheF32ProductOfBf16RoundedInputs) {
  const Device reference = Device::ndarray();
  const Tensor<2> a = random_on<2>(reference, {17, 40}, 1);
  const Tensor<2> b = random_on<2>(reference, {40, 9}, 2);
  const auto rounded = [](const Tensor<2>& x) { return x.cast(DType::BF16).cast(DType::F32); };
  const std::vector<float> want = floats_of(rounded(a).matmul(rounded(b)).cast(DType::BF16));
  for (const Device& device : devices_supporting(DType::BF16)) {
    SCOPED_TRACE(device.name());
    const Device autocast = bf16_device(device);
    const Tensor<2> got = a.to_device(autocast).matmul(b.to_device(autocast));
    EXPECT_EQ(got.dtype(), DType::BF16);
    if (device == reference) {
      EXPECT_EQ(floats_of(got), want);
    } else {
      EXPECT_TRUE(within_one_bf16_step(floats_of(got), want));
    }
  }
}

TEST(AutocastOps, ConvolutionRunsInTheAutocastDtype) {
  for (const Device& device : devices_supporting(DType::F16)) {
    SCOPED_TRACE(device.name());
    const Device autocast = device.autocast(FloatDType::F16);
    const Tensor<4> x = random_on<4>(autocast, {2, 3, 6, 6}, 3);
    const Tensor<4> w = random_on<4>(autocast, {4, 3, 3, 3}, 4);
    const Tensor<1> bias = random_on<1>(autocast, {4}, 5);
    const Tensor<4> got = module::conv2d(x, w, bias, {});
    EXPECT_EQ(got.dtype(), DType::F16);
    const auto rounded = [](const auto& t) { return t.cast(DType::F16); };
    const Tensor<4> want = module::conv2d(rounded(x.to_device(Device::ndarray())),
                                          rounded(w.to_device(Device::ndarray())),
                                          rounded(bias.to_device(Device::ndarray())), {});
    EXPECT_EQ(want.device().autocast_dtype(), std::nullopt);
    const std::vector<float> g = floats_of(got);
    const std::vector<float> r = floats_of(want);
    ASSERT_EQ(g.size(), r.size());
    // f16: PyTorch's rtol 1e-3, atol 1e-5, plus an f16 ulp of the largest output: the bias is
    // added to the rounded product, so a product one ulp apart on a device that sums in another
    // order (cuDNN) stays one ulp of the product apart when the bias cancels most of it.
    const float largest = std::abs(*std::max_element(
        r.begin(), r.end(), [](float a, float b) { return std::abs(a) < std::abs(b); }));
    for (std::size_t i = 0; i < g.size(); ++i)
      EXPECT_NEAR(g[i], r[i], 1e-5 + 1e-3 * (std::abs(r[i]) + largest)) << i;
  }
}

// In bf16, 256 + 1 rounds back to 256; in f32 the sum is exact.
TEST(AutocastOps, ReductionsOfBf16RunInF32) {
  for (const Device& device : devices_supporting(DType::BF16)) {
    SCOPED_TRACE(device.name());
    const Tensor<1> x = on<1>(bf16_device(device), {256, 1, 1, 1, 1}, {5}).cast(DType::BF16);
    const Tensor<1> sum = x.sum();
    EXPECT_EQ(sum.dtype(), DType::F32);
    EXPECT_EQ(floats_of(sum), std::vector<float>{260});
    EXPECT_EQ(x.mean().dtype(), DType::F32);
    EXPECT_FLOAT_EQ(floats_of(x.mean())[0], 52.0f);
    // The f32 op on the upcast input, on the same device without autocast.
    const Tensor<1> upcast = x.cast(DType::F32).to_device(device);
    EXPECT_EQ(floats_of(x.prod()), floats_of(upcast.prod()));
    EXPECT_EQ(floats_of(x.cumsum(0)), floats_of(upcast.cumsum(0)));
    EXPECT_EQ(x.cumsum(0).dtype(), DType::F32);
    // max, min and arg- reductions are exact in any dtype: they keep it.
    EXPECT_EQ(x.max().dtype(), DType::BF16);
  }
}

TEST(AutocastOps, SoftmaxAndLogSoftmaxOfBf16RunInF32) {
  const std::vector<float> values = {0.5f, -1.25f, 3.0f, 2.0f, 0.0f, -0.75f};
  for (const Device& device : devices_supporting(DType::BF16)) {
    SCOPED_TRACE(device.name());
    const Tensor<2> x = on<2>(bf16_device(device), values, {2, 3}).cast(DType::BF16);
    const Tensor<2> softmax = activation::softmax(x, 1);
    const Tensor<2> log_softmax = activation::log_softmax(x, 1);
    EXPECT_EQ(softmax.dtype(), DType::F32);
    EXPECT_EQ(log_softmax.dtype(), DType::F32);
    const Tensor<2> upcast = x.cast(DType::F32).to_device(device);
    EXPECT_EQ(floats_of(softmax), floats_of(activation::softmax(upcast, 1)));
    EXPECT_EQ(floats_of(log_softmax), floats_of(activation::log_softmax(upcast, 1)));
    // The values (exact in bf16) by the formula, in double.
    const std::vector<float> got = floats_of(softmax);
    for (std::size_t row = 0; row < 2; ++row) {
      double total = 0;
      for (std::size_t j = 0; j < 3; ++j)
        total += std::exp(values[row * 3 + j]);
      for (std::size_t j = 0; j < 3; ++j)
        EXPECT_NEAR(got[row * 3 + j], std::exp(values[row * 3 + j]) / total, 1e-6);
    }
  }
}

TEST(AutocastOps, WideRangeFunctionsRunInF32AndTheRestKeepTheirDtype) {
  const Device device = bf16_device(Device::ndarray());
  const Tensor<1> x = on<1>(device, {0.5f, 1.5f}, {2}).cast(DType::BF16);
  EXPECT_EQ(x.exp().dtype(), DType::F32);
  EXPECT_EQ(x.log().dtype(), DType::F32);
  EXPECT_EQ(x.recip().dtype(), DType::F32);
  EXPECT_EQ(x.powf_scalar(2.5).dtype(), DType::F32);
  EXPECT_EQ(activation::relu(x).dtype(), DType::BF16);
  EXPECT_EQ(x.tanh().dtype(), DType::BF16);
  EXPECT_EQ(x.add(x).dtype(), DType::BF16);
  // Mixed float dtypes promote as without autocast.
  EXPECT_EQ(x.add(x.cast(DType::F32)).dtype(), DType::F32);
  // An f32 input of an f32-policy op is left as it is.
  EXPECT_EQ(x.cast(DType::F32).exp().dtype(), DType::F32);
}

TEST(AutocastOps, F64AndIntegerInputsAreNotLowered) {
  const Device device = bf16_device(Device::ndarray());
  const Tensor<2> x = Tensor<2>::ones({2, 2}, TensorCreationOptions(device).with_dtype(DType::F64));
  EXPECT_EQ(x.matmul(x).dtype(), DType::F64);
  const Tensor<2, Int> i = Tensor<2, Int>::ones({2, 2}, device);
  EXPECT_EQ(i.matmul(i).dtype(), i.dtype());
}

TEST(AutocastOps, AnInputOnAnAutocastDeviceIsEnoughAndResultsCarryTheFlag) {
  const Device plain = Device::ndarray();
  const Tensor<2> x = on<2>(plain, {1, 2, 3, 4}, {2, 2});
  const Tensor<2> w = on<2>(bf16_device(plain), {1, 0, 0, 1}, {2, 2});
  const Tensor<2> y = x.matmul(w);
  EXPECT_EQ(y.dtype(), DType::BF16);
  EXPECT_EQ(y.device().autocast_dtype(), FloatDType::BF16);
  // So the next op follows the policy too.
  EXPECT_EQ(y.sum().dtype(), DType::F32);
}

TEST(AutocastOps, InferenceUnderNoGradGuardIsAutocastToo) {
  const Device device = bf16_device(Device::ndarray()).autodiff();
  const NoGradGuard no_grad;
  const Tensor<2> x = on<2>(device, {1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(x.matmul(x).dtype(), DType::BF16);
}

TEST(AutocastOps, WithoutAutocastOpsRunInTheirDtypes) {
  const Tensor<2> x = on<2>(Device::ndarray(), {1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(x.matmul(x).dtype(), DType::F32);
  EXPECT_EQ(x.cast(DType::BF16).sum().dtype(), DType::BF16);
}

}  // namespace
}  // namespace ember
