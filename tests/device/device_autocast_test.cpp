// Device::autocast, without_autocast and autocast_dtype: a flag of the Device value, like
// autodiff, that composes with autodiff and checkpointing in any order.
#include <gtest/gtest.h>

#include <functional>
#include <sstream>

#include "device_test_util.h"
#include "ember/ember.h"

namespace ember {
namespace {

std::string printed(const Device& d) {
  std::ostringstream out;
  out << d;
  return out.str();
}

TEST(DeviceAutocast, IsOffByDefaultAndSetByAutocast) {
  const Device device = Device::ndarray();
  EXPECT_EQ(device.autocast_dtype(), std::nullopt);
  EXPECT_EQ(device.autocast(FloatDType::BF16).autocast_dtype(), FloatDType::BF16);
  EXPECT_EQ(device.autocast(FloatDType::F16).autocast_dtype(), FloatDType::F16);
  EXPECT_EQ(device.autocast_dtype(), std::nullopt) << "autocast() returns a new device";
}

TEST(DeviceAutocast, IsIdempotentAndTheLastDtypeWins) {
  const Device once = Device::ndarray().autocast(FloatDType::BF16);
  EXPECT_EQ(once.autocast(FloatDType::BF16).autocast_dtype(), FloatDType::BF16);
  EXPECT_EQ(once.autocast(FloatDType::F16).autocast_dtype(), FloatDType::F16);
  EXPECT_EQ(once.without_autocast().autocast_dtype(), std::nullopt);
  EXPECT_EQ(once.without_autocast().without_autocast().autocast_dtype(), std::nullopt);
}

TEST(DeviceAutocast, ComposesWithAutodiffAndCheckpointingInAnyOrder) {
  const Device base = Device::ndarray();
  const Device a = base.autocast(FloatDType::BF16).autodiff().gradient_checkpointing();
  const Device b = base.autodiff().gradient_checkpointing().autocast(FloatDType::BF16);
  const Device c = base.autodiff().autocast(FloatDType::BF16).gradient_checkpointing();
  for (const Device& d : {a, b, c}) {
    EXPECT_TRUE(d.is_autodiff());
    EXPECT_EQ(d.gradient_checkpointing_strategy(), GradientCheckpointingStrategy::Balanced);
    EXPECT_EQ(d.autocast_dtype(), FloatDType::BF16);
  }
  // Each switch leaves the other flags alone.
  EXPECT_EQ(a.without_autodiff().autocast_dtype(), FloatDType::BF16);
  EXPECT_EQ(a.without_autocast().gradient_checkpointing_strategy(),
            GradientCheckpointingStrategy::Balanced);
}

TEST(DeviceAutocast, EqualityAndHashIgnoreIt) {
  const Device plain = Device::ndarray();
  const Device autocast = plain.autocast(FloatDType::F16).autodiff();
  EXPECT_EQ(plain, autocast);
  EXPECT_EQ(std::hash<Device>{}(plain), std::hash<Device>{}(autocast));
}

TEST(DeviceAutocast, PrintingShowsIt) {
  const Device device = Device::ndarray();
  EXPECT_EQ(printed(device.autocast(FloatDType::BF16)), "autocast(bf16, ndarray)");
  EXPECT_EQ(printed(device.autocast(FloatDType::F16).autodiff()),
            "autodiff(autocast(f16, ndarray))");
  EXPECT_EQ(printed(device.autodiff()), "autodiff(ndarray)");
  EXPECT_EQ(device.autocast(FloatDType::BF16).name(), "ndarray") << "the name stays parseable";
}

TEST(DeviceAutocast, FullPrecisionDtypesAreRefused) {
  for (const FloatDType dtype : {FloatDType::F32, FloatDType::F64}) {
    const std::string message =
        test::error_message<InvalidArgument>([&] { Device::ndarray().autocast(dtype); });
    EXPECT_TRUE(test::contains(message, "[autocast]"));
    EXPECT_TRUE(test::contains(message, "bf16 or f16"));
  }
}

TEST(DeviceAutocast, CreationKeepsTheDefaultFloatDtype) {
  // Parameters are created in the default float dtype (master weights), not the autocast one.
  const Device device = Device::ndarray().autocast(FloatDType::BF16).autodiff();
  EXPECT_EQ(device.settings().float_dtype, FloatDType::F32);
  const Tensor<2> zeros = Tensor<2>::zeros({2, 3}, device);
  EXPECT_EQ(zeros.dtype(), DType::F32);
  EXPECT_EQ(Tensor<1>::random({4}, Distribution::Default, device).dtype(), DType::F32);
  EXPECT_EQ(zeros.device().autocast_dtype(), FloatDType::BF16) << "tensors carry the flag";
}

}  // namespace
}  // namespace ember
