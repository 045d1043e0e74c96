// Gradient checkpointing: Balanced recomputes memory-bound values in backward instead of keeping
// them. It must give the same gradients as Disabled, bit for bit, keep at least 40% fewer bytes
// on the benchmark's model (the target), and recompute each value at most once.
#include <cstdint>

#include "../../bench/mlp_model.h"
#include "autodiff_test_util.h"
#include "core/device_context.h"

namespace ember::test {
namespace {

Device disabled() {
  return autodiff_device();
}
Device balanced() {
  return autodiff_device().gradient_checkpointing();
}

/// The benchmark's 16-layer model, narrower so that the test stays fast.
const bench::MlpSize kSize{16, 32, 8};

/// The raw bytes of every parameter's gradient, weights then biases.
std::vector<std::vector<std::byte>> gradient_bytes(const Device& device) {
  const bench::Mlp mlp = bench::make_mlp(kSize, device, 7);
  const Gradients grads = bench::forward_loss(mlp).backward();
  std::vector<std::vector<std::byte>> bytes;
  for (const std::vector<Tensor<2>>* params : {&mlp.weights, &mlp.biases}) {
    for (const Tensor<2>& p : *params) {
      const TensorData data = p.grad(grads).value().into_data();
      bytes.emplace_back(data.bytes().begin(), data.bytes().end());
    }
  }
  return bytes;
}

uint64_t retained_after_forward(const Device& device) {
  const uint64_t before = autodiff::retained_bytes(device);
  const bench::Mlp mlp = bench::make_mlp(kSize, device, 7);
  const Tensor<1> loss = bench::forward_loss(mlp);
  return autodiff::retained_bytes(device) - before;
}

/// How many ops (and uploads) the device ran so far.
uint64_t work_count() {
  return detail::DeviceContext::of(Device::ndarray().as_dispatch())->work_count();
}

TEST(Checkpointing, BalancedGivesTheSameGradientsAsDisabledBitForBit) {
  const auto expected = gradient_bytes(disabled());
  const auto got = gradient_bytes(balanced());
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(got[i], expected[i]) << "gradient of parameter " << i;
}

TEST(Checkpointing, BalancedKeepsAtLeast40PercentFewerBytes) {
  const uint64_t kept_disabled = retained_after_forward(disabled());
  const uint64_t kept_balanced = retained_after_forward(balanced());
  EXPECT_GT(kept_balanced, 0u);
  EXPECT_LE(kept_balanced, kept_disabled * 6 / 10)
      << "Balanced keeps " << kept_balanced << " bytes, Disabled " << kept_disabled;
}

/// Backward of a memory-bound value h read by two matmuls, each of which needs its inputs; the
/// number of ops the backward pass ran.
uint64_t ops_in_backward(const Device& device) {
  const Tensor<2> x = Tensor<2>::ones({2, 2}, device).require_grad();
  const Tensor<2> w = Tensor<2>::ones({2, 2}, device).require_grad();
  const Tensor<2> h = x.mul_scalar(3);
  const Tensor<1> loss = h.matmul(w).sum().add(w.matmul(h).sum());
  const uint64_t before = work_count();
  const Gradients grads = loss.backward();
  return work_count() - before;
}

TEST(Checkpointing, EachValueIsRecomputedAtMostOnce) {
  // Disabled keeps h; Balanced runs x * 3 once more, however many nodes read h.
  EXPECT_EQ(ops_in_backward(balanced()), ops_in_backward(disabled()) + 1);
}

/// d(sum sin^n(x))/dx for a chain of n sines, whose backward reads every intermediate value.
std::vector<float> deep_sine_gradient(const Device& device, int depth) {
  const Tensor<1> x = Tensor<1>::from_floats({0.5, 1.0}, device).require_grad();
  Tensor<1> y = x;
  for (int i = 0; i < depth; ++i)
    y = y.sin();
  return grad_of(x, y.sum().backward());
}

TEST(Checkpointing, DeepRecomputationNeedsNoRecursion) {
  // Backward's first step needs the last sine's input: 2000 recomputations, one after another.
  on_small_stack([] {
    EXPECT_EQ(deep_sine_gradient(balanced(), 2000), deep_sine_gradient(disabled(), 2000));
  });
}

TEST(Checkpointing, ReleasedValuesLeaveNoRetainedBytes) {
  const uint64_t before = autodiff::retained_bytes(balanced());
  const bench::Mlp mlp = bench::make_mlp(kSize, balanced(), 7);
  const Tensor<1> loss = bench::forward_loss(mlp);
  loss.backward();
  EXPECT_EQ(autodiff::retained_bytes(balanced()), before);
}

}  // namespace
}  // namespace ember::test
