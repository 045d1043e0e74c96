// The vulkan device's semantics: enumeration (lavapipe as vulkan:cpu in CI), the DeviceKind
// selection and its errors, dtype support from the device's features, uploads and downloads of
// every dtype, memory reports and cleanup, profile on the device clock. The op-by-op values are
// the conformance and gradcheck suites' (they run on every device enumerate finds).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "ember/device.h"
#include "ember/devices.h"
#include "ember/error.h"
#include "ember/tensor.h"
#include "ember/tensor_ops.h"
#include "support/fresh_process.h"
#include "vulkan_test_util.h"

namespace ember::test {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(VulkanDevice, EnumerateListsEachDeviceByItsKindAndNeverThrows) {
  const Devices devices = Device::enumerate(DeviceType::Vulkan);
  for (const Device& device : devices) {
    const auto& d = std::get<WgpuDevice>(device.as_dispatch());
    EXPECT_EQ(d.api, WgpuDevice::Api::Vulkan);
    EXPECT_NE(d.kind.type(), DeviceKind::Type::Default) << device;
    EXPECT_EQ(Device::vulkan(d.kind), device);
  }
}

TEST(VulkanDevice, WithoutADriverEnumerateIsEmptyAndUsingADeviceSaysWhatToInstall) {
  // In a fresh process whose loader is pointed at no driver (the Vulkan instance is made on first
  // use, after the variables are set).
  expect_in_fresh_process([]() -> std::string {
    setenv("VK_ICD_FILENAMES", "/nonexistent/ember_icd.json", 1);
    setenv("VK_DRIVER_FILES", "/nonexistent/ember_icd.json", 1);
    if (!Device::enumerate(DeviceType::Vulkan).empty()) return "enumerate found a device";
    try {
      Tensor<1>::zeros({4}, Device::vulkan(DeviceKind::cpu())).into_data();
      return "vulkan:cpu computed without a driver";
    } catch (const ExecutionError& e) {
      if (!contains(e.what(), "mesa-vulkan-drivers")) return std::string("message: ") + e.what();
    }
    return "";
  });
}

TEST(VulkanDevice, LavapipeIsTheCpuKindAndTheDefaultWhereItIsTheOnlyDevice) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  const Devices devices = Device::enumerate(DeviceType::Vulkan);
  if (devices.size() != 1 || device->name() != "vulkan:cpu")
    GTEST_SKIP() << "this machine has a Vulkan GPU: " << *device;
  // The default kind picks it, and computes as it does.
  const TensorData data = Tensor<1>::from_floats({1.5, -2, 3}, Device::vulkan()).into_data();
  EXPECT_EQ(data.to_vector<float>(), (std::vector<float>{1.5f, -2.0f, 3.0f}));
}

TEST(VulkanDevice, AKindThatIsNotThereIsAnExecutionErrorNamingItAndTheDevicesFound) {
  const Device missing = Device::vulkan(DeviceKind::discrete_gpu(7));
  try {
    Tensor<1>::zeros({4}, missing).into_data();
    FAIL() << "vulkan:discrete:7 computed";
  } catch (const ExecutionError& e) {
    EXPECT_TRUE(contains(e.what(), "vulkan:discrete:7")) << e.what();
    EXPECT_TRUE(contains(e.what(), "no such Vulkan device")) << e.what();
  }
}

TEST(VulkanDevice, SupportsTheDTypesItsFeaturesAllow) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  for (const DType dtype : {DType::F32, DType::I64, DType::I32, DType::I16, DType::I8, DType::U64,
                            DType::U32, DType::U16, DType::U8, DType::Bool})
    EXPECT_TRUE(device->supports_dtype(dtype)) << dtype;
  EXPECT_FALSE(device->supports_dtype(DType::BF16));
  if (device->name() == "vulkan:cpu") {
    // lavapipe (Mesa 22.3) has shaderFloat64, shaderFloat16 and 16-bit storage.
    EXPECT_TRUE(device->supports_dtype(DType::F64));
    EXPECT_TRUE(device->supports_dtype(DType::F16));
  }
}

TEST(VulkanDevice, ComputingInAnUnsupportedDTypeIsAnErrorNotGarbage) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  ASSERT_FALSE(device->supports_dtype(DType::BF16));
  const TensorData data = TensorData(std::vector<float>{1, 2, 3}, Shape{3}).convert(DType::BF16);
  try {
    Tensor<1>::from_data(data, TensorCreationOptions(*device).with_dtype(DType::BF16)).into_data();
    FAIL() << "bf16 computed on " << *device;
  } catch (const InvalidArgument& e) {
    EXPECT_TRUE(contains(e.what(), "does not support dtype bf16")) << e.what();
  }
  const Tensor<1> x = Tensor<1>::from_floats({1, 2, 3}, *device);
  EXPECT_THROW(x.cast(DType::BF16).into_data(), InvalidArgument);
}

TEST(VulkanDevice, UploadAndDownloadKeepEveryByteOfEverySupportedDType) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  std::vector<double> values;
  for (int i = 0; i < 1000; ++i)
    values.push_back(std::ldexp(static_cast<double>(i) - 500.5, i % 40 - 20));
  for (const DType dtype : kAllDTypes) {
    if (!device->supports_dtype(dtype)) continue;
    const TensorData data = TensorData(values, Shape{10, 100}).convert(dtype);
    const TensorCreationOptions options = TensorCreationOptions(*device).with_dtype(dtype);
    const TensorData back = is_float(dtype) ? Tensor<2>::from_data(data, options).into_data()
                            : is_int(dtype) ? Tensor<2, Int>::from_data(data, options).into_data()
                                            : Tensor<2, Bool>::from_data(data, options).into_data();
    EXPECT_EQ(back, data) << dtype;
  }
}

TEST(VulkanDevice, MemoryReportsCountLiveTensorsAndCleanupGivesPagesBack) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  device->sync();
  const std::optional<MemoryPoolUsage> before = device->memory_pool_usage();
  ASSERT_TRUE(before.has_value());
  {
    const Tensor<2> x = Tensor<2>::ones({256, 256}, *device);  // 256 KiB: the small pool's limit
    const Tensor<2> y = Tensor<2>::ones({1024, 1024}, *device);
    device->sync();
    const MemoryPoolUsage during = *device->memory_pool_usage();
    EXPECT_GE(during.bytes_in_use, before->bytes_in_use + (256 + 4096) * 1024u);
    EXPECT_GE(during.number_allocs, before->number_allocs + 2);
    EXPECT_GE(during.bytes_reserved, during.bytes_in_use);
    const std::optional<std::vector<SlicedPoolReport>> report = device->memory_pool_report();
    ASSERT_TRUE(report.has_value());
    ASSERT_GE(report->size(), 2u);
    EXPECT_GT((*report)[0].page_size, 0u);
  }
  device->sync();
  device->memory_cleanup();
  const MemoryPoolUsage after = *device->memory_pool_usage();
  EXPECT_EQ(after.bytes_in_use, before->bytes_in_use);
  EXPECT_LE(after.bytes_reserved, before->bytes_reserved + (2u << 20));
}

TEST(VulkanDevice, ProfileMeasuresTheWindowOnTheDeviceClock) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  const Tensor<2> a = Tensor<2>::ones({128, 128}, *device);
  auto [out, duration] = device->profile([&] { return a.matmul(a).into_data(); });
  EXPECT_EQ(out.to_vector<float>()[0], 128.0f);
  const std::optional<ProfileTicks> ticks = duration.resolve();
  ASSERT_TRUE(ticks.has_value());
  EXPECT_GT(ticks->duration().count(), 0);
  // A window with nothing in it reads as no time.
  const ProfileDuration empty = device->profile([] {});
  EXPECT_FALSE(empty.resolve().has_value());
}

TEST(VulkanDevice, FlushAndSyncReturnOnceTheWorkIsDone) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  const Tensor<1> x = Tensor<1>::from_floats({1, 2, 3}, *device);
  const Tensor<1> y = x * x + 1.0;
  device->flush();
  device->sync();
  EXPECT_EQ(y.into_data().to_vector<float>(), (std::vector<float>{2, 5, 10}));
}

/// A tensor of shape with values from a fixed pattern (distinct, of both signs).
Tensor<3> patterned(const std::vector<int64_t>& dims, const Device& device, int seed) {
  std::vector<float> values;
  int64_t count = 1;
  for (const int64_t d : dims)
    count *= d;
  for (int64_t i = 0; i < count; ++i)
    values.push_back(static_cast<float>((i * 37 + seed * 11) % 101 - 50) / 16.0f);
  return Tensor<3>::from_data(TensorData(values, Shape(dims)), device);
}

TEST(VulkanDevice, MatmulKernelMatchesNdarrayAcrossTilesBatchesAndBroadcasts) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  struct Case {
    std::vector<int64_t> lhs, rhs;
  };
  // Sizes that are not multiples of the 16 x 16 tiles, a batch on both sides, a right-hand side
  // broadcast over the batch (a linear layer's weight), and an empty inner dim (zeros).
  const Case cases[] = {{{1, 70, 33}, {1, 33, 45}},
                        {{3, 17, 16}, {3, 16, 31}},
                        {{4, 5, 40}, {1, 40, 2}},
                        {{1, 1, 1}, {2, 1, 19}},
                        {{2, 6, 0}, {2, 0, 5}}};
  for (const Case& c : cases) {
    const Tensor<3> expected =
        patterned(c.lhs, Device::ndarray(), 1).matmul(patterned(c.rhs, Device::ndarray(), 2));
    const Tensor<3> actual = patterned(c.lhs, *device, 1).matmul(patterned(c.rhs, *device, 2));
    EXPECT_TRUE(
        actual.into_data().approx_equal(expected.into_data(), Tolerance::for_dtype(DType::F32)))
        << Shape(c.lhs) << " @ " << Shape(c.rhs);
  }
}

TEST(VulkanDevice, SumAndMeanAreNdarraysBitForBitOnLanesOfOneChunk) {
  // The kernel adds a lane of up to 4096 elements in order in double, as ndarray does.
  EMBER_SKIP_WITHOUT_VULKAN(device);
  const std::vector<int64_t> dims = {5, 37, 6};
  for (const DType dtype : {DType::F32, DType::F64}) {
    if (!device->supports_dtype(dtype)) continue;
    const Tensor<3> x = patterned(dims, *device, 3).cast(dtype) * 1.1;
    const Tensor<3> reference = patterned(dims, Device::ndarray(), 3).cast(dtype) * 1.1;
    EXPECT_EQ(x.sum().into_data(), reference.sum().into_data()) << dtype;
    EXPECT_EQ(x.mean().into_data(), reference.mean().into_data()) << dtype;
    for (int64_t dim = 0; dim < 3; ++dim) {
      EXPECT_EQ(x.sum_dim(dim).into_data(), reference.sum_dim(dim).into_data()) << dtype << dim;
      EXPECT_EQ(x.mean_dim(dim).into_data(), reference.mean_dim(dim).into_data()) << dtype << dim;
    }
  }
  // Lanes longer than one chunk (4096) and than the 65535 turns lavapipe lets an invocation's
  // loops take: chunks' sums added, so within rounding of ndarray's.
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{1, 200003, 1}, std::vector<int64_t>{3, 70001, 2}}) {
    const Tensor<3> x = patterned(dims, *device, 4);
    const Tensor<3> reference = patterned(dims, Device::ndarray(), 4);
    EXPECT_TRUE(x.sum().into_data().approx_equal(reference.sum().into_data(),
                                                 Tolerance::for_dtype(DType::F32)));
    EXPECT_TRUE(x.mean_dim(1).into_data().approx_equal(reference.mean_dim(1).into_data(),
                                                       Tolerance::for_dtype(DType::F32)));
  }
}

}  // namespace
}  // namespace ember::test
