// A steady training loop on Device::cpu(): a small MLP, autodiff and SGD for 20 steps. Once the
// first steps have filled the pools, every later step finds the memory it needs there, so the
// bytes reserved stop growing (the "memory never grows without bound").
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "ember/activation_functions.h"
#include "ember/device.h"
#include "ember/functional.h"
#include "ember/nn/linear.h"
#include "ember/optim/gradients_params.h"
#include "ember/optim/sgd.h"
#include "ember/tensor.h"
#include "support/steady_training.h"

namespace ember::cpu {
namespace {

TEST(CpuSteadyTraining, BytesReservedStopGrowingAfterTheFirstSteps) {
  const Device device = Device::cpu().autodiff();
  device.memory_cleanup();  // start from pools holding only live slices
  device.seed(7);
  ember::test::SteadyMlp model = device.memory_persistent_allocations(device, [](const Device& d) {
    return ember::test::SteadyMlp{nn::LinearConfig{32, 1280}.init(d),
                                  nn::LinearConfig{1280, 16}.init(d)};
  });
  // Sizes that use every kind of pool: the hidden activations [1024, 1280] f32 (5 MiB) take
  // dedicated pages, the first weight (160 KiB) and the outputs (64 KiB) small slices.
  const Tensor<2> inputs = ember::test::fixed_matrix(1024, 32, device);
  const Tensor<2> targets = ember::test::fixed_matrix(1024, 16, device) * 0.5;
  optim::Sgd sgd;

  const uint64_t before_training = device.memory_pool_usage()->bytes_reserved;
  std::vector<uint64_t> reserved;
  std::vector<double> losses;
  // 20 steps: 15 after the pools filled must reserve nothing more (a step takes ~1 s under ASan).
  for (int step = 0; step < 20; ++step) {
    const Tensor<2> loss = module::mse_loss(model.forward(inputs), targets);
    losses.push_back(loss.into_scalar<double>());
    sgd.step(model, optim::GradientsParams::from(model, loss.backward()), 0.1);
    reserved.push_back(device.memory_pool_usage()->bytes_reserved);
  }
  EXPECT_LT(losses.back(), losses.front()) << "the loop trains";
  EXPECT_GT(reserved.front(), before_training + 40 * 1024 * 1024)
      << "the first step filled the pools (its 5 MiB activations take dedicated pages)";
  // Pools never shrink without a cleanup (only the persistent initial weights went back, when
  // the first step replaced them), so the tail must be flat.
  for (std::size_t step = 5; step < reserved.size(); ++step)
    EXPECT_EQ(reserved[step], reserved[4]) << "step " << step;
}

}  // namespace
}  // namespace ember::cpu
