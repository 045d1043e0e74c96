// Spec items: autodiff, is_autodiff, without_autodiff, inner, gradient_checkpointing and
// gradient_checkpointing_strategy.
#include <gtest/gtest.h>

#include "device_test_util.h"
#include "ember/device.h"
#include "ember/error.h"

namespace ember {
namespace {

using Strategy = GradientCheckpointingStrategy;

TEST(DeviceSpec, IsAutodiffIsOffByDefaultAndOnAfterAutodiff) {
  const Device device = Device::ndarray();
  EXPECT_FALSE(device.is_autodiff());
  EXPECT_TRUE(device.autodiff().is_autodiff());
  EXPECT_FALSE(device.is_autodiff()) << "autodiff() returns a new device";
}

TEST(DeviceSpec, AutodiffIsIdempotentAndKeepsStrategy) {
  const Device once = Device::ndarray().autodiff();
  const Device twice = once.autodiff();
  EXPECT_TRUE(twice.is_autodiff());
  EXPECT_EQ(twice.gradient_checkpointing_strategy(), Strategy::Disabled);
  const Device checkpointed = once.gradient_checkpointing().autodiff();
  EXPECT_EQ(checkpointed.gradient_checkpointing_strategy(), Strategy::Balanced);
}

TEST(DeviceSpec, WithoutAutodiffIsIdempotent) {
  const Device device = Device::ndarray().autodiff().gradient_checkpointing();
  const Device off = device.without_autodiff();
  EXPECT_FALSE(off.is_autodiff());
  EXPECT_FALSE(off.without_autodiff().is_autodiff());
  EXPECT_EQ(off.gradient_checkpointing_strategy(), std::nullopt);
  EXPECT_FALSE(Device::ndarray().without_autodiff().is_autodiff());
}

TEST(DeviceSpec, InnerIsWithoutAutodiff) {
  const Device inner = Device::ndarray().autodiff().gradient_checkpointing().inner();
  EXPECT_FALSE(inner.is_autodiff());
  EXPECT_EQ(inner.gradient_checkpointing_strategy(), std::nullopt);
  EXPECT_EQ(inner, Device::ndarray());
}

TEST(DeviceSpec, GradientCheckpointingStrategyIsNulloptWithoutAutodiffAndDisabledByDefault) {
  EXPECT_EQ(Device::ndarray().gradient_checkpointing_strategy(), std::nullopt);
  EXPECT_EQ(Device::ndarray().autodiff().gradient_checkpointing_strategy(), Strategy::Disabled);
}

TEST(DeviceSpec, GradientCheckpointingSetsBalanced) {
  const Device device = Device::ndarray().autodiff().gradient_checkpointing();
  EXPECT_TRUE(device.is_autodiff());
  EXPECT_EQ(device.gradient_checkpointing_strategy(), Strategy::Balanced);
  EXPECT_EQ(device.gradient_checkpointing().gradient_checkpointing_strategy(), Strategy::Balanced);
}

TEST(DeviceSpec, GradientCheckpointingWithoutAutodiffThrows) {
  const std::string message =
      test::error_message<InvalidArgument>([] { Device::ndarray().gradient_checkpointing(); });
  EXPECT_TRUE(test::contains(message, "[gradient_checkpointing]"));
  EXPECT_TRUE(test::contains(message, "ndarray"));
}

TEST(DeviceSpec, AutodiffAgainAfterWithoutAutodiffStartsWithCheckpointingDisabled) {
  const Device device =
      Device::ndarray().autodiff().gradient_checkpointing().without_autodiff().autodiff();
  EXPECT_EQ(device.gradient_checkpointing_strategy(), Strategy::Disabled);
}

}  // namespace
}  // namespace ember
