#include "support/graphics_device_checks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "backends/shader/device_limits.h"
#include "backends/shader/host_runs.h"
#include "backends/shader/matmul_runs.h"
#include "ember/activation_functions.h"
#include "ember/devices.h"
#include "ember/error.h"
#include "ember/tensor_ops.h"
#include "support/same_bits.h"

namespace ember::test {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// A tensor of dims and dtype with values from a fixed pattern on device (its first element first
/// where that is not 0: a NaN or an infinity): multiples of 1/16 of at most 50 / 16 in magnitude,
/// distinct, of both signs, so every product of two is exact in f32 (f16's products included),
/// and a sum along k rounds alike however its products are fused.
template <std::size_t D>
Tensor<D> patterned_as(const std::vector<int64_t>& dims, DType dtype, const Device& device,
                       int seed, float first) {
  std::vector<float> values;
  int64_t count = 1;
  for (const int64_t d : dims)
    count *= d;
  for (int64_t i = 0; i < count; ++i)
    values.push_back(static_cast<float>((i * 37 + seed * 11) % 101 - 50) / 16.0f);
  if (first != 0 && !values.empty()) values[0] = first;
  return Tensor<D>::from_data(TensorData(values, Shape(dims)).convert(dtype),
                              TensorCreationOptions(device).with_dtype(dtype));
}

}  // namespace

bool loops_within_lavapipes_bound(const Device& device) {
  return device.name().ends_with(":cpu");
}

void expect_loop_bound_by_driver(const std::string& driver, const DeviceKind& kind,
                                 uint64_t max_loop_turns) {
  if (driver.find("llvmpipe") != std::string::npos) {
    EXPECT_EQ(max_loop_turns, shader::kCpuDeviceLoopTurns) << driver;
  } else if (kind.type() != DeviceKind::Type::Cpu) {
    EXPECT_EQ(max_loop_turns, shader::kGpuLoopTurns) << driver;
  }
}

Tensor<3> patterned(const std::vector<int64_t>& dims, const Device& device, int seed) {
  return patterned_as<3>(dims, DType::F32, device, seed, 0);
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

void expect_erf_on_the_device_within_f32(const Device& device) {
  // Both sides of the series' end (0.5), tiny values, the tail where erf rounds to 1, and the
  // special values: against the C library's erf of the same f32 inputs.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const std::vector<double> x = {0.0, -0.0, 1e-30,  -3e-8, 1e-4,  0.1,         -0.3, 0.4999,
                                 0.5, -0.5, 0.5001, 0.75,  -1.0,  1.7,         2.5,  -3.9,
                                 4.0, 6.0,  -20.0,  kInf,  -kInf, std::nan("")};
  const uint64_t host_before = shader::HostRuns::counts_so_far()["erf"];
  const std::vector<float> y =
      Tensor<1>::from_floats(x, device).cast(DType::F32).erf().into_data().to_vector<float>();
  EXPECT_EQ(shader::HostRuns::counts_so_far()["erf"], host_before) << "erf ran on the host";
  ASSERT_EQ(y.size(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double expected = std::erf(static_cast<double>(static_cast<float>(x[i])));
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(y[i])) << "erf(" << x[i] << ")";
      continue;
    }
    EXPECT_LE(std::abs(y[i] - expected), 3e-7 * std::abs(expected))
        << "erf(" << x[i] << ") = " << y[i] << ", not " << expected;
    EXPECT_EQ(std::signbit(y[i]), std::signbit(expected)) << "erf(" << x[i] << ")";
  }
}

void expect_flat_programs_match_ndarray(const Device& device) {
  for (const int64_t n : {1, 3, 4, 5, 1023, 4099}) {
    // Multiples of 1/16 of both signs (every sum exact in f32), 8 more than n, for slices of n
    // elements from each offset.
    std::vector<double> values;
    for (int64_t i = 0; i < n + 8; ++i)
      values.push_back(static_cast<double>((i * 37) % 101 - 50) / 16.0);
    const auto source = [&](const Device& on) {
      return Tensor<1>::from_floats(values, on).cast(DType::F32);
    };
    const Tensor<1> here = source(device), there = source(Device::ndarray());
    const Tensor<1> one = Tensor<1>::from_floats({0.75}, device).cast(DType::F32);
    const Tensor<1> one_there = Tensor<1>::from_floats({0.75}, Device::ndarray()).cast(DType::F32);
    for (const int64_t offset : {0, 1, 2, 4, 8}) {
      const std::string what = "n " + std::to_string(n) + ", offset " + std::to_string(offset);
      const Tensor<1> x = here.narrow(0, offset, n), x_there = there.narrow(0, offset, n);
      const Tensor<1> y = here.narrow(0, 8 - offset, n), y_there = there.narrow(0, 8 - offset, n);
      const auto same = [&](const TensorData& actual, const TensorData& expected,
                            const std::string& op) {
        EXPECT_TRUE(same_bits_or_both_nan(actual, expected)) << op << ", " << what;
      };
      same(x.into_data(), x_there.into_data(), "copy");
      same((x + y).into_data(), (x_there + y_there).into_data(), "add");
      same((x + one).into_data(), (x_there + one_there).into_data(), "add of one element");
      const auto i32 = [](const Tensor<1>& t) { return t.to_int().cast(DType::I32); };
      same((i32(x) * i32(y)).into_data(), (i32(x_there) * i32(y_there)).into_data(), "i32 mul");
      const Tolerance tolerance = Tolerance::for_dtype(DType::F32);
      EXPECT_TRUE(x.exp().into_data().approx_equal(x_there.exp().into_data(), tolerance))
          << "exp, " << what;
      EXPECT_TRUE(activation::gelu(x).into_data().approx_equal(
          activation::gelu(x_there).into_data(), tolerance))
          << "gelu, " << what;
    }
  }
}

void expect_a_program_past_the_bindings_runs(const Device& device) {
  // 20 chains queued together: the fusion layer makes them one program of 20 inputs and 20
  // results, more tensors than lavapipe binds to one kernel (32); it runs op by op instead.
  constexpr int kChains = 20;
  std::vector<Tensor<1>> inputs;
  for (int k = 0; k < kChains; ++k) {
    const auto v = static_cast<float>(k);
    inputs.push_back(Tensor<1>::from_floats({v, v + 0.5f, -v}, device));
  }
  std::vector<Tensor<1>> results;
  for (const Tensor<1>& x : inputs)
    results.push_back(x * 2.0 + 1.0);
  for (int k = 0; k < kChains; ++k) {
    const auto v = static_cast<float>(k);
    EXPECT_EQ(results[static_cast<std::size_t>(k)].into_data().to_vector<float>(),
              (std::vector<float>{2 * v + 1, 2 * v + 2, 1 - 2 * v}))
        << "chain " << k;
  }
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

/// lhs @ rhs of dtype on device and on ndarray: equal value for value (NaN equal to NaN), as the
/// kernels add each output's exact products in order along k as ndarray does. Whether the device
/// ran it on its matmul kernel (matmul_runs: tiled or cooperative) is returned.
template <std::size_t D>
bool expect_same_product(const Device& device, DType dtype, const std::vector<int64_t>& lhs,
                         const std::vector<int64_t>& rhs, float poison = 0) {
  const auto make = [&](const std::vector<int64_t>& dims, const Device& on, int seed) {
    return patterned_as<D>(dims, dtype, on, seed, seed == 1 ? poison : 0.0f);
  };
  const shader::MatmulRuns& runs = shader::matmul_runs();
  const uint64_t before = runs.tiled + runs.cooperative;
  const TensorData actual = make(lhs, device, 1).matmul(make(rhs, device, 2)).into_data();
  const bool on_device = runs.tiled + runs.cooperative > before;
  const TensorData expected =
      make(lhs, Device::ndarray(), 1).matmul(make(rhs, Device::ndarray(), 2)).into_data();
  std::string why;
  EXPECT_TRUE(actual.approx_equal(expected, Tolerance{0, 0}, &why))
      << dtype << " " << Shape(lhs) << " @ " << Shape(rhs) << ": " << why;
  return on_device;
}

/// x sorted along dim on device equals x sorted on ndarray: values and positions, byte for byte;
/// sorted by the device's kernels (none sent to the host).
template <typename K>
void expect_sorted_as_ndarray(const Tensor<3, K>& x, int64_t dim, bool descending,
                              const Device& device) {
  const auto host_sorts = [] { return shader::HostRuns::counts_so_far()["sort"]; };
  const uint64_t before = host_sorts();
  const auto [values, positions] = x.to_device(device).sort_with_indices(dim, descending);
  EXPECT_EQ(host_sorts(), before) << "sorted on the host: " << x.shape() << " dim " << dim;
  const auto [expected_values, expected_positions] = x.sort_with_indices(dim, descending);
  EXPECT_TRUE(values.into_data() == expected_values.into_data())
      << x.shape() << " dim " << dim << (descending ? " descending" : "");
  EXPECT_TRUE(positions.into_data() == expected_positions.into_data())
      << x.shape() << " dim " << dim << (descending ? " descending" : "");
}

}  // namespace

void expect_products_read_transposes_as_they_are(const Device& device) {
  const auto make = [](const std::vector<int64_t>& dims, const Device& on, int seed) {
    return patterned_as<3>(dims, DType::F32, on, seed, 0);
  };
  const auto same = [](const Tensor<3>& actual, const Tensor<3>& expected, const char* what) {
    std::string why;
    EXPECT_TRUE(actual.into_data().approx_equal(expected.into_data(), Tolerance{0, 0}, &why))
        << what << ": " << why;
  };
  // [2, 70, 33] @ [2, 33, 45] from transposes of [2, 33, 70] and [2, 45, 33].
  const auto cases = [&](const Device& on) {
    const Tensor<3> lhs_t = make({2, 33, 70}, on, 1).transpose();
    const Tensor<3> rhs_t = make({2, 45, 33}, on, 2).transpose();
    const Tensor<3> lhs = make({2, 70, 33}, on, 1);
    const Tensor<3> rhs = make({2, 33, 45}, on, 2);
    return std::vector<Tensor<3>>{lhs_t.matmul(rhs), lhs.matmul(rhs_t), lhs_t.matmul(rhs_t),
                                  // the transposes read by others after a product read them
                                  lhs_t + 1.0f, rhs_t.reshape(std::array<int64_t, 3>{2, 45, 33}),
                                  rhs_t.transpose().transpose()};
  };
  const uint64_t before = shader::matmul_runs().transposed;
  const std::vector<Tensor<3>> actual = cases(device);
  const std::vector<Tensor<3>> expected = cases(Device::ndarray());
  const char* what[] = {
      "lhs^T @ rhs", "lhs @ rhs^T", "lhs^T @ rhs^T", "lhs^T + 1 (after)", "rhs^T reshaped (after)",
      "rhs^T^T^T"};
  for (std::size_t i = 0; i < actual.size(); ++i)
    same(actual[i], expected[i], what[i]);
  EXPECT_EQ(shader::matmul_runs().transposed - before, 4u);
}

void expect_matmul_kernel_takes_every_float_case(const Device& device) {
  for (const DType dtype : {DType::F32, DType::F16, DType::F64}) {
    if (!device.supports_dtype(dtype)) continue;
    const bool f64_on_host = dtype == DType::F64 && device.name().starts_with("wgpu");
    const auto on_device = [&](bool ran) { EXPECT_EQ(ran, !f64_on_host) << dtype; };
    // Odd sizes across several 64 x 64 tiles and 16-long k steps.
    on_device(expect_same_product<2>(device, dtype, {130, 33}, {33, 67}));
    on_device(expect_same_product<3>(device, dtype, {2, 65, 17}, {2, 17, 129}));
    // k and n multiples of 8 (vulkan's cooperative kernel reads them 16 bytes at a time), whole
    // tiles and partial ones.
    on_device(expect_same_product<3>(device, dtype, {2, 130, 48}, {2, 48, 136}));
    // k over several of the cooperative kernel's double-buffered steps of 32 (both buffers
    // reused), a partial last step, read 16 bytes at a time and element by element.
    on_device(expect_same_product<3>(device, dtype, {2, 136, 200}, {2, 200, 264}));
    on_device(expect_same_product<2>(device, dtype, {130, 101}, {101, 67}));
    // One tile and a long k: on f32 and f64, k split into chunks (the device's workgroups are
    // too few otherwise), each chunk's partial product summed in order by a second kernel.
    const uint64_t splits = shader::matmul_runs().split;
    on_device(expect_same_product<3>(device, dtype, {1, 64, 1000}, {1, 1000, 64}));
    EXPECT_EQ(shader::matmul_runs().split > splits, dtype != DType::F16 && !f64_on_host) << dtype;
    // Partly broadcast batches: each side's size-1 dims against the other's (strides of 0), and
    // a batch broadcast at the first, middle and last batch dim.
    on_device(expect_same_product<4>(device, dtype, {2, 1, 5, 7}, {1, 3, 7, 6}));
    on_device(expect_same_product<4>(device, dtype, {1, 3, 9, 4}, {2, 3, 4, 5}));
    on_device(expect_same_product<5>(device, dtype, {2, 3, 1, 4, 6}, {2, 1, 4, 6, 3}));
    // A NaN and an infinity in the left operand: propagated as ndarray propagates them.
    on_device(expect_same_product<3>(device, dtype, {2, 3, 20}, {2, 20, 70}, NAN));
    on_device(expect_same_product<3>(device, dtype, {2, 3, 20}, {2, 20, 70}, INFINITY));
    // Empty dims: no batch entries, no rows, an empty k (zeros) — nothing to run or zeros.
    expect_same_product<3>(device, dtype, {0, 3, 4}, {0, 4, 5});
    expect_same_product<3>(device, dtype, {2, 0, 4}, {2, 4, 5});
    expect_same_product<3>(device, dtype, {2, 6, 0}, {2, 0, 5});
  }
  // The longest k the kernel takes on lavapipe (its loop limit) on the device, one longer on the
  // host there (a GPU's kernel takes both).
  EXPECT_TRUE(expect_same_product<2>(device, DType::F32, {2, 60000}, {60000, 3}));
  EXPECT_EQ(expect_same_product<2>(device, DType::F32, {2, 60001}, {60001, 3}),
            !loops_within_lavapipes_bound(device));
  // Six batch dims that do not merge into four: the host.
  EXPECT_FALSE(expect_same_product<8>(device, DType::F32, {2, 1, 2, 1, 2, 1, 3, 4},
                                      {1, 2, 1, 2, 1, 2, 4, 3}));
}

void expect_sort_matches_ndarray(const Device& device) {
  // The pattern repeats every 101 elements: ties along every lane longer than that. Lanes of up
  // to 2048 elements are sorted by one workgroup each, along every dim.
  const auto sorted_as_ndarray = [&](const std::vector<int64_t>& dims, int64_t dim) {
    for (const bool descending : {false, true}) {
      const Tensor<3> x = patterned(dims, Device::ndarray(), 3);
      expect_sorted_as_ndarray(x, dim, descending, device);
      expect_sorted_as_ndarray((x * 4.0).to_int().cast(DType::I32), dim, descending, device);
    }
  };
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{3, 50, 7}, std::vector<int64_t>{1, 2048, 1},
        std::vector<int64_t>{4, 1, 300}})
    for (int64_t dim = 0; dim < 3; ++dim)
      sorted_as_ndarray(dims, dim);
  // Longer ones (2049, 5000, 70000, six of 3000 along a middle dim) in blocks of 2048, merged.
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{2, 2049, 1}, std::vector<int64_t>{1, 5000, 1},
        std::vector<int64_t>{1, 70000, 1}, std::vector<int64_t>{2, 3000, 3}})
    sorted_as_ndarray(dims, 1);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor<3> special = Tensor<3>::from_data(
      TensorData(std::vector<float>{nan, 1, -inf, 0.0f, -0.0f, inf, 1, -nan, -1, 0.0f, nan, -inf},
                 Shape{2, 6, 1}),
      Device::ndarray());
  for (int64_t dim = 0; dim < 3; ++dim)
    for (const bool descending : {false, true})
      expect_sorted_as_ndarray(special, dim, descending, device);
  // The same values over lanes of 6000 (blocks of 2048 merged): NaNs of two signs, infinities
  // and both zeros, each many times, among the pattern's values.
  std::vector<float> long_special =
      patterned({2, 6000, 1}, Device::ndarray(), 5).into_data().to_vector<float>();
  const std::vector<float> specials = special.into_data().to_vector<float>();
  for (std::size_t i = 0; i < long_special.size(); i += 7)
    long_special[i] = specials[(i / 7) % specials.size()];
  const Tensor<3> long_specials =
      Tensor<3>::from_data(TensorData(long_special, Shape{2, 6000, 1}), Device::ndarray());
  for (const bool descending : {false, true})
    expect_sorted_as_ndarray(long_specials, 1, descending, device);
}

void expect_random_matches_ndarray(const Device& device) {
  const auto drawn = [](const Device& on, const Distribution& d) {
    on.seed(1234);
    Tensor<3>::random({3, 1001, 7}, d, TensorCreationOptions(on)).into_data();  // a second key
    return Tensor<3>::random({3, 1001, 7}, d, TensorCreationOptions(on)).into_data();
  };
  const auto host_draws = [] { return shader::HostRuns::counts_so_far()["random"]; };
  for (const Distribution& d :
       {Distribution::Default, Distribution::bernoulli(0.3), Distribution::bernoulli(0.9),
        Distribution::bernoulli(0.0), Distribution::bernoulli(1.0)}) {
    const uint64_t before = host_draws();
    EXPECT_TRUE(drawn(device, d) == drawn(Device::ndarray(), d)) << d.a;
    EXPECT_EQ(host_draws(), before) << "drawn on the host: " << d.a;
  }
  // Drawn on the host (a shader's fma may round twice), the same bits all the same.
  for (const Distribution& d : {Distribution::uniform(-2.0, 3.0), Distribution::normal(1.0, 2.0)}) {
    const uint64_t before = host_draws();
    EXPECT_TRUE(drawn(device, d) == drawn(Device::ndarray(), d)) << d.a << " " << d.b;
    EXPECT_EQ(host_draws(), before + 2);
  }
}

void expect_round_is_half_to_even(const Device& device) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> values = {-3.5,
                                      -2.5,
                                      -1.5,
                                      -0.5,
                                      -0.4,
                                      -0.0,
                                      0.0,
                                      0.4,
                                      0.5,
                                      1.5,
                                      2.5,
                                      3.5,
                                      7.25,
                                      8.75,
                                      0.49999999999999994,
                                      8388607.5,
                                      4503599627370495.5,
                                      1e300,
                                      -inf,
                                      inf,
                                      std::numeric_limits<double>::quiet_NaN()};
  for (const DType dtype : {DType::F32, DType::F64}) {
    if (!device.supports_dtype(dtype)) continue;
    const TensorData data =
        TensorData(values, Shape{static_cast<int64_t>(values.size())}).convert(dtype);
    const TensorData expected = Tensor<1>::from_data(data, Device::ndarray()).round().into_data();
    const TensorData actual = Tensor<1>::from_data(data, device).round().into_data();
    EXPECT_TRUE(same_bits_or_both_nan(actual, expected))
        << dtype_name(dtype) << "\n  actual:   " << actual << "\n  expected: " << expected;
  }
}

}  // namespace ember::test
