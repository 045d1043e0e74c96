// Autodiff on an autocast device: the policy's casts are recorded ops, so gradients reach f32
// parameters in f32 (master weights), close to the gradients of the f32 model; backward runs in
// the dtypes of the forward ops, never re-cast.
#include <cmath>
#include <string>

#include "autodiff_test_util.h"
#include "support/devices_under_test.h"
#include "tensor/autocast.h"

namespace ember::test {
namespace {

/// A two-layer MLP with f32 parameters, as nn::Linear holds them: w1 [16, 8], w2 [4, 16].
struct Mlp {
  Tensor<2> w1, w2;
  Tensor<1> b1, b2;

  static Mlp init(const Device& device) {
    device.seed(11);
    const auto param = [&](const Tensor<2>::Dims& dims) {
      return Tensor<2>::random(dims, Distribution::uniform(-0.5, 0.5), device).require_grad();
    };
    const auto bias = [&](int64_t n) {
      return Tensor<1>::random({n}, Distribution::uniform(-0.5, 0.5), device).require_grad();
    };
    return {param({16, 8}), param({4, 16}), bias(16), bias(4)};
  }

  Tensor<1> loss(const Tensor<2>& x, const Tensor<1, Int>& targets) const {
    const Tensor<2> h = activation::relu(module::linear(x, w1, b1));
    return module::cross_entropy(module::linear(h, w2, b2), targets);
  }
};

/// The MLP's loss gradients on device (its own parameters and data, the same values on every
/// device for one seed), in the order w1, w2, b1, b2.
std::vector<std::pair<DType, std::vector<float>>> mlp_gradients(const Device& device) {
  const Mlp mlp = Mlp::init(device);
  device.seed(12);
  const Tensor<2> x = Tensor<2>::random({6, 8}, Distribution::normal(0.0, 1.0), device);
  const Tensor<1, Int> targets = Tensor<1, Int>::from_data(
      TensorData(std::vector<int64_t>{0, 3, 1, 2, 3, 0}, Shape{6}), device);
  const Gradients grads = mlp.loss(x, targets).backward();
  std::vector<std::pair<DType, std::vector<float>>> out;
  const auto add = [&](const auto& param) {
    const auto grad = param.grad(grads);
    EXPECT_TRUE(grad.has_value());
    if (grad) out.emplace_back(grad->dtype(), values<float>(*grad));
  };
  add(mlp.w1);
  add(mlp.w2);
  add(mlp.b1);
  add(mlp.b2);
  return out;
}

/// The largest gradient element of all parameters: the scale of the model's gradient.
double largest_of(const std::vector<std::pair<DType, std::vector<float>>>& grads) {
  double largest = 0;
  for (const auto& [dtype, values] : grads) {
    for (float v : values)
      largest = std::max(largest, static_cast<double>(std::abs(v)));
  }
  return largest;
}

/// got close to want elementwise: |got - want| <= rtol (|want| + scale). The second term is the
/// atol of a whole model's gradient: rounding the logits to f16 or bf16 moves every gradient by
/// about rtol times the gradient's scale, which is most of a small element (a bias's).
void expect_close(const std::vector<float>& got, const std::vector<float>& want, double rtol,
                  double scale) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], rtol * (std::abs(want[i]) + scale)) << "element " << i;
}

// PyTorch's tolerances for the reduced dtypes (torch.testing): bf16 rtol 1.6e-2, f16 1e-3.
TEST(AutocastBackward, MlpGradientsArriveInF32CloseToTheF32Gradients) {
  for (const Device& device : devices_under_test()) {
    const std::vector<std::pair<DType, std::vector<float>>> reference =
        mlp_gradients(device.autodiff());
    for (const auto& [dtype, rtol] :
         {std::pair{FloatDType::BF16, 1.6e-2}, std::pair{FloatDType::F16, 1e-3}}) {
      // Autocast to a dtype the device lacks (bf16 on vulkan) throws, as configure does.
      if (!device.supports_dtype(to_dtype(dtype))) continue;
      SCOPED_TRACE(device.name() + " " + std::string(dtype_name(to_dtype(dtype))));
      const auto got = mlp_gradients(device.autodiff().autocast(dtype));
      ASSERT_EQ(got.size(), reference.size());
      for (std::size_t p = 0; p < got.size(); ++p) {
        EXPECT_EQ(got[p].first, DType::F32) << "parameter " << p;
        expect_close(got[p].second, reference[p].second, rtol, largest_of(reference));
      }
    }
  }
}

TEST(AutocastBackward, TheGradientsDifferFromF32OnesByBf16Rounding) {
  // Otherwise the previous test would pass with autocast doing nothing.
  const auto plain = mlp_gradients(autodiff_device());
  const auto lowered = mlp_gradients(autodiff_device().autocast(FloatDType::BF16));
  EXPECT_NE(plain[0].second, lowered[0].second);
}

// The batch dims of w broadcast, so its gradient sums x^T g over them: a sum of bf16 values.
// Re-cast by the policy it would come out f32, not w's bf16, and the pass would stop there.
TEST(AutocastBackward, BackwardOpsKeepTheForwardDtypes) {
  const Device device = autodiff_device().autocast(FloatDType::BF16);
  device.seed(3);
  const Tensor<3> x = Tensor<3>::random({3, 2, 4}, Distribution::uniform(-1, 1), device)
                          .cast(DType::BF16)
                          .require_grad();
  const Tensor<3> w = Tensor<3>::random({1, 4, 5}, Distribution::uniform(-1, 1), device)
                          .cast(DType::BF16)
                          .require_grad();
  const Tensor<3> y = x.matmul(w);
  EXPECT_EQ(y.dtype(), DType::BF16);
  const Gradients grads = y.exp().sum().backward();
  // Each gradient in its leaf's dtype: the rules ran in bf16.
  EXPECT_EQ(w.grad(grads)->dtype(), DType::BF16);
  EXPECT_EQ(x.grad(grads)->dtype(), DType::BF16);
  // The same values as the same rules run on the same bf16 tensors without autocast, where only
  // exp's input is cast to f32 by hand, as the policy did in the forward pass.
  const Device plain = autodiff_device();
  const Tensor<3> xp = x.detach().to_device(plain).require_grad();
  const Tensor<3> wp = w.detach().to_device(plain).require_grad();
  const Gradients want = xp.matmul(wp).cast(DType::F32).exp().sum().backward();
  EXPECT_EQ(values<float>(*w.grad(grads)), values<float>(*wp.grad(want)));
  EXPECT_EQ(values<float>(*x.grad(grads)), values<float>(*xp.grad(want)));
}

TEST(AutocastBackward, SuspendedAutocastRunsOpsInTheirDtypes) {
  const Tensor<2> x = Tensor<2>::ones({2, 2}, autodiff_device().autocast(FloatDType::BF16));
  EXPECT_EQ(x.matmul(x).dtype(), DType::BF16);
  {
    const tensor::AutocastSuspended suspended;
    EXPECT_EQ(x.matmul(x).dtype(), DType::F32);
  }
  EXPECT_EQ(x.matmul(x).dtype(), DType::BF16);
}

// Balanced checkpointing recomputes memory-bound ops in backward: they must repeat the forward
// pass's dtypes, so the gradients equal Disabled's bit for bit.
TEST(AutocastBackward, CheckpointingGivesTheSameGradients) {
  const Device device = autodiff_device().autocast(FloatDType::BF16);
  const auto disabled = mlp_gradients(device);
  const auto balanced = mlp_gradients(device.gradient_checkpointing());
  ASSERT_EQ(disabled.size(), balanced.size());
  for (std::size_t p = 0; p < disabled.size(); ++p)
    EXPECT_EQ(disabled[p].second, balanced[p].second) << "parameter " << p;
}

}  // namespace
}  // namespace ember::test
