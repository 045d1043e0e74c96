// The libtorch device's own semantics (docs/backends/libtorch.md): what it claims (dtypes, no
// pools), a profile window on the wall clock, the same random tensor as ndarray for a seed, every
// byte kept both ways, and a clear error for a libtorch_cuda GPU LibTorch does not see. The
// op-by-op values are the conformance and gradcheck suites' (they run on every device enumerate
// finds, libtorch included).
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "ember/device.h"
#include "ember/devices.h"
#include "ember/error.h"
#include "ember/pooling.h"
#include "ember/tensor.h"
#include "ember/tensor_ops.h"

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

/// What f gives on device: its result, or its error's message.
struct Outcome {
  std::optional<TensorData> value;
  std::string error;
};

template <typename F>
Outcome outcome_on(const Device& device, const F& f) {
  try {
    return {f(device), ""};
  } catch (const InvalidArgument& e) {
    return {std::nullopt, e.what()};
  }
}

/// f on libtorch gives exactly what it gives on ndarray (the oracle): the same bytes, or an
/// InvalidArgument with the same message.
template <typename F>
void expect_as_ndarray(const char* what, const F& f) {
  const Outcome expected = outcome_on(Device::ndarray(), f);
  const Outcome got = outcome_on(Device::libtorch(), f);
  EXPECT_EQ(got.error, expected.error) << what;
  EXPECT_EQ(got.value, expected.value) << what;
}

TensorData ints(const Device& device, DType dtype, std::vector<int64_t> values,
                const std::function<Tensor<1, Int>(const Tensor<1, Int>&)>& f) {
  return f(Tensor<1, Int>::from_ints(std::move(values),
                                     TensorCreationOptions(device).with_dtype(dtype)))
      .into_data();
}

TEST(LibTorchDevice, IntegerEdgeCasesAreNdarrays) {
  using I = Tensor<1, Int>;
  expect_as_ndarray("i64 MIN / -1 wraps", [](const Device& d) {
    return ints(d, DType::I64, {INT64_MIN, 7, -7}, [](const I& x) { return x.div_scalar(-1); });
  });
  expect_as_ndarray("i8 division truncates", [](const Device& d) {
    return ints(d, DType::I8, {-128, 7, -7, 5}, [](const I& x) { return x.div_scalar(-2); });
  });
  expect_as_ndarray("remainder takes the divisor's sign", [](const Device& d) {
    return ints(d, DType::I32, {-7, 7, -8, INT32_MIN},
                [](const I& x) { return x.remainder_scalar(-3); });
  });
  expect_as_ndarray("integer division by zero", [](const Device& d) {
    return ints(d, DType::I32, {1, 2}, [](const I& x) { return x.div(x - x); });
  });
  expect_as_ndarray("remainder by zero", [](const Device& d) {
    return ints(d, DType::U8, {1, 2}, [](const I& x) { return x.remainder_scalar(0); });
  });
  expect_as_ndarray("u8 divided by 255 (no -1 in u8)", [](const Device& d) {
    return ints(d, DType::U8, {254, 255, 0}, [](const I& x) { return x.div_scalar(255); });
  });
  expect_as_ndarray("u8 remainder by 255", [](const Device& d) {
    return ints(d, DType::U8, {254, 255, 7}, [](const I& x) { return x.remainder_scalar(255); });
  });
  expect_as_ndarray("u8 wraps", [](const Device& d) {
    return ints(d, DType::U8, {250, 3}, [](const I& x) { return x.add_scalar(10).mul_scalar(3); });
  });
  expect_as_ndarray("a negative integer power", [](const Device& d) {
    return ints(d, DType::I16, {2, -3}, [](const I& x) { return x.powi_scalar(-2); });
  });
  expect_as_ndarray("u8 powers wrap", [](const Device& d) {
    return ints(d, DType::U8, {2, 3, 255}, [](const I& x) { return x.powi_scalar(9); });
  });
}

TEST(LibTorchDevice, CastsRoundAsNdarrays) {
  const auto cast = [](DType from, DType to, std::vector<double> values) {
    return [=](const Device& d) {
      return Tensor<1>::from_floats(values, TensorCreationOptions(d).with_dtype(from))
          .cast(to)
          .into_data();
    };
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_as_ndarray("f32 to i32 saturates", cast(DType::F32, DType::I32, {nan, 3e9, -3e9, -2.7}));
  expect_as_ndarray("f64 to u8", cast(DType::F64, DType::U8, {-1, 255.9, 300, 1e300}));
  const double inf = std::numeric_limits<double>::infinity();
  expect_as_ndarray("f64 to i64 saturates",
                    cast(DType::F64, DType::I64, {0x1p63, -0x1p63, 0x1p63 - 1024, inf, -inf, nan}));
  expect_as_ndarray("f16 to i8", cast(DType::F16, DType::I8, {127.5, -128.9, -200, 65504}));
  expect_as_ndarray("bf16 to i16", cast(DType::BF16, DType::I16, {32768, -32769, 1.5, -inf}));
  // 1 + 2^-11 + 2^-30: f32 rounds it to 1 + 2^-11 (a tie in f16, to even: 1), f64 rounds up.
  expect_as_ndarray("f64 to f16 rounds once",
                    cast(DType::F64, DType::F16, {1.0 + 0x1p-11 + 0x1p-30, 65520.0, -0.0}));
  // A NaN stays a NaN, but its sign and payload in half precision are ATen's (not compared).
  expect_as_ndarray("f32 to bf16",
                    cast(DType::F32, DType::BF16, {1.00390625, -1.01171875, 3.4e38}));
}

TEST(LibTorchDevice, IntegerMaxPoolsAreNdarrays) {
  // Ties (the first maximum wins), padding (never wins) and the extremes of each integer type.
  const std::vector<int64_t> values{5, 5, -1, 7, 7, 2, 5, 7, 0, -9, 3, 3, 3, 3, 1, 1};
  const module::MaxPoolOptions options{.kernel_size = {2, 2}, .stride = {1, 1}, .padding = {1}};
  for (DType dtype : {DType::I64, DType::I32, DType::I16, DType::I8, DType::U8}) {
    expect_as_ndarray("max_pool2d with indices", [&](const Device& d) {
      const auto x = Tensor<1, Int>::from_ints(values, TensorCreationOptions(d).with_dtype(dtype))
                         .reshape<4>({1, 1, 4, 4});
      const auto [pooled, indices] = module::max_pool2d_with_indices(x, options);
      return ops::into_data(
          ops::cat({ops::cast(pooled.handle(), DType::I64), indices.handle()}, 0));
    });
  }
}

TEST(LibTorchDevice, EmptyLanesAreNdarraysErrors) {
  const auto on_empty = [](const std::function<TensorData(const Tensor<2>&)>& f) {
    return [=](const Device& d) { return f(Tensor<2>::zeros({3, 0}, d)); };
  };
  expect_as_ndarray("max over an empty dim",
                    on_empty([](const Tensor<2>& x) { return x.max_dim(1).into_data(); }));
  expect_as_ndarray("argmin over an empty dim",
                    on_empty([](const Tensor<2>& x) { return x.argmin(1).into_data(); }));
  expect_as_ndarray("sum over an empty dim",
                    on_empty([](const Tensor<2>& x) { return x.sum_dim(1).into_data(); }));
}

}  // namespace
}  // namespace ember::test
