// Learning-rate schedulers against torch.optim.lr_scheduler (golden.json) and by hand; their
// state; their checks.
#include <cmath>
#include <memory>
#include <string>

#include "optim_test_util.h"

namespace ember::optim::test {
namespace {

/// Expects scheduler's lr(), stepped, to give the golden schedule name.
void expect_schedule(LrScheduler& scheduler, const std::string& name) {
  SCOPED_TRACE(name);
  const json& lrs = golden().at("schedulers").at(name);
  for (std::size_t step = 0; step < lrs.size(); ++step) {
    EXPECT_NEAR(scheduler.lr(), lrs[step].get<double>(), 1e-15) << "step " << step;
    EXPECT_EQ(scheduler.lr_at(static_cast<int64_t>(step)), scheduler.lr());
    scheduler.step();
  }
}

TEST(LrScheduler, MatchesTorchLrScheduler) {
  StepLr step_lr = StepLrConfig{.initial_lr = 0.1, .step_size = 3, .gamma = 0.5}.init();
  expect_schedule(step_lr, "step");
  ExponentialLr exponential = ExponentialLrConfig{.initial_lr = 0.1, .gamma = 0.9}.init();
  expect_schedule(exponential, "exponential");
  CosineAnnealingLr cosine =
      CosineAnnealingLrConfig{.initial_lr = 0.1, .t_max = 5, .eta_min = 0.01}.init();
  expect_schedule(cosine, "cosine");
  LinearLr linear = LinearLrConfig{.from = 0.01, .to = 0.1, .steps = 4}.init();
  expect_schedule(linear, "linear");
  SequentialLr warmup_cosine = SequentialLrConfig{
      {shared(LinearLrConfig{.from = 0.02, .to = 0.1, .steps = 3}.init()),
       shared(CosineAnnealingLrConfig{0.1, 5, 0.001}.init())},
      {3}}.init();
  expect_schedule(warmup_cosine, "warmup_cosine");
  NoamLr noam = NoamLrConfig{.d_model = 16, .warmup = 4, .factor = 2.0}.init();
  expect_schedule(noam, "noam");
}

TEST(LrScheduler, NoamByHand) {
  // factor / sqrt(d_model) = 2 / 4; the rise s / warmup^1.5 = s / 8 meets 1 / sqrt(s) at s = 4.
  const NoamLr noam = NoamLrConfig{16, 4, 2.0}.init();
  EXPECT_DOUBLE_EQ(noam.lr_at(0), 0.5 / 8.0);
  EXPECT_DOUBLE_EQ(noam.lr_at(3), 0.5 * 0.5);
  EXPECT_DOUBLE_EQ(noam.lr_at(15), 0.5 / 4.0);
}

TEST(LrScheduler, ConstantAndPastTheEnd) {
  const ConstantLr constant = ConstantLrConfig{0.3}.init();
  EXPECT_EQ(constant.lr_at(0), 0.3);
  EXPECT_EQ(constant.lr_at(1000000), 0.3);
  const LinearLr warmup = LinearLrConfig{0.0, 1.0, 4}.init();
  EXPECT_EQ(warmup.lr_at(2), 0.5);
  EXPECT_EQ(warmup.lr_at(400), 1.0);
  // Cosine with eta_min 0 is back at its start after two periods.
  EXPECT_NEAR((CosineAnnealingLrConfig{1.0, 10}.init().lr_at(20)), 1.0, 1e-15);
}

TEST(LrScheduler, StateRoundTripsTheStep) {
  ExponentialLr original = ExponentialLrConfig{1.0, 0.5}.init();
  for (int i = 0; i < 3; ++i)
    original.step();
  const OptimizerState state = original.state();
  EXPECT_EQ(state.scalars.at("step"), 3.0);
  EXPECT_TRUE(state.tensors.empty());
  ExponentialLr restored = ExponentialLrConfig{1.0, 0.5}.init();
  restored.load_state(state);
  EXPECT_EQ(restored.current_step(), 3);
  EXPECT_EQ(restored.lr(), 0.125);
}

TEST(LrScheduler, LoadStateRejectsAnythingButAStepCount) {
  StepLr scheduler = StepLrConfig{1.0, 2}.init();
  scheduler.step();
  EXPECT_INVALID(scheduler.load_state({}), "[StepLr] state lacks entry step");
  EXPECT_INVALID(scheduler.load_state({{}, {{"step", -1.0}}}), "[StepLr] state entry step is -1");
  EXPECT_INVALID(scheduler.load_state({{}, {{"step", 1.5}}}), "not a non-negative integer");
  EXPECT_INVALID(scheduler.load_state({{}, {{"step", 1.0}, {"epoch", 2.0}}}),
                 "[StepLr] unknown state entry 'epoch'");
  OptimizerState with_tensor{{}, {{"step", 1.0}}};
  with_tensor.tensors.emplace("lr", TensorData::zeros(Shape{1}, DType::F64));
  EXPECT_INVALID(scheduler.load_state(with_tensor), "[StepLr] unexpected state tensor 'lr'");
  EXPECT_EQ(scheduler.current_step(), 1);
}

TEST(LrScheduler, ConfigsAreChecked) {
  EXPECT_INVALID(ConstantLrConfig{-0.1}.init(), "[ConstantLr] lr -0.1 must be finite and >= 0");
  EXPECT_INVALID((StepLrConfig{0.1, 0}.init()), "[StepLr] step_size 0 must be >= 1");
  EXPECT_INVALID((StepLrConfig{0.1, 2, 0.0}.init()), "[StepLr] gamma 0 must be finite and > 0");
  EXPECT_INVALID((ExponentialLrConfig{0.1, -0.5}.init()), "[ExponentialLr] gamma -0.5");
  EXPECT_INVALID((CosineAnnealingLrConfig{0.1, 0}.init()), "[CosineAnnealingLr] t_max 0");
  EXPECT_INVALID((LinearLrConfig{std::nan(""), 0.1, 3}.init()), "[LinearLr] from nan");
  EXPECT_INVALID((NoamLrConfig{0, 4}.init()), "[NoamLr] d_model 0");
  EXPECT_INVALID(ConstantLrConfig{0.1}.init().lr_at(-1), "[ConstantLr] step -1 must be >= 0");
}

TEST(LrScheduler, SequentialConfigIsChecked) {
  const auto constant = shared(ConstantLrConfig{0.1}.init());
  EXPECT_INVALID(SequentialLrConfig{}.init(), "[SequentialLr] needs at least one scheduler");
  EXPECT_INVALID((SequentialLrConfig{{constant, nullptr}, {2}}.init()),
                 "[SequentialLr] scheduler 1 is null");
  EXPECT_INVALID((SequentialLrConfig{{constant, constant}, {}}.init()),
                 "[SequentialLr] 2 schedulers need 1 milestones, got 0");
  EXPECT_INVALID((SequentialLrConfig{{constant, constant, constant}, {3, 3}}.init()),
                 "[SequentialLr] milestone 3 must be above 3");
  EXPECT_INVALID((SequentialLrConfig{{constant, constant}, {0}}.init()),
                 "[SequentialLr] milestone 0 must be above 0");
}

}  // namespace
}  // namespace ember::optim::test
