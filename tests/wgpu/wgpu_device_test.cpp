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

#include "backends/wgpu/kernel_runner.h"
#include "backends/wgpu/wgpu_context.h"
#include "ember/device.h"
#include "ember/devices.h"
#include "ember/error.h"
#include "ember/tensor.h"
#include "ember/tensor_ops.h"
#include "support/graphics_device_checks.h"
#include "support/shader_attention_checks.h"
#include "support/shader_reduction_checks.h"
#include "support/shader_row_checks.h"

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

TEST(WgpuDevice, LavapipeLoopsWithinItsBoundAndAGpuWithoutIt) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  for (const wgpu::Adapter& adapter : wgpu::adapters()) {
    expect_loop_bound_by_driver(adapter.name, adapter.kind,
                                wgpu::device_limits(adapter).max_loop_turns);
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
  expect_unsupported_dtype_is_an_error(*device);
}

TEST(WgpuDevice, UploadAndDownloadKeepEveryByteOfEverySupportedDType) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  expect_uploads_keep_every_byte(*device);
}

TEST(WgpuDevice, MemoryReportsCountLiveTensorsAndCleanupGivesPagesBack) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  expect_memory_reports_count_live_tensors(*device);
}

TEST(WgpuDevice, ProfileMeasuresTheWindowOnTheDeviceClock) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  expect_profile_on_the_device_clock(*device);
}

TEST(WgpuDevice, FlushAndSyncReturnOnceTheWorkIsDone) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  expect_flush_and_sync_finish_the_work(*device);
}

TEST(WgpuDevice, ErfRunsOnTheDeviceWithinF32) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  expect_erf_on_the_device_within_f32(*device);
}

TEST(WgpuDevice, AFusedProgramPastTheBindingsRunsOpByOp) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  expect_a_program_past_the_bindings_runs(*device);
}

TEST(WgpuDevice, FlatProgramKernelsMatchNdarrayAtEveryLengthAndOffset) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  expect_flat_programs_match_ndarray(*device);
}

TEST(WgpuDevice, MatmulKernelMatchesNdarrayAcrossTilesBatchesAndBroadcasts) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  expect_matmul_matches_ndarray(*device);
}

TEST(WgpuDevice, MatmulKernelTakesEveryFloatDtypeBroadcastAndEdge) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  expect_matmul_kernel_takes_every_float_case(*device);
}

TEST(WgpuDevice, ProductsReadTransposesAsTheyAre) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  expect_products_read_transposes_as_they_are(*device);
}

TEST(WgpuDevice, SortKernelIsNdarraysStableSortBitForBit) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  expect_sort_matches_ndarray(*device);
}

TEST(WgpuDevice, RoundIsHalfToEvenBitForBit) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  expect_round_is_half_to_even(*device);
}

TEST(WgpuDevice, RandomKernelDrawsNdarraysStream) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  expect_random_matches_ndarray(*device);
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

TEST(WgpuDevice, ReductionKernelsMatchNdarrayOnTheDevice) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  // f64 is stored, computed on the host (WGSL has no doubles).
  expect_reductions_run_on_the_device(*device, {DType::F32});
}

TEST(WgpuDevice, SoftmaxKernelMatchesNdarrayOnTheDevice) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  expect_softmax_runs_on_the_device(*device);
}

TEST(WgpuDevice, FusedAttentionAndItsGradientsRunOnTheDevice) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  expect_attention_runs_on_the_device(*device);
}

TEST(WgpuDevice, FusedAttentionOfARowWithoutKeysMatchesTheHost) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  expect_masked_out_row_matches_the_host(*device);
}

TEST(WgpuDevice, WholeTensorSumOfManyChunksRunsOnTheDevice) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  expect_long_sum_runs_on_the_device(*device);
}

TEST(WgpuDevice, CrossEntropyForwardAndBackwardStayOnTheDevice) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  expect_cross_entropy_runs_on_the_device(*device);
}

TEST(WgpuDevice, FusedRowOpsRunOnTheDevice) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  expect_fused_rows_run_on_the_device(*device);
}

TEST(WgpuDevice, FusedRowOpsMatchNdarrayOnNanAndInfinities) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  expect_row_specials_match_ndarray(*device);
}

TEST(WgpuDevice, BadCrossEntropyTargetIsAnError) {
  EMBER_SKIP_WITHOUT_WGPU(device);
  expect_bad_target_is_an_error(*device);
}

}  // namespace
}  // namespace ember::test
