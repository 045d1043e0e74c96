// The libtorch device's own semantics (docs/backends/libtorch.md): what it claims (dtypes, no
// pools), a profile window on the wall clock, the same random tensor as ndarray for a seed, every
// byte kept both ways, and a clear error for a libtorch_cuda GPU LibTorch does not see. The
// op-by-op values are the conformance and gradcheck suites' (they run on every device enumerate
// finds, libtorch included).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/device.h"
#include "ember/devices.h"
#include "ember/error.h"
#include "ember/tensor.h"

namespace ember::test {
namespace {

TEST(LibTorchDevice, EnumerateListsTheCpuDeviceFirst) {
  const Devices devices = Device::enumerate(DeviceType::LibTorch);
  ASSERT_FALSE(devices.empty());
  EXPECT_EQ(devices[0], Device::libtorch());
  for (std::size_t i = 1; i < devices.size(); ++i)
    EXPECT_EQ(devices[i], Device::libtorch_cuda(static_cast<int64_t>(i - 1)));
}

TEST(LibTorchDevice, SupportsTheDtypesLibTorchHas) {
  const Device device = Device::libtorch();
  // LibTorch 1.13 has no u16, u32 or u64 tensors.
  for (DType dtype : kAllDTypes) {
    const bool unsigned_wide = dtype == DType::U16 || dtype == DType::U32 || dtype == DType::U64;
    EXPECT_EQ(device.supports_dtype(dtype), !unsigned_wide) << dtype;
  }
}

TEST(LibTorchDevice, AnUnsupportedDtypeIsRefusedByConfigureAndUpload) {
  const Device device = Device::libtorch();
  try {
    Device::libtorch().configure(DeviceConfig(IntDType::U32));
    FAIL() << "configure took u32";
  } catch (const DeviceError& e) {
    EXPECT_EQ(e.kind(), DeviceErrorKind::UnsupportedDType);
  }
  const TensorData u32(std::vector<uint32_t>{1, 2}, Shape{2});
  EXPECT_THROW((Tensor<1, Int>::from_data(u32, device)), InvalidArgument);
}

TEST(LibTorchDevice, MemoryReportsAreNotAvailable) {
  const Device device = Device::libtorch();
  (Tensor<1>::ones({16}, device) * 2.0).into_data();
  EXPECT_EQ(device.memory_pool_report(), std::nullopt);
  EXPECT_EQ(device.memory_pool_usage(), std::nullopt);
  device.memory_cleanup();  // nothing to give back, and no error
}

TEST(LibTorchDevice, ProfileMeasuresTheWallClockOfTheWindow) {
  const Device device = Device::libtorch();
  const Tensor<2> x = Tensor<2>::ones({256, 256}, device);
  auto [out, duration] = device.profile([&] { return x.matmul(x).into_data(); });
  const std::optional<ProfileTicks> ticks = duration.resolve();
  ASSERT_TRUE(ticks.has_value());
  EXPECT_GT(ticks->duration().count(), 0);
  EXPECT_EQ(out.to_vector<float>()[0], 256.0f);
}

TEST(LibTorchDevice, ASeedGivesNdArraysRandomTensor) {
  const Device libtorch = Device::libtorch();
  const Device ndarray = Device::ndarray();
  const auto draw = [](const Device& device) {
    device.seed(7);
    return Tensor<1>::random({64}, Distribution::Default, device).into_data();
  };
  const TensorData first = draw(libtorch);
  EXPECT_EQ(first, draw(ndarray)) << "ember's Philox stream, whatever the device";
  EXPECT_EQ(first, draw(libtorch)) << "reseeding restarts the stream";
}

TEST(LibTorchDevice, UploadAndDownloadKeepEveryByte) {
  const Device device = Device::libtorch();
  const TensorData f64(std::vector<double>{1.0 / 3.0, -0.0, 1e300, -2.5}, Shape{2, 2});
  EXPECT_EQ(Tensor<2>::from_data(f64, device).into_data(), f64);
  const TensorData i8(std::vector<int8_t>{-128, 127, 0, 5}, Shape{4});
  EXPECT_EQ((Tensor<1, Int>::from_data(i8, device).into_data()), i8);
}

TEST(LibTorchDevice, AGpuLibTorchDoesNotSeeIsAnExecutionErrorNamingIt) {
  const auto gpus = static_cast<int64_t>(Device::enumerate(DeviceType::LibTorch).size()) - 1;
  const Device missing = Device::libtorch_cuda(gpus);  // one past the last
  try {
    Tensor<1>::zeros({4}, missing).into_data();
    FAIL() << "libtorch_cuda:" << gpus << " computed without that GPU";
  } catch (const ExecutionError& e) {
    EXPECT_NE(std::string(e.what()).find("libtorch_cuda:" + std::to_string(gpus)),
              std::string::npos)
        << e.what();
  }
}

TEST(LibTorchDevice, ABadIndexIsAnInvalidArgumentNamingTheOpAndTheIndex) {
  const Device device = Device::libtorch();
  const Tensor<1> x = Tensor<1>::from_floats({1, 2, 3}, device);
  const auto indices = Tensor<1, Int>::from_ints({0, 3}, device);
  try {
    x.select(0, indices).into_data();
    FAIL() << "select took index 3 of 3";
  } catch (const InvalidArgument& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.substr(0, 8), "[select]") << message;
    EXPECT_NE(message.find("index 3"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace ember::test
