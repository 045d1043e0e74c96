// Optimizer state: its names, the bit-for-bit resume through state / load_state, the checks of
// load_state, and which params a step touches.
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "optim_test_util.h"

namespace ember::optim::test {
namespace {

using MakeOptimizer = std::function<std::unique_ptr<Optimizer>()>;

struct Kind {
  std::string name;
  MakeOptimizer make;
  /// The state entries of one param ("weight") after a step.
  std::vector<std::string> tensor_slots;
  std::vector<std::string> scalar_slots;
};

void PrintTo(const Kind& kind, std::ostream* os) {
  *os << kind.name;
}

/// Every optimizer, configured so that it keeps all of its slots.
std::vector<Kind> kinds() {
  return {
      {"Sgd",
       [] { return std::make_unique<Sgd>(SgdConfig{.momentum = 0.9, .nesterov = true}); },
       {"momentum_buffer"},
       {}},
      {"Adam",
       [] { return std::make_unique<Adam>(AdamConfig{.weight_decay = 0.1, .amsgrad = true}); },
       {"exp_avg", "exp_avg_sq", "max_exp_avg_sq"},
       {"step"}},
      {"AdamW",
       [] { return std::make_unique<AdamW>(AdamWConfig{.amsgrad = true}); },
       {"exp_avg", "exp_avg_sq", "max_exp_avg_sq"},
       {"step"}},
      {"RmsProp",
       [] { return std::make_unique<RmsProp>(RmsPropConfig{.momentum = 0.5, .centered = true}); },
       {"square_avg", "grad_avg", "momentum_buffer"},
       {"step"}},
      {"Adagrad",
       [] { return std::make_unique<Adagrad>(AdagradConfig{.lr_decay = 0.1}); },
       {"sum"},
       {"step"}},
  };
}

/// Steps first, first + 1, ... with fixed_grads.
void run_steps(Optimizer& optimizer, nn::Linear& model, int first, int count) {
  for (int step = first; step < first + count; ++step)
    optimizer.step(model, fixed_grads(step), 0.05);
}

class OptimizerStates : public ::testing::TestWithParam<Kind> {};

TEST_P(OptimizerStates, NamesEachParamsSlots) {
  std::unique_ptr<Optimizer> optimizer = GetParam().make();
  EXPECT_TRUE(optimizer->state().tensors.empty());
  nn::Linear model = small_linear();
  run_steps(*optimizer, model, 0, 3);
  const optim::OptimizerState state = optimizer->state();
  std::vector<std::string> tensors, scalars;
  for (const char* param : {"bias", "weight"}) {
    for (const std::string& slot : GetParam().tensor_slots)
      tensors.push_back(std::string(param) + "." + slot);
    for (const std::string& slot : GetParam().scalar_slots)
      scalars.push_back(std::string(param) + "." + slot);
  }
  std::sort(tensors.begin(), tensors.end());
  std::vector<std::string> saved_tensors, saved_scalars;
  for (const auto& [name, data] : state.tensors) {
    saved_tensors.push_back(name);
    EXPECT_EQ(data.shape(), (name.starts_with("weight") ? Shape{2, 3} : Shape{2})) << name;
    EXPECT_EQ(data.dtype(), DType::F64) << name;
  }
  for (const auto& [name, value] : state.scalars) {
    saved_scalars.push_back(name);
    EXPECT_EQ(value, 3.0) << name;  // every counter is a step count
  }
  EXPECT_EQ(saved_tensors, tensors);
  EXPECT_EQ(saved_scalars, scalars);
}

TEST_P(OptimizerStates, ResumingFromSavedStateGivesTheSameParamsBitForBit) {
  std::unique_ptr<Optimizer> original = GetParam().make();
  nn::Linear model = small_linear();
  run_steps(*original, model, 0, 3);
  const optim::OptimizerState saved = original->state();
  nn::Linear copy = model;  // modules are values: a clone

  run_steps(*original, model, 3, 4);
  std::unique_ptr<Optimizer> restored = GetParam().make();
  restored->load_state(saved);
  EXPECT_EQ(restored->state(), saved);  // loaded tensors wait for the next step as they are
  run_steps(*restored, copy, 3, 4);

  expect_identical(model, copy);
  EXPECT_EQ(restored->state(), original->state());
}

TEST_P(OptimizerStates, AnOptimizerCopyIsAClone) {
  std::unique_ptr<Optimizer> optimizer = GetParam().make();
  nn::Linear model = small_linear();
  run_steps(*optimizer, model, 0, 2);
  nn::Linear copy = model;
  std::unique_ptr<Optimizer> twin = GetParam().make();
  twin->load_state(optimizer->state());
  run_steps(*optimizer, model, 2, 1);
  run_steps(*twin, copy, 2, 1);
  expect_identical(model, copy);
}

TEST_P(OptimizerStates, CloneCarriesTheStateAndThenGoesItsOwnWay) {
  std::unique_ptr<Optimizer> optimizer = GetParam().make();
  nn::Linear model = small_linear();
  run_steps(*optimizer, model, 0, 2);
  std::unique_ptr<Optimizer> clone = optimizer->clone();
  EXPECT_EQ(clone->name(), optimizer->name());
  EXPECT_EQ(clone->state(), optimizer->state());
  nn::Linear copy = model;
  run_steps(*clone, copy, 2, 2);  // only the clone steps
  nn::Linear again = model;
  std::unique_ptr<Optimizer> reference = GetParam().make();
  reference->load_state(optimizer->state());
  run_steps(*reference, again, 2, 2);
  expect_identical(copy, again);                  // the clone started from the original's state
  EXPECT_NE(clone->state(), optimizer->state());  // and the original's did not move with it
}

TEST_P(OptimizerStates, LoadStateRejectsAnUnknownEntryAndKeepsItsState) {
  std::unique_ptr<Optimizer> optimizer = GetParam().make();
  nn::Linear model = small_linear();
  run_steps(*optimizer, model, 0, 1);
  const optim::OptimizerState before = optimizer->state();
  optim::OptimizerState bad = before;
  bad.tensors.emplace("weight.velocity", TensorData::zeros(Shape{2, 3}, DType::F64));
  EXPECT_INVALID(optimizer->load_state(bad), "[" + GetParam().name + "]", "'weight.velocity'");
  bad = before;
  bad.scalars.emplace("weight", 1.0);
  EXPECT_INVALID(optimizer->load_state(bad), "unknown state entry 'weight'");
  EXPECT_EQ(optimizer->state(), before);
}

TEST_P(OptimizerStates, LoadStateRejectsAMissingSlot) {
  std::unique_ptr<Optimizer> optimizer = GetParam().make();
  nn::Linear model = small_linear();
  run_steps(*optimizer, model, 0, 1);
  const optim::OptimizerState before = optimizer->state();
  optim::OptimizerState bad = before;
  const std::string missing = "bias." + GetParam().tensor_slots.back();
  bad.tensors.erase(missing);
  if (GetParam().tensor_slots.size() + GetParam().scalar_slots.size() == 1) {
    // bias's only entry gone: bias is a param not updated yet, which is no error.
    optimizer->load_state(bad);
    EXPECT_EQ(optimizer->state(), bad);
    return;
  }
  EXPECT_INVALID(optimizer->load_state(bad), "[" + GetParam().name + "]",
                 "state of bias lacks entry " + missing);
  EXPECT_EQ(optimizer->state(), before);
}

INSTANTIATE_TEST_SUITE_P(Optimizers, OptimizerStates, ::testing::ValuesIn(kinds()),
                         [](const auto& info) { return info.param.name; });

/// An Adam state after one step on small_linear.
optim::OptimizerState adam_state() {
  Adam adam;
  nn::Linear model = small_linear();
  adam.step(model, fixed_grads(0), 0.1);
  return adam.state();
}

TEST(OptimizerStateChecks, LoadStateRejectsTensorsOfOneParamWithDifferentShapes) {
  optim::OptimizerState bad = adam_state();
  bad.tensors.at("weight.exp_avg_sq") = TensorData::zeros(Shape{3, 2}, DType::F64);
  EXPECT_INVALID(Adam().load_state(bad), "[Adam] state entry weight.exp_avg_sq has shape [3, 2]",
                 "weight.exp_avg has [2, 3]");
}

TEST(OptimizerStateChecks, LoadStateRejectsBadCountersAndIntTensors) {
  for (double step : {-1.0, 2.5, std::nan("")}) {
    optim::OptimizerState bad = adam_state();
    bad.scalars.at("bias.step") = step;
    EXPECT_INVALID(Adam().load_state(bad), "[Adam] state entry bias.step", "non-negative integer");
  }
  optim::OptimizerState bad = adam_state();
  bad.tensors.at("bias.exp_avg") = TensorData::zeros(Shape{2}, DType::I64);
  EXPECT_INVALID(Adam().load_state(bad), "[Adam] state entry bias.exp_avg", "not a Float tensor");
}

TEST(OptimizerStateChecks, AnotherOptimizersStateIsRejected) {
  Sgd sgd(SgdConfig{.momentum = 0.9});
  nn::Linear model = small_linear();
  sgd.step(model, fixed_grads(0), 0.1);
  EXPECT_INVALID(Adam().load_state(sgd.state()), "[Adam] unknown state entry", "momentum_buffer");
  // Plain SGD keeps no state at all.
  EXPECT_INVALID(Sgd().load_state(sgd.state()), "[Sgd] unknown state entry", "slots kept: none");
  Sgd plain;
  plain.step(model, fixed_grads(0), 0.1);
  EXPECT_TRUE(plain.state().tensors.empty());
  EXPECT_TRUE(plain.state().scalars.empty());
}

TEST(OptimizerStateChecks, LoadedStateOfAnotherShapeFailsTheStepBeforeAnyUpdate) {
  optim::OptimizerState state = adam_state();
  for (const char* slot : {"bias.exp_avg", "bias.exp_avg_sq"})
    state.tensors.at(slot) = TensorData::zeros(Shape{5}, DType::F64);
  Adam adam;
  adam.load_state(state);
  nn::Linear model = small_linear();
  const nn::Linear before = model;
  // bias comes after weight: weight must not have been updated either.
  EXPECT_INVALID(adam.step(model, fixed_grads(1), 0.1),
                 "[Adam] state entry bias.exp_avg has shape [5] but param bias has [2]");
  expect_identical(model, before);
  EXPECT_EQ(adam.state(), state);
}

TEST(OptimizerStateChecks, LoadedStateTakesTheParamsDtype) {
  optim::OptimizerState state = adam_state();
  for (auto& [name, data] : state.tensors)
    data = data.convert(DType::F32);
  Adam adam;
  adam.load_state(state);
  nn::Linear model = small_linear();
  adam.step(model, fixed_grads(1), 0.1);
  for (const auto& [name, data] : adam.state().tensors)
    EXPECT_EQ(data.dtype(), DType::F64) << name;
}

}  // namespace
}  // namespace ember::optim::test
