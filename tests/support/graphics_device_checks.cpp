#include "support/graphics_device_checks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "ember/devices.h"
#include "ember/error.h"
#include "ember/tensor_ops.h"

namespace ember::test {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

Tensor<3> patterned(const std::vector<int64_t>& dims, const Device& device, int seed) {
  std::vector<float> values;
  int64_t count = 1;
  for (const int64_t d : dims)
    count *= d;
  for (int64_t i = 0; i < count; ++i)
    values.push_back(static_cast<float>((i * 37 + seed * 11) % 101 - 50) / 16.0f);
  return Tensor<3>::from_data(TensorData(values, Shape(dims)), device);
}

void expect_unsupported_dtype_is_an_error(const Device& device) {
  ASSERT_FALSE(device.supports_dtype(DType::BF16));
  const TensorData data = TensorData(std::vector<float>{1, 2, 3}, Shape{3}).convert(DType::BF16);
  try {
    Tensor<1>::from_data(data, TensorCreationOptions(device).with_dtype(DType::BF16)).into_data();
    FAIL() << "bf16 computed on " << device;
  } catch (const InvalidArgument& e) {
    EXPECT_TRUE(contains(e.what(), "does not support dtype bf16")) << e.what();
  }
  const Tensor<1> x = Tensor<1>::from_floats({1, 2, 3}, device);
  EXPECT_THROW(x.cast(DType::BF16).into_data(), InvalidArgument);
}

void expect_uploads_keep_every_byte(const Device& device) {
  std::vector<double> values;
  for (int i = 0; i < 1000; ++i)
    values.push_back(std::ldexp(static_cast<double>(i) - 500.5, i % 40 - 20));
  for (const DType dtype : kAllDTypes) {
    if (!device.supports_dtype(dtype)) continue;
    const TensorData data = TensorData(values, Shape{10, 100}).convert(dtype);
    const TensorCreationOptions options = TensorCreationOptions(device).with_dtype(dtype);
    const TensorData back = is_float(dtype) ? Tensor<2>::from_data(data, options).into_data()
                            : is_int(dtype) ? Tensor<2, Int>::from_data(data, options).into_data()
                                            : Tensor<2, Bool>::from_data(data, options).into_data();
    EXPECT_EQ(back, data) << dtype;
  }
}

void expect_memory_reports_count_live_tensors(const Device& device) {
  device.sync();
  const std::optional<MemoryPoolUsage> before = device.memory_pool_usage();
  ASSERT_TRUE(before.has_value());
  {
    const Tensor<2> x = Tensor<2>::ones({256, 256}, device);  // 256 KiB: the small pool's limit
    const Tensor<2> y = Tensor<2>::ones({1024, 1024}, device);
    device.sync();
    const MemoryPoolUsage during = *device.memory_pool_usage();
    EXPECT_GE(during.bytes_in_use, before->bytes_in_use + (256 + 4096) * 1024u);
    EXPECT_GE(during.number_allocs, before->number_allocs + 2);
    EXPECT_GE(during.bytes_reserved, during.bytes_in_use);
    const std::optional<std::vector<SlicedPoolReport>> report = device.memory_pool_report();
    ASSERT_TRUE(report.has_value());
    ASSERT_GE(report->size(), 2u);
    EXPECT_GT((*report)[0].page_size, 0u);
  }
  device.sync();
  device.memory_cleanup();
  const MemoryPoolUsage after = *device.memory_pool_usage();
  EXPECT_EQ(after.bytes_in_use, before->bytes_in_use);
  EXPECT_LE(after.bytes_reserved, before->bytes_reserved + (2u << 20));
}

void expect_profile_on_the_device_clock(const Device& device) {
  const Tensor<2> a = Tensor<2>::ones({128, 128}, device);
  auto [out, duration] = device.profile([&] { return a.matmul(a).into_data(); });
  EXPECT_EQ(out.to_vector<float>()[0], 128.0f);
  const std::optional<ProfileTicks> ticks = duration.resolve();
  ASSERT_TRUE(ticks.has_value());
  EXPECT_GT(ticks->duration().count(), 0);
  // A window with nothing in it reads as no time.
  const ProfileDuration empty = device.profile([] {});
  EXPECT_FALSE(empty.resolve().has_value());
}

void expect_flush_and_sync_finish_the_work(const Device& device) {
  const Tensor<1> x = Tensor<1>::from_floats({1, 2, 3}, device);
  const Tensor<1> y = x * x + 1.0;
  device.flush();
  device.sync();
  EXPECT_EQ(y.into_data().to_vector<float>(), (std::vector<float>{2, 5, 10}));
}

void expect_matmul_matches_ndarray(const Device& device) {
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
    const Tensor<3> actual = patterned(c.lhs, device, 1).matmul(patterned(c.rhs, device, 2));
    EXPECT_TRUE(
        actual.into_data().approx_equal(expected.into_data(), Tolerance::for_dtype(DType::F32)))
        << Shape(c.lhs) << " @ " << Shape(c.rhs);
  }
}

namespace {

/// x sorted along dim on device equals x sorted on ndarray: values and positions, byte for byte.
template <typename K>
void expect_sorted_as_ndarray(const Tensor<3, K>& x, int64_t dim, bool descending,
                              const Device& device) {
  const auto [values, positions] = x.to_device(device).sort_with_indices(dim, descending);
  const auto [expected_values, expected_positions] = x.sort_with_indices(dim, descending);
  EXPECT_TRUE(values.into_data() == expected_values.into_data())
      << x.shape() << " dim " << dim << (descending ? " descending" : "");
  EXPECT_TRUE(positions.into_data() == expected_positions.into_data())
      << x.shape() << " dim " << dim << (descending ? " descending" : "");
}

}  // namespace

void expect_sort_matches_ndarray(const Device& device) {
  // The pattern repeats every 101 elements: ties along every lane longer than that.
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{3, 50, 7}, std::vector<int64_t>{1, 2048, 1},
        std::vector<int64_t>{2, 2049, 1}, std::vector<int64_t>{4, 1, 300}})
    for (int64_t dim = 0; dim < 3; ++dim)
      for (const bool descending : {false, true}) {
        const Tensor<3> x = patterned(dims, Device::ndarray(), 3);
        expect_sorted_as_ndarray(x, dim, descending, device);
        expect_sorted_as_ndarray((x * 4.0).to_int().cast(DType::I32), dim, descending, device);
      }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor<3> special = Tensor<3>::from_data(
      TensorData(std::vector<float>{nan, 1, -inf, 0.0f, -0.0f, inf, 1, -nan, -1, 0.0f, nan, -inf},
                 Shape{2, 6, 1}),
      Device::ndarray());
  for (int64_t dim = 0; dim < 3; ++dim)
    for (const bool descending : {false, true})
      expect_sorted_as_ndarray(special, dim, descending, device);
}

}  // namespace ember::test
