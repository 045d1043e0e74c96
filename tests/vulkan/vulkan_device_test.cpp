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

#include "backends/shader/matmul_runs.h"
#include "backends/vulkan/kernel_runner.h"
#include "backends/vulkan/vulkan_context.h"
#include "ember/device.h"
#include "ember/devices.h"
#include "ember/error.h"
#include "ember/tensor.h"
#include "ember/tensor_ops.h"
#include "support/fresh_process.h"
#include "support/graphics_device_checks.h"
#include "support/shader_attention_checks.h"
#include "support/shader_reduction_checks.h"
#include "support/shader_row_checks.h"
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

TEST(VulkanDevice, LavapipeLoopsWithinItsBoundAndAGpuWithoutIt) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  for (const vulkan::PhysicalDevice& physical : vulkan::physical_devices()) {
    expect_loop_bound_by_driver(physical.name, physical.kind,
                                vulkan::device_limits(physical).max_loop_turns);
  }
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
  expect_unsupported_dtype_is_an_error(*device);
}

TEST(VulkanDevice, UploadAndDownloadKeepEveryByteOfEverySupportedDType) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_uploads_keep_every_byte(*device);
}

TEST(VulkanDevice, MemoryReportsCountLiveTensorsAndCleanupGivesPagesBack) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_memory_reports_count_live_tensors(*device);
}

TEST(VulkanDevice, ProfileMeasuresTheWindowOnTheDeviceClock) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_profile_on_the_device_clock(*device);
}

TEST(VulkanDevice, FlushAndSyncReturnOnceTheWorkIsDone) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_flush_and_sync_finish_the_work(*device);
}

TEST(VulkanDevice, ErfRunsOnTheDeviceWithinF32) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_erf_on_the_device_within_f32(*device);
}

TEST(VulkanDevice, AFusedProgramPastTheBindingsRunsOpByOp) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_a_program_past_the_bindings_runs(*device);
}

TEST(VulkanDevice, FlatProgramKernelsMatchNdarrayAtEveryLengthAndOffset) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_flat_programs_match_ndarray(*device);
}

TEST(VulkanDevice, MatmulKernelMatchesNdarrayAcrossTilesBatchesAndBroadcasts) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_matmul_matches_ndarray(*device);
}

TEST(VulkanDevice, MatmulKernelTakesEveryFloatDtypeBroadcastAndEdge) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_matmul_kernel_takes_every_float_case(*device);
}

TEST(VulkanDevice, ProductsReadTransposesAsTheyAre) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_products_read_transposes_as_they_are(*device);
}

TEST(VulkanDevice, CooperativeF16MatmulMatchesNdarrayWhereTheDriverOffersIt) {
  const vulkan::PhysicalDevice* offering = nullptr;
  for (const vulkan::PhysicalDevice& physical : vulkan::physical_devices())
    if (physical.features.cooperative_f16 && offering == nullptr) offering = &physical;
  if (offering == nullptr)
    GTEST_SKIP()
        << "no Vulkan device here offers f16 cooperative matrices (VK_NV_cooperative_matrix "
           "with an f16 x f16 -> f32 subgroup shape, m == n): lavapipe has none; "
           "NVIDIA's driver does (run this on the GPU machine)";
  const Device device = Device::vulkan(offering->kind);
  const uint64_t before = shader::matmul_runs().cooperative;
  // Sums of the pattern's exact products stay exact in f32 for these k, whatever order the
  // cooperative matrices add them in: the f16 results are ndarray's.
  expect_matmul_kernel_takes_every_float_case(device);
  EXPECT_GT(shader::matmul_runs().cooperative, before);
}

TEST(VulkanDevice, SortKernelIsNdarraysStableSortBitForBit) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_sort_matches_ndarray(*device);
}

TEST(VulkanDevice, RoundIsHalfToEvenBitForBit) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_round_is_half_to_even(*device);
}

TEST(VulkanDevice, RandomKernelDrawsNdarraysStream) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_random_matches_ndarray(*device);
}

TEST(VulkanDevice, SumAndMeanAreNdarraysBitForBitOnLanesOfOneChunk) {
  // The kernel adds a lane of up to 64 elements (one chunk) in order in double, as ndarray does;
  // a longer one (the whole tensor: 1110 elements) is spread over chunks, within rounding.
  EMBER_SKIP_WITHOUT_VULKAN(device);
  const std::vector<int64_t> dims = {5, 37, 6};
  for (const DType dtype : {DType::F32, DType::F64}) {
    if (!device->supports_dtype(dtype)) continue;
    const Tensor<3> x = patterned(dims, *device, 3).cast(dtype) * 1.1;
    const Tensor<3> reference = patterned(dims, Device::ndarray(), 3).cast(dtype) * 1.1;
    const Tolerance tolerance = Tolerance::for_dtype(dtype);
    EXPECT_TRUE(x.sum().into_data().approx_equal(reference.sum().into_data(), tolerance)) << dtype;
    EXPECT_TRUE(x.mean().into_data().approx_equal(reference.mean().into_data(), tolerance))
        << dtype;
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

TEST(VulkanDevice, ReductionKernelsMatchNdarrayOnTheDevice) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  // f64 where the device computes in doubles (the kernels' partial results are doubles).
  if (device->supports_dtype(DType::F64))
    expect_reductions_run_on_the_device(*device, {DType::F32, DType::F64});
  else
    expect_reductions_run_on_the_device(*device, {DType::F32});
}

TEST(VulkanDevice, SoftmaxKernelMatchesNdarrayOnTheDevice) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_softmax_runs_on_the_device(*device);
}

TEST(VulkanDevice, FusedAttentionAndItsGradientsRunOnTheDevice) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_attention_runs_on_the_device(*device);
}

TEST(VulkanDevice, FusedAttentionOfARowWithoutKeysMatchesTheHost) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_masked_out_row_matches_the_host(*device);
}

TEST(VulkanDevice, WholeTensorSumOfManyChunksRunsOnTheDevice) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_long_sum_runs_on_the_device(*device);
}

TEST(VulkanDevice, CrossEntropyForwardAndBackwardStayOnTheDevice) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_cross_entropy_runs_on_the_device(*device);
}

TEST(VulkanDevice, FusedRowOpsRunOnTheDevice) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_fused_rows_run_on_the_device(*device);
}

TEST(VulkanDevice, FusedRowOpsMatchNdarrayOnNanAndInfinities) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_row_specials_match_ndarray(*device);
}

TEST(VulkanDevice, BadCrossEntropyTargetIsAnError) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  expect_bad_target_is_an_error(*device);
}

}  // namespace
}  // namespace ember::test
