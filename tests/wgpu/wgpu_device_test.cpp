// The wgpu device's semantics: enumeration (lavapipe as wgpu:cpu in CI), the DeviceKind selection
// and its errors, dtype support (WGSL's), uploads and downloads of every dtype, memory reports and
// cleanup, the kernels of packed 1- and 2-byte elements, the matmul kernel. The op-by-op values
// are the conformance and gradcheck suites' (they run on every device enumerate finds).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ember/device.h"
#include "ember/devices.h"
#include "ember/error.h"
#include "ember/tensor.h"
#include "ember/tensor_ops.h"

namespace ember::test {
namespace {

std::optional<Device> first_wgpu_device() {
  const Devices devices = Device::enumerate(DeviceType::Wgpu);
  if (devices.empty()) return std::nullopt;
  return devices[0];
}

/// Declares device as the first wgpu device, or skips the test saying why.
#define EMBER_SKIP_WITHOUT_WGPU(device)                                                     \
  const std::optional<Device> device = first_wgpu_device();                                 \
  if (!device)                                                                              \
  GTEST_SKIP() << "no WebGPU adapter on this machine (Device::enumerate(DeviceType::Wgpu) " \
                  "is empty): install mesa-vulkan-drivers (scripts/install-deps)"

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(WgpuDevice, EnumerateListsEachAdapterByItsKindAndNeverThrows) {
  const Devices devices = Device::enumerate(DeviceType::Wgpu);
  for (const Device& device : devices) {
    const auto& d = std::get<WgpuDevice>(device.as_dispatch());
    EXPECT_EQ(d.api, WgpuDevice::Api::Wgpu);
    EXPECT_NE(d.kind.type(), DeviceKind::Type::Default) << device;
    EXPECT_EQ(Device::wgpu(d.kind), device);
  }
}

TEST(WgpuDevice, SupportsWgslsDTypes) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  for (const DType dtype : {DType::F64, DType::F32, DType::F16, DType::I64, DType::I32, DType::I16,
                            DType::I8, DType::U64, DType::U32, DType::U16, DType::U8, DType::Bool})
    EXPECT_TRUE(device->supports_dtype(dtype)) << dtype;
  EXPECT_FALSE(device->supports_dtype(DType::BF16));
}

TEST(WgpuDevice, PackedElementsComputeAsOnNdarray) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  // 13 elements: the last word of each 1- and 2-byte output is partly padding; * 3 wraps the
  // 8-bit dtypes; > 0.5 writes Bools.
  std::vector<double> values;
  for (int i = 0; i < 13; ++i)
    values.push_back(static_cast<double>(i * 29 % 23) * 7.0 - 60.0);
  for (const DType dtype : {DType::I8, DType::U8, DType::I16, DType::U16}) {
    const TensorData data = TensorData(values, Shape{13}).convert(dtype);
    const auto on = [&](const Device& d) {
      const auto x = Tensor<1, Int>::from_data(data, TensorCreationOptions(d).with_dtype(dtype));
      return std::make_pair((x * 3).into_data(), x.greater_elem(0.5).into_data());
    };
    EXPECT_EQ(on(*device), on(Device::ndarray())) << dtype;
  }
  const TensorData half = TensorData(values, Shape{13}).convert(DType::F16);
  const auto on = [&](const Device& d) {
    const auto x = Tensor<1>::from_data(half, TensorCreationOptions(d).with_dtype(DType::F16));
    return (x * 1.1 + 0.3).into_data();
  };
  EXPECT_EQ(on(*device), on(Device::ndarray()));
}

TEST(WgpuDevice, AKindThatIsNotThereIsAnExecutionErrorNamingItAndTheDevicesFound) {
  const Device missing = Device::wgpu(DeviceKind::discrete_gpu(7));
  try {
    Tensor<1>::zeros({4}, missing).into_data();
    FAIL() << "wgpu:discrete:7 computed";
  } catch (const ExecutionError& e) {
    EXPECT_TRUE(contains(e.what(), "wgpu:discrete:7")) << e.what();
    EXPECT_TRUE(contains(e.what(), "no such WebGPU adapter")) << e.what();
  }
}

TEST(WgpuDevice, ComputingInAnUnsupportedDTypeIsAnErrorNotGarbage) {
  EMBER_SKIP_WITHOUT_WGPU(device);
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

TEST(WgpuDevice, UploadAndDownloadKeepEveryByteOfEverySupportedDType) {
  EMBER_SKIP_WITHOUT_WGPU(device);
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

TEST(WgpuDevice, MemoryReportsCountLiveTensorsAndCleanupGivesPagesBack) {
  EMBER_SKIP_WITHOUT_WGPU(device);
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

TEST(WgpuDevice, ProfileMeasuresTheWindowOnTheDeviceClock) {
  EMBER_SKIP_WITHOUT_WGPU(device);
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

TEST(WgpuDevice, FlushAndSyncReturnOnceTheWorkIsDone) {
  EMBER_SKIP_WITHOUT_WGPU(device);
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

TEST(WgpuDevice, MatmulKernelMatchesNdarrayAcrossTilesBatchesAndBroadcasts) {
  EMBER_SKIP_WITHOUT_WGPU(device);
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

TEST(WgpuDevice, SumAndMeanAreNdarraysWithinF32Rounding) {
  // Compensated f32 sums (no doubles in WGSL): ndarray's double sums within about one rounding,
  // along every dim, over the whole tensor, and on lanes longer than one chunk (4096) and than
  // the 65535 turns lavapipe lets an invocation's loops take.
  EMBER_SKIP_WITHOUT_WGPU(device);
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{5, 37, 6}, std::vector<int64_t>{1, 200003, 1},
        std::vector<int64_t>{3, 70001, 2}}) {
    const Tensor<3> x = patterned(dims, *device, 4) * 1.1;
    const Tensor<3> reference = patterned(dims, Device::ndarray(), 4) * 1.1;
    const Tolerance tolerance = Tolerance::for_dtype(DType::F32);
    EXPECT_TRUE(x.sum().into_data().approx_equal(reference.sum().into_data(), tolerance))
        << Shape(dims);
    EXPECT_TRUE(x.mean().into_data().approx_equal(reference.mean().into_data(), tolerance))
        << Shape(dims);
    for (int64_t dim = 0; dim < 3; ++dim) {
      EXPECT_TRUE(
          x.sum_dim(dim).into_data().approx_equal(reference.sum_dim(dim).into_data(), tolerance))
          << Shape(dims) << " " << dim;
      EXPECT_TRUE(
          x.mean_dim(dim).into_data().approx_equal(reference.mean_dim(dim).into_data(), tolerance))
          << Shape(dims) << " " << dim;
    }
  }
}

}  // namespace
}  // namespace ember::test
