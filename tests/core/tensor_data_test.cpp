#include "ember/tensor_data.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "test_helpers.h"

namespace ember {
namespace {

using test::invalid_argument_message;
using test::printed;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<std::byte> bytes_of_size(std::size_t n) {
  return std::vector<std::byte>(n);
}

// ---- construction ------------------------------------------------------------------------------

TEST(TensorData, DefaultIsAnEmptyF32Vector) {
  const TensorData d;
  EXPECT_EQ(d.shape(), Shape({0}));
  EXPECT_EQ(d.dtype(), DType::F32);
  EXPECT_EQ(d.num_elements(), 0);
  EXPECT_TRUE(d.bytes().empty());
}

TEST(TensorData, ValuesTakeTheirDTypeFromTheElementType) {
  const TensorData d(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape({2, 3}));
  EXPECT_EQ(d.dtype(), DType::F32);
  EXPECT_EQ(d.shape(), Shape({2, 3}));
  EXPECT_EQ(d.bytes().size(), 24u);
  EXPECT_EQ(d.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(TensorData(std::vector<int64_t>{1}, Shape({1})).dtype(), DType::I64);
  EXPECT_EQ(TensorData(std::vector<long long>{1}, Shape({1})).dtype(), DType::I64);
  EXPECT_EQ(TensorData(std::vector<uint8_t>{1}, Shape({1})).dtype(), DType::U8);
  EXPECT_EQ(TensorData(std::vector<Half>{Half(1.0f)}, Shape({1})).dtype(), DType::F16);
  EXPECT_EQ(TensorData(std::vector<bool>{true, false}, Shape({2})).dtype(), DType::Bool);
}

TEST(TensorData, RawBytesAreRowMajorElements) {
  const float values[] = {1.5f, -2.0f};
  std::vector<std::byte> bytes(sizeof values);
  std::memcpy(bytes.data(), values, sizeof values);
  const TensorData d(bytes, Shape({2}), DType::F32);
  EXPECT_EQ(d.to_vector<float>(), (std::vector<float>{1.5f, -2.0f}));
  EXPECT_EQ(std::move(TensorData(d)).into_bytes(), bytes);
}

TEST(TensorData, UninitializedHoldsWhatItsProducerWrites) {
  // 6 MiB: a block of its own on huge pages (core/host_blocks.h), as a large download's.
  const int64_t count = int64_t{6} << 18;
  TensorData d = TensorData::uninitialized(Shape({2, count / 2}), DType::F32);
  EXPECT_EQ(d.shape(), Shape({2, count / 2}));
  EXPECT_EQ(d.bytes().size(), static_cast<std::size_t>(count) * 4);
  std::span<float> values = d.as_mut<float>();
  for (int64_t i = 0; i < count; ++i)
    values[static_cast<std::size_t>(i)] = static_cast<float>(i % 1000);
  // A copy is deep: writing it leaves d as it was.
  TensorData copy = d;
  copy.as_mut<float>()[7] = -1.0f;
  EXPECT_EQ(d.as<float>()[7], 7.0f);
  EXPECT_EQ(copy.as<float>()[8], 8.0f);
  EXPECT_FALSE(copy == d);
  copy.as_mut<float>()[7] = 7.0f;
  EXPECT_TRUE(copy == d);
  // into_bytes copies the block out: element 1001 holds 1.0f, 0x3f800000 (little-endian).
  const std::vector<std::byte> bytes = std::move(copy).into_bytes();
  ASSERT_EQ(bytes.size(), d.bytes().size());
  EXPECT_EQ(bytes[1001 * 4 + 3], std::byte{0x3f});
  EXPECT_EQ(bytes[1001 * 4 + 2], std::byte{0x80});
  EXPECT_EQ(TensorData::uninitialized(Shape({0, 3}), DType::I64).bytes().size(), 0u);
  EXPECT_THROW(TensorData::uninitialized(Shape({2, -1}), DType::F32), InvalidArgument);
}

TEST(TensorData, ValuesConvertToAGivenDType) {
  const TensorData d(std::vector<double>{1.5, -2.5, 3.0}, Shape({3}), DType::I32);
  EXPECT_EQ(d.dtype(), DType::I32);
  EXPECT_EQ(d.to_vector<int32_t>(), (std::vector<int32_t>{1, -2, 3}));  // toward zero
}

TEST(TensorData, RankZeroHoldsOneValue) {
  const TensorData d(std::vector<int32_t>{42}, Shape{});
  EXPECT_EQ(d.num_elements(), 1);
  EXPECT_EQ(d.as<int32_t>()[0], 42);
}

TEST(TensorData, WrongByteCountIsInvalidArgument) {
  EXPECT_EQ(invalid_argument_message([] {
              TensorData(bytes_of_size(20), Shape({2, 3}), DType::F32);
            }),
            "[TensorData] shape [2, 3] of f32 needs 24 bytes (6 elements of 4 bytes), got 20 "
            "bytes");
  EXPECT_EQ(invalid_argument_message([] {
              TensorData(std::vector<int16_t>{1, 2, 3}, Shape({2, 2}));
            }),
            "[TensorData] shape [2, 2] of i16 needs 8 bytes (4 elements of 2 bytes), got 6 bytes");
  EXPECT_THROW(TensorData(std::vector<float>{1, 2}, Shape{}, DType::F64), InvalidArgument);
  EXPECT_THROW(TensorData(bytes_of_size(1), Shape({0}), DType::U8), InvalidArgument);
}

TEST(TensorData, NegativeDimIsInvalidArgument) {
  EXPECT_EQ(invalid_argument_message([] {
              TensorData(bytes_of_size(0), Shape({2, -1}), DType::F32);
            }),
            "[TensorData] shape [2, -1] has a negative dim");
  // -2 x -3 = 6 elements would match the byte count: the sign must still be refused.
  EXPECT_THROW(TensorData(std::vector<float>(6), Shape({-2, -3})), InvalidArgument);
  EXPECT_THROW(TensorData::zeros(Shape({-1}), DType::F32), InvalidArgument);
}

TEST(TensorData, OverflowingByteCountIsInvalidArgument) {
  // 2^62 elements fit int64, but 2^62 * 8 bytes do not fit size_t.
  EXPECT_THROW(TensorData::zeros(Shape({int64_t{1} << 62}), DType::F64), InvalidArgument);
  // 2^62 f32 elements: 2^64 bytes, which wrap to 0 in 64 bits (the huge-shape crash).
  EXPECT_THROW(TensorData(std::vector<std::byte>{}, Shape({int64_t{1} << 62}), DType::F32),
               InvalidArgument);
}

TEST(TensorData, BoolBytesMustBeZeroOrOne) {
  std::vector<std::byte> bytes = {std::byte{1}, std::byte{0}, std::byte{2}};
  EXPECT_EQ(invalid_argument_message([&] { TensorData(bytes, Shape({3}), DType::Bool); }),
            "[TensorData] bool byte 2 is 2, which is neither 0 nor 1");
  bytes[2] = std::byte{1};
  EXPECT_EQ(TensorData(bytes, Shape({3}), DType::Bool).to_vector<bool>(),
            (std::vector<bool>{true, false, true}));
}

TEST(TensorData, ZerosOfEveryDType) {
  for (DType dtype : kAllDTypes) {
    const TensorData d = TensorData::zeros(Shape({2, 3}), dtype);
    EXPECT_EQ(d.dtype(), dtype);
    EXPECT_EQ(d.shape(), Shape({2, 3}));
    EXPECT_EQ(d.bytes().size(), 6 * dtype_size(dtype));
    EXPECT_EQ(d.to_vector<double>(), std::vector<double>(6, 0.0)) << dtype;
  }
  EXPECT_EQ(TensorData::zeros(Shape({0, 5}), DType::F32).bytes().size(), 0u);
}

// ---- typed access ------------------------------------------------------------------------------

TEST(TensorData, AsViewsTheValuesOfTheExactType) {
  TensorData d(std::vector<int32_t>{1, 2, 3}, Shape({3}));
  EXPECT_EQ(d.as<int32_t>().size(), 3u);
  EXPECT_EQ(d.as<int32_t>()[2], 3);
  d.as_mut<int32_t>()[0] = 10;
  EXPECT_EQ(d.to_vector<int64_t>(), (std::vector<int64_t>{10, 2, 3}));
}

TEST(TensorData, AsWithAnotherTypeIsInvalidArgument) {
  TensorData d(std::vector<float>{1, 2}, Shape({2}));
  EXPECT_EQ(invalid_argument_message([&] { d.as<int64_t>(); }),
            "[TensorData::as] tensor is f32, requested i64");
  EXPECT_EQ(invalid_argument_message([&] { d.as<double>(); }),
            "[TensorData::as] tensor is f32, requested f64");
  EXPECT_EQ(invalid_argument_message([&] { d.as_mut<Half>(); }),
            "[TensorData::as_mut] tensor is f32, requested f16");
  const TensorData u(std::vector<uint32_t>{1}, Shape({1}));
  EXPECT_THROW(u.as<int32_t>(), InvalidArgument);  // same size, other signedness
}

TEST(TensorData, ToVectorConvertsToAnyElementType) {
  const TensorData d(std::vector<int64_t>{-2, 0, 3}, Shape({3}));
  EXPECT_EQ(d.to_vector<double>(), (std::vector<double>{-2.0, 0.0, 3.0}));
  EXPECT_EQ(d.to_vector<float>(), (std::vector<float>{-2.0f, 0.0f, 3.0f}));
  EXPECT_EQ(d.to_vector<int8_t>(), (std::vector<int8_t>{-2, 0, 3}));
  EXPECT_EQ(d.to_vector<uint8_t>(), (std::vector<uint8_t>{254, 0, 3}));  // wraps mod 256
  EXPECT_EQ(d.to_vector<bool>(), (std::vector<bool>{true, false, true}));
  const std::vector<Half> halves = d.to_vector<Half>();
  EXPECT_EQ(halves[0].bits, 0xC000);  // -2
  EXPECT_EQ(halves[2].bits, 0x4200);  // 3 = 1.5 x 2^1
}

// ---- conversion --------------------------------------------------------------------------------

TEST(TensorData, EveryDTypePairRoundTripsValuesAllCanHold) {
  // 0 and 1 exist in all 13 dtypes; 0..127 in every dtype but bool.
  const std::vector<double> bits = {0, 1, 1, 0, 1};
  const std::vector<double> small = {0, 1, 2, 3, 100, 127};
  for (DType from : kAllDTypes) {
    for (DType to : kAllDTypes) {
      const std::vector<double>& values = is_bool(from) || is_bool(to) ? bits : small;
      const TensorData source(values, Shape({static_cast<int64_t>(values.size())}), from);
      const TensorData converted = source.convert(to);
      EXPECT_EQ(converted.dtype(), to);
      EXPECT_EQ(converted.shape(), source.shape());
      EXPECT_EQ(converted.to_vector<double>(), values) << from << " -> " << to;
      EXPECT_EQ(converted.convert(from), source) << from << " -> " << to << " -> " << from;
    }
  }
}

TEST(TensorData, ConvertKeepsTheShape) {
  const TensorData d(std::vector<int32_t>{1, 2, 3, 4, 5, 6}, Shape({3, 1, 2}));
  EXPECT_EQ(d.convert(DType::BF16).shape(), Shape({3, 1, 2}));
  EXPECT_EQ(TensorData::zeros(Shape{}, DType::U16).convert(DType::F64).shape(), Shape{});
}

TEST(TensorData, FloatToIntTruncatesTowardZero) {
  const TensorData d(std::vector<float>{2.7f, -2.7f, 0.5f, -0.5f, 7.0f}, Shape({5}));
  EXPECT_EQ(d.convert(DType::I32).to_vector<int32_t>(), (std::vector<int32_t>{2, -2, 0, 0, 7}));
}

TEST(TensorData, FloatToIntSaturatesAndMapsNaNToZero) {
  const TensorData f32(std::vector<float>{1e10f, -1e10f, NAN, INFINITY, -INFINITY}, Shape({5}));
  EXPECT_EQ(f32.convert(DType::I32).to_vector<int32_t>(),
            (std::vector<int32_t>{INT32_MAX, INT32_MIN, 0, INT32_MAX, INT32_MIN}));
  const TensorData f64(std::vector<double>{300, -5, 255.9, 1e19, -1e19}, Shape({5}));
  EXPECT_EQ(f64.convert(DType::U8).to_vector<uint8_t>(),
            (std::vector<uint8_t>{255, 0, 255, 255, 0}));
  EXPECT_EQ(f64.convert(DType::I64).to_vector<int64_t>(),
            (std::vector<int64_t>{300, -5, 255, INT64_MAX, INT64_MIN}));
  EXPECT_EQ(f64.convert(DType::U64).to_vector<uint64_t>(),
            (std::vector<uint64_t>{300, 0, 255, 10'000'000'000'000'000'000u, 0}));
  const TensorData big(std::vector<double>{2e19, 9.2e18}, Shape({2}));
  EXPECT_EQ(big.convert(DType::U64).to_vector<uint64_t>(),
            (std::vector<uint64_t>{UINT64_MAX, 9'200'000'000'000'000'000u}));
  const TensorData half(std::vector<Half>{Half(70000.0f), Half(-3.5f)}, Shape({2}));  // inf, -3.5
  EXPECT_EQ(half.convert(DType::I16).to_vector<int16_t>(), (std::vector<int16_t>{INT16_MAX, -3}));
}

TEST(TensorData, IntToNarrowerIntWraps) {
  // As C++20 and PyTorch: torch.tensor([300, -1, 65537]).to(torch.uint8) == [44, 255, 1].
  const TensorData d(std::vector<int32_t>{300, -1, 65537}, Shape({3}));
  EXPECT_EQ(d.convert(DType::U8).to_vector<uint8_t>(), (std::vector<uint8_t>{44, 255, 1}));
  EXPECT_EQ(d.convert(DType::I16).to_vector<int16_t>(), (std::vector<int16_t>{300, -1, 1}));
}

TEST(TensorData, ToBoolIsNonZero) {
  const TensorData f(std::vector<float>{0.0f, -0.0f, 0.5f, NAN, -INFINITY}, Shape({5}));
  EXPECT_EQ(f.convert(DType::Bool).to_vector<bool>(),
            (std::vector<bool>{false, false, true, true, true}));
  const TensorData i(std::vector<int64_t>{0, -3, 256}, Shape({3}));
  EXPECT_EQ(i.convert(DType::Bool).to_vector<bool>(), (std::vector<bool>{false, true, true}));
  const TensorData b(std::vector<bool>{true, false}, Shape({2}));
  EXPECT_EQ(b.convert(DType::F32).to_vector<float>(), (std::vector<float>{1.0f, 0.0f}));
}

TEST(TensorData, WideIntegersConvertExactlyOrCorrectlyRounded) {
  const int64_t big = (int64_t{1} << 53) + 1;  // not a double
  const TensorData d(std::vector<int64_t>{big, INT64_MIN}, Shape({2}));
  EXPECT_EQ(d.convert(DType::U64).convert(DType::I64), d);
  EXPECT_EQ(d.convert(DType::F64).to_vector<double>(), (std::vector<double>{0x1p53, -0x1p63}));
  const TensorData u(std::vector<uint64_t>{UINT64_MAX}, Shape({1}));
  EXPECT_EQ(u.convert(DType::F32).to_vector<float>(), (std::vector<float>{0x1p64f}));
  EXPECT_EQ(u.convert(DType::I64).to_vector<int64_t>(), (std::vector<int64_t>{-1}));  // wraps
}

TEST(TensorData, NarrowFloatsConvertWithOneRounding) {
  // 1 + 2^-11 + 2^-40 lies just above a Half tie: a detour through f32 would reach the tie.
  const TensorData d(std::vector<double>{1.0 + 0x1p-11 + 0x1p-40}, Shape({1}));
  EXPECT_EQ(d.convert(DType::F16).as<Half>()[0].bits, 0x3C01);
  EXPECT_EQ(d.convert(DType::F32).convert(DType::F16).as<Half>()[0].bits, 0x3C00);
}

// ---- comparison --------------------------------------------------------------------------------

TEST(TensorData, EqualityIsExact) {
  const TensorData a(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape({2, 3}));
  EXPECT_TRUE(a == TensorData(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape({2, 3})));
  EXPECT_FALSE(a == TensorData(std::vector<float>{1, 2, 3, 4, 5, 7}, Shape({2, 3})));
  EXPECT_FALSE(a == TensorData(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape({3, 2})));
  EXPECT_FALSE(a == TensorData(std::vector<int32_t>{1, 2, 3, 4, 5, 6}, Shape({2, 3})));
  EXPECT_FALSE(a == TensorData(std::vector<float>{1, 2, 3, 4, 5, 6 + 1e-6f}, Shape({2, 3})));
}

TEST(TensorData, ApproxEqualUsesRelativeAndAbsoluteTolerance) {
  const TensorData expected(std::vector<double>{100.0, 0.0}, Shape({2}));
  const Tolerance tol{.rtol = 1e-3, .atol = 1e-6};
  // Allowed: |a - b| <= 1e-6 + 1e-3 * |b|, i.e. 0.100001 at 100 and 1e-6 at 0.
  EXPECT_TRUE(TensorData(std::vector<double>{100.1, 1e-6}, Shape({2})).approx_equal(expected, tol));
  EXPECT_TRUE(TensorData(std::vector<double>{99.9, -1e-6}, Shape({2})).approx_equal(expected, tol));
  EXPECT_FALSE(
      TensorData(std::vector<double>{100.11, 0.0}, Shape({2})).approx_equal(expected, tol));
  EXPECT_FALSE(
      TensorData(std::vector<double>{100.0, 2e-6}, Shape({2})).approx_equal(expected, tol));
}

TEST(TensorData, ApproxEqualToleranceIsRelativeToOther) {
  // As numpy.isclose(a, b): |a - b| <= atol + rtol * |b|, b being the argument.
  const Tolerance tol{.rtol = 0.5, .atol = 0.0};
  const TensorData one(std::vector<double>{1.0}, Shape({1}));
  const TensorData two(std::vector<double>{2.0}, Shape({1}));
  EXPECT_TRUE(one.approx_equal(two, tol));   // 1 <= 0.5 * 2
  EXPECT_FALSE(two.approx_equal(one, tol));  // 1 > 0.5 * 1
}

TEST(TensorData, ApproxEqualHandlesNaNAndInfinity) {
  const Tolerance loose{.rtol = 1e6, .atol = 1e6};
  const auto vec = [](double v) { return TensorData(std::vector<double>{v}, Shape({1})); };
  EXPECT_TRUE(vec(kNaN).approx_equal(vec(kNaN), loose));
  EXPECT_FALSE(vec(kNaN).approx_equal(vec(1.0), loose));
  EXPECT_FALSE(vec(1.0).approx_equal(vec(kNaN), loose));
  EXPECT_TRUE(vec(kInf).approx_equal(vec(kInf), loose));
  EXPECT_FALSE(vec(kInf).approx_equal(vec(-kInf), loose));
  EXPECT_FALSE(vec(1.0).approx_equal(vec(kInf), loose));  // rtol * inf must not excuse it
  EXPECT_FALSE(vec(kInf).approx_equal(vec(1e308), loose));
}

TEST(TensorData, ApproxEqualComparesValuesAcrossDTypes) {
  const TensorData ints(std::vector<int32_t>{1, 2, 3}, Shape({3}));
  const TensorData floats(std::vector<float>{1, 2, 3}, Shape({3}));
  const TensorData halves = floats.convert(DType::F16);
  EXPECT_TRUE(ints.approx_equal(floats, Tolerance::for_dtype(DType::I32)));
  EXPECT_TRUE(halves.approx_equal(ints, Tolerance::for_dtype(DType::F16)));
  EXPECT_FALSE(ints.approx_equal(TensorData(std::vector<float>{1, 2, 3.5f}, Shape({3})),
                                 Tolerance::for_dtype(DType::I32)));
}

TEST(TensorData, ApproxEqualExplainsAShapeMismatch) {
  const TensorData a(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape({2, 3}));
  const TensorData b(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape({3, 2}));
  std::string why;
  EXPECT_FALSE(a.approx_equal(b, Tolerance{}, &why));
  EXPECT_EQ(why, "shapes differ: [2, 3] vs [3, 2]");
  EXPECT_FALSE(a.approx_equal(b, Tolerance{}));  // why is optional
}

TEST(TensorData, ApproxEqualNamesTheFirstDifferingIndex) {
  const TensorData a(std::vector<float>{1, 2, 3, 4, 5.5f, 7}, Shape({2, 3}));
  const TensorData b(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape({2, 3}));
  std::string why;
  EXPECT_FALSE(a.approx_equal(b, Tolerance{.rtol = 0.01, .atol = 0.0}, &why));
  EXPECT_EQ(why, "values differ at [1, 1]: 5.5 vs 5 (rtol 0.01, atol 0)");
  EXPECT_TRUE(a.approx_equal(a, Tolerance{}, &why));
}

TEST(TensorData, ToleranceForDType) {
  const auto expect_tolerance = [](DType d, double rtol, double atol) {
    const Tolerance t = Tolerance::for_dtype(d);
    EXPECT_EQ(t.rtol, rtol) << d;
    EXPECT_EQ(t.atol, atol) << d;
  };
  expect_tolerance(DType::F64, 1e-10, 1e-12);
  expect_tolerance(DType::F32, 1e-5, 1e-6);
  expect_tolerance(DType::F16, 1e-2, 1e-3);
  expect_tolerance(DType::BF16, 2e-2, 1e-2);
  for (DType d : kAllDTypes) {
    if (!is_float(d)) expect_tolerance(d, 0.0, 0.0);
  }
}

// ---- printing ----------------------------------------------------------------------------------

TEST(TensorData, PrintsNestedValues) {
  EXPECT_EQ(printed(TensorData(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape({2, 3}))),
            "TensorData { shape: [2, 3], dtype: f32, values: [[1, 2, 3], [4, 5, 6]] }");
  EXPECT_EQ(printed(TensorData(std::vector<double>{0.1, -2.5, 1e20}, Shape({3}))),
            "TensorData { shape: [3], dtype: f64, values: [0.1, -2.5, 1e+20] }");
  EXPECT_EQ(printed(TensorData(std::vector<int32_t>{5}, Shape{})),
            "TensorData { shape: [], dtype: i32, values: 5 }");
}

TEST(TensorData, PrintsEmptyTensors) {
  EXPECT_EQ(printed(TensorData()), "TensorData { shape: [0], dtype: f32, values: [] }");
  EXPECT_EQ(printed(TensorData::zeros(Shape({2, 0}), DType::I64)),
            "TensorData { shape: [2, 0], dtype: i64, values: [[], []] }");
}

TEST(TensorData, PrintsEveryKindOfElement) {
  EXPECT_EQ(printed(TensorData(std::vector<bool>{true, false}, Shape({2}))),
            "TensorData { shape: [2], dtype: bool, values: [true, false] }");
  EXPECT_EQ(printed(TensorData(std::vector<int8_t>{-3, 65}, Shape({2}))),
            "TensorData { shape: [2], dtype: i8, values: [-3, 65] }");
  EXPECT_EQ(printed(TensorData(std::vector<uint8_t>{255, 65}, Shape({2}))),
            "TensorData { shape: [2], dtype: u8, values: [255, 65] }");
  EXPECT_EQ(printed(TensorData(std::vector<float>{0.1f, 1.5f}, Shape({2}), DType::F16)),
            "TensorData { shape: [2], dtype: f16, values: [0.1, 1.5] }");
  EXPECT_EQ(printed(TensorData(std::vector<float>{0.1f, NAN}, Shape({2}), DType::BF16)),
            "TensorData { shape: [2], dtype: bf16, values: [0.1, nan] }");
}

TEST(TensorData, PrintValuesWritesTheValuesAlone) {
  std::ostringstream os;
  print_values(os, TensorData(std::vector<int64_t>{1, -2, 3, 4}, Shape({2, 2})));
  EXPECT_EQ(os.str(), "[[1, -2], [3, 4]]");
  std::ostringstream empty;
  print_values(empty, TensorData::zeros(Shape({0}), DType::Bool));
  EXPECT_EQ(empty.str(), "[]");
}

/// 0, 1, 2, ... as i32 in the given shape.
TensorData iota(Shape shape) {
  std::vector<int32_t> values(static_cast<std::size_t>(shape.num_elements()));
  std::iota(values.begin(), values.end(), 0);
  return TensorData(values, std::move(shape));
}

TEST(TensorData, PrintsEverythingUpToOneThousandElements) {
  const std::string text = printed(iota(Shape({1000})));
  EXPECT_EQ(text.find("..."), std::string::npos);
  EXPECT_NE(text.find("[0, 1, 2, 3, "), std::string::npos);
  EXPECT_NE(text.find(", 996, 997, 998, 999] }"), std::string::npos);
}

TEST(TensorData, AbbreviatesLikeNumPyPastOneThousandElements) {
  // Expected strings follow numpy.array2string's summary (threshold 1000, edgeitems 3).
  EXPECT_EQ(printed(iota(Shape({1001}))),
            "TensorData { shape: [1001], dtype: i32, values: [0, 1, 2, ..., 998, 999, 1000] }");
  EXPECT_EQ(printed(iota(Shape({1001, 1}))),
            "TensorData { shape: [1001, 1], dtype: i32, values: [[0], [1], [2], ..., [998], "
            "[999], [1000]] }");
  EXPECT_EQ(printed(iota(Shape({2, 2, 300}))),
            "TensorData { shape: [2, 2, 300], dtype: i32, values: [[[0, 1, 2, ..., 297, 298, "
            "299], [300, 301, 302, ..., 597, 598, 599]], [[600, 601, 602, ..., 897, 898, 899], "
            "[900, 901, 902, ..., 1197, 1198, 1199]]] }");
}

TEST(TensorData, AbbreviatesOnlyDimsLongerThanSixEntries) {
  // [6, 200]: all 6 rows show, row 3 (600..799) included; [7, 150]: row 3 (450..599) is elided.
  const std::string six_rows = printed(iota(Shape({6, 200})));
  EXPECT_NE(six_rows.find("199], [200, 201, 202, ..., 397, 398, 399], [400,"), std::string::npos);
  EXPECT_NE(six_rows.find("599], [600, 601, 602, ..., 797, 798, 799], [800,"), std::string::npos);
  const std::string seven_rows = printed(iota(Shape({7, 150})));
  EXPECT_NE(seven_rows.find("..., 447, 448, 449], ..., [600, 601, 602, ..."), std::string::npos);
  EXPECT_EQ(seven_rows.find("[450,"), std::string::npos);
}

}  // namespace
}  // namespace ember
