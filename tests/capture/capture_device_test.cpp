// The capture device as the spec's Device API sees it: its factory, settings, supports_dtype and
// enumerate, and reading a capture tensor (an error naming the way to compute it).
#include <gtest/gtest.h>

#include <sstream>

#include "device/device_test_util.h"
#include "ember/ember.h"

namespace ember::test {
namespace {

TEST(CaptureDevice, IsNamedByItsFactoryAndItsNameAndListedOnlyWhenAskedFor) {
  const Device capture = Device::capture();
  EXPECT_EQ(capture.name(), "capture");
  EXPECT_EQ(Device::from_name("capture"), capture);
  const Devices named = Device::enumerate(DeviceType::Capture);
  ASSERT_EQ(named.size(), 1u);
  EXPECT_EQ(named[0], capture);
  // It computes nothing, so the devices code runs work on never include it.
  for (const Device& device : Device::enumerate(DeviceFilter::all()))
    EXPECT_NE(device, capture);
}

TEST(CaptureDevice, SupportsEveryDtypeSinceTheReplayDeviceComputes) {
  for (DType dtype : kAllDTypes)
    EXPECT_TRUE(Device::capture().supports_dtype(dtype)) << dtype;
}

TEST(CaptureDevice, TensorsHaveTheSettingsDtypesAndShapesWithoutValues) {
  const Device capture = Device::capture();
  const DeviceSettings settings = capture.settings();
  const Tensor<2> zeros = Tensor<2>::zeros({2, 3}, capture);
  EXPECT_EQ(zeros.dtype(), to_dtype(settings.float_dtype));
  const Tensor<2, Int> indices = Tensor<2, Int>::zeros({4, 1}, capture);
  EXPECT_EQ(indices.dtype(), to_dtype(settings.int_dtype));
  const Tensor<2> product = zeros.matmul(Tensor<2>::ones({3, 5}, capture));
  EXPECT_EQ(product.dims(), (std::array<int64_t, 2>{2, 5}));
  // The first tensor locked the settings, as on every device.
  Device mutable_capture = capture;
  EXPECT_THROW(mutable_capture.configure(FloatDType::F64), DeviceError);
}

TEST(CaptureDevice, ReadingValuesIsAnErrorNamingGraphReplay) {
  const Tensor<1> x = Tensor<1>::from_floats({1.0, 2.0}, Device::capture());
  const std::string message = error_message<InvalidArgument>([&] { (void)(x * 2.0).into_data(); });
  EXPECT_TRUE(contains(message, "[into_data]"));
  EXPECT_TRUE(contains(message, "symbolic"));
  EXPECT_TRUE(contains(message, "Graph::replay"));
  EXPECT_THROW((void)x.to_device(Device::ndarray()), InvalidArgument);
  std::ostringstream printed;
  printed << x;
  EXPECT_TRUE(contains(printed.str(), "data: symbolic")) << printed.str();
}

TEST(CaptureDevice, BadShapesAreRefusedWhenRecordedAsOnAnyDevice) {
  const Device capture = Device::capture();
  const std::string message = error_message<InvalidArgument>([&] {
    (void)Tensor<2>::zeros({2, 3}, capture).matmul(Tensor<2>::zeros({4, 5}, capture));
  });
  EXPECT_TRUE(contains(message, "[matmul]"));
}

}  // namespace
}  // namespace ember::test
