// Device::cpu() through the public API: the memory calls report what tensors take (as changes,
// since every test of this binary shares the one cpu device), persistent allocations hold a
// model's weights at their exact size, cleanup keeps live tensors, and several user threads
// compute on the device at once.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/flex/packed_gemm.h"
#include "backends/flex/packing_buffer.h"
#include "backends/flex/view.h"
#include "core/device_context.h"
#include "cpu_test_util.h"
#include "ember/device.h"
#include "ember/nn/linear.h"
#include "ember/tensor.h"
#include "ember/tensor_ops.h"

namespace ember::cpu {
namespace {

using test::MiB;

MemoryPoolUsage usage_of(const Device& device) {
  const std::optional<MemoryPoolUsage> usage = device.memory_pool_usage();
  if (!usage) throw std::logic_error("the cpu device reports no memory usage");
  return *usage;
}

std::vector<SlicedPoolReport> report_of(const Device& device) {
  const std::optional<std::vector<SlicedPoolReport>> report = device.memory_pool_report();
  if (!report) throw std::logic_error("the cpu device reports no pools");
  return *report;
}

/// n values 0.5, 1.5, 2.5, ...
std::vector<double> halves(std::size_t n) {
  std::vector<double> values(n);
  for (std::size_t i = 0; i < n; ++i)
    values[i] = static_cast<double>(i) + 0.5;
  return values;
}

TEST(CpuDevice, IsNamedCpuAndSaysItRunsFlexKernelsOnPools) {
  const Device device = Device::cpu();
  EXPECT_EQ(device.name(), "cpu");
  const std::string description =
      detail::DeviceContext::of(device.as_dispatch())->backend().description();
  EXPECT_NE(description.find("sliced memory pools"), std::string::npos) << description;
  EXPECT_NE(description.find("OpenBLAS"), std::string::npos) << description;
}

TEST(CpuDevice, SupportsStoringAndConvertingEveryDtype) {
  const Device device = Device::cpu();
  // 0 and 1 survive every dtype, bool included.
  const TensorData values(std::vector<double>{0, 1, 1, 0}, Shape{4});
  for (const DType dtype : kAllDTypes) {
    EXPECT_TRUE(device.supports_dtype(dtype)) << dtype;
    const TensorHandle t = ops::cast(ops::from_data(values, device, TensorKind::Float), dtype);
    EXPECT_EQ(ops::into_data(ops::cast(t, DType::F64)).to_vector<double>(),
              (std::vector<double>{0, 1, 1, 0}))
        << dtype;
  }
}

TEST(CpuDevice, UsageCountsATensorWhileItLives) {
  const Device device = Device::cpu();
  const MemoryPoolUsage before = usage_of(device);
  std::optional<Tensor<1>> t =
      Tensor<1>::from_data(TensorData(std::vector<float>(1000, 0.5F), Shape{1000}), device);
  const test::UsageChange with = test::change(before, usage_of(device));
  // 1000 f32 = 4000 bytes, in a 4032-byte slice (64-byte granules) of the small pool.
  EXPECT_EQ(with.number_allocs, 1);
  EXPECT_EQ(with.bytes_in_use, 4000);
  EXPECT_EQ(with.bytes_padding, 32);
  EXPECT_GE(with.bytes_reserved, 0);
  t.reset();
  const test::UsageChange after = test::change(before, usage_of(device));
  EXPECT_EQ(after.number_allocs, 0);
  EXPECT_EQ(after.bytes_in_use, 0);
  EXPECT_EQ(after.bytes_padding, 0);
  EXPECT_EQ(after.bytes_reserved, with.bytes_reserved) << "the freed slice stays in its pool";
}

TEST(CpuDevice, ReportListsThePoolsInInstallationOrder) {
  const Device device = Device::cpu();
  // 1310721 f32 = 5 MiB + 4 bytes: a dedicated page of the 6 MiB class.
  const Tensor<1> big = Tensor<1>::zeros({1310721}, device);
  const std::vector<SlicedPoolReport> report = report_of(device);
  ASSERT_GE(report.size(), 3u);
  EXPECT_EQ(report[0].page_size, 2 * MiB);
  EXPECT_EQ(report[1].page_size, 32 * MiB);
  bool found = false;
  for (std::size_t i = 2; i < report.size(); ++i) {
    if (report[i].page_size != 6 * MiB) continue;
    found = true;
    EXPECT_GE(report[i].pages, 1u);
    EXPECT_GE(report[i].largest_alloc, 5 * MiB + 4);
  }
  EXPECT_TRUE(found) << "no 6 MiB pool";
}

/// The bytes the device reserves more after making a tensor of floats f32 values (read back, so
/// that the queued op has run): exactly floats * 4 for a persistent block, a whole pool page
/// (or nothing, on a page already held) otherwise.
uint64_t reserved_for(const Device& device, int64_t floats, std::vector<Tensor<1>>& kept) {
  const uint64_t before = usage_of(device).bytes_reserved;
  kept.push_back(Tensor<1>::ones({floats}, device));
  device.sync();
  return usage_of(device).bytes_reserved - before;
}

TEST(CpuDevice, PersistentScopesNestAndAnInnerEndRestoresTheOuterMode) {
  const Device device = Device::cpu();
  std::vector<Tensor<1>> kept;
  device.memory_persistent_allocations(0, [&](int) {
    EXPECT_EQ(reserved_for(device, 1000, kept), 4000u);
    device.memory_persistent_allocations(0, [&](int) {
      EXPECT_EQ(reserved_for(device, 2000, kept), 8000u);
      return 0;
    });
    EXPECT_EQ(reserved_for(device, 3000, kept), 12000u) << "the outer scope is still open";
    // An inner scope left by an exception restores the outer mode too.
    EXPECT_THROW(device.memory_persistent_allocations(
                     0, [](int) -> int { throw std::runtime_error("user code failed"); }),
                 std::runtime_error);
    EXPECT_EQ(reserved_for(device, 4000, kept), 16000u);
    return 0;
  });
  EXPECT_NE(reserved_for(device, 5000, kept), 20000u) << "pooled again after the outer scope";
}

TEST(CpuDevice, PersistentAllocationsHoldAModelsWeightsAtTheirExactSize) {
  const Device device = Device::cpu();
  const MemoryPoolUsage before = usage_of(device);
  const std::vector<SlicedPoolReport> pools_before = report_of(device);
  std::optional<nn::Linear> model =
      device.memory_persistent_allocations(device, [](const Device& d) {
        return nn::LinearConfig{64, 30}.init(d);
      });
  // weight [30, 64] and bias [30] in f32: 7680 + 120 bytes, each a block of exactly its size;
  // the temporaries of the initialization were persistent too, and went back to the OS.
  const test::UsageChange held = test::change(before, usage_of(device));
  EXPECT_EQ(held.number_allocs, 2);
  EXPECT_EQ(held.bytes_in_use, 7680 + 120);
  EXPECT_EQ(held.bytes_padding, 0);
  EXPECT_EQ(held.bytes_reserved, 7680 + 120);
  const std::vector<SlicedPoolReport> pools_after = report_of(device);
  ASSERT_EQ(pools_after.size(), pools_before.size());
  for (std::size_t i = 0; i < pools_after.size(); ++i)
    EXPECT_EQ(test::fields(pools_after[i]), test::fields(pools_before[i])) << "pool " << i;

  // The weights work like any tensor, and give their blocks back when dropped: then only y
  // (2 x 30 f32, computed outside the scope, so pooled) remains.
  const Tensor<2> y = model->forward(Tensor<2>::ones({2, 64}, device));
  EXPECT_EQ(y.dims(), (std::array<int64_t, 2>{2, 30}));
  device.sync();  // runs the queued bias add, which holds the matmul's output until then
  model.reset();
  const test::UsageChange left = test::change(before, usage_of(device));
  EXPECT_EQ(left.number_allocs, 1);
  EXPECT_EQ(left.bytes_in_use, 240);
  EXPECT_EQ(left.bytes_padding, 16);
}

TEST(CpuDevice, CleanupReleasesFreePagesAndKeepsLiveTensors) {
  const Device device = Device::cpu();
  const Tensor<1> kept = Tensor<1>::from_floats(halves(3000), device);
  std::optional<Tensor<1>> big = Tensor<1>::zeros({2097153}, device);  // 8 MiB + 4 bytes
  big.reset();
  const MemoryPoolUsage before = usage_of(device);
  device.memory_cleanup();
  const test::UsageChange cleaned = test::change(before, usage_of(device));
  EXPECT_LE(cleaned.bytes_reserved, -10 * static_cast<int64_t>(MiB))
      << "at least the freed 10 MiB page";
  EXPECT_EQ(cleaned.number_allocs, 0);
  EXPECT_EQ(kept.into_data().to_vector<double>(), halves(3000));
}

TEST(CpuDevice, CleanupFreesTheOwnGemmsPackingBuffer) {
  if (!flex::packed_gemm_available()) GTEST_SKIP() << "no packed GEMM kernel for this CPU";
  const std::vector<float> a(20 * 30, 0.5f), b(30 * 40, 0.25f);
  std::vector<float> c(20 * 40);
  flex::gemm_packed(20, 40, 30, {a.data(), 30, false}, {b.data(), 40, false}, 0.0f, c.data(), 40);
  EXPECT_EQ(c[0], 30 * 0.5f * 0.25f);
  EXPECT_GT(flex::kept_packing_buffer_bytes(), 0);
  Device::cpu().memory_cleanup();
  EXPECT_EQ(flex::kept_packing_buffer_bytes(), 0);
}

TEST(CpuDevice, ATensorOutlivesTheBackendThatMadeIt) {
  std::unique_ptr<backend::Backend> backend = make_cpu_backend();
  const TensorData data(std::vector<float>{1, 2, 3}, Shape{3});
  backend::BufferPtr buffer = backend->write(data);
  backend.reset();  // the pools live on in the buffer's storage
  const auto& view = dynamic_cast<const flex::FlexBuffer&>(*buffer).view;
  EXPECT_EQ(std::vector<float>(view.data<float>(), view.data<float>() + 3),
            (std::vector<float>{1, 2, 3}));
  buffer.reset();  // frees into the pools, then the pools go (ASan checks both)
}

TEST(CpuDevice, SeveralThreadsComputeAtOnce) {
  const Device device = Device::cpu();
  const std::vector<double> x = halves(4096);
  // sum((x + 1) * 2) with x = i + 0.5 is 2 * (sum(i) + 1.5 * 4096); f32 sums round, so within
  // a relative 1e-6.
  const double expected = 2.0 * (4095.0 * 4096.0 / 2.0 + 1.5 * 4096.0);
  std::vector<double> results(4 * 25);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (std::size_t i = 0; i < 25; ++i) {
        const Tensor<1> v = Tensor<1>::from_floats(x, device);
        results[t * 25 + i] = ((v + 1.0) * 2.0).sum().into_scalar<double>();
      }
    });
  }
  for (std::thread& t : threads)
    t.join();
  for (const double r : results)
    EXPECT_NEAR(r, expected, expected * 1e-6);
}

}  // namespace
}  // namespace ember::cpu
