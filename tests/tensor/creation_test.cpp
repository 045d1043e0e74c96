#include <cmath>
#include <cstdint>
#include <limits>
#include <set>

#include "tensor_test_util.h"

namespace ember::test {
namespace {

TEST(Creation, ZerosOnesFullTakeTheDefaultDtypeOfTheirKind) {
  const auto z = Tensor<2>::zeros({2, 3}, device());
  EXPECT_EQ(z.shape(), (Shape{2, 3}));
  EXPECT_EQ(z.dtype(), DType::F32);
  EXPECT_EQ(values<float>(z), std::vector<float>(6, 0.0f));

  const auto o = Tensor<1, Int>::ones({3}, device());
  EXPECT_EQ(o.dtype(), DType::I64);
  EXPECT_EQ(values<int64_t>(o), (std::vector<int64_t>{1, 1, 1}));

  const auto b = Tensor<1, Bool>::full({2}, true, device());
  EXPECT_EQ(b.dtype(), DType::Bool);
  EXPECT_EQ(values<bool>(b), (std::vector<bool>{true, true}));

  const auto e = Tensor<1>::empty({4}, device());
  EXPECT_EQ(e.shape(), Shape{4});
}

TEST(Creation, ExplicitDtypeIsUsed) {
  const auto f = Tensor<1>::full({2}, 2.5, TensorCreationOptions(device()).with_dtype(DType::F64));
  EXPECT_EQ(f.dtype(), DType::F64);
  EXPECT_EQ(values<double>(f), (std::vector<double>{2.5, 2.5}));
  const auto i =
      Tensor<1, Int>::zeros({1}, TensorCreationOptions(device()).with_dtype(IntDType::U8));
  EXPECT_EQ(i.dtype(), DType::U8);
}

TEST(Creation, CreatingATensorLocksTheSettingsEvenWithAnExplicitDtype) {
  Device d = device();
  Tensor<1>::zeros({1}, TensorCreationOptions(d).with_dtype(DType::F64));
  try {
    d.configure(FloatDType::F16);
    FAIL() << "configure after a tensor was created must throw";
  } catch (const DeviceError& e) {
    EXPECT_EQ(e.kind(), DeviceErrorKind::AlreadyInitialized);
  }
}

TEST(Creation, FromDataKeepsADtypeOfTheKindAndConvertsOthers) {
  // f64 data is a Float dtype: kept.
  const auto kept =
      Tensor<1>::from_data(TensorData(std::vector<double>{1.5, 2}, Shape{2}), device());
  EXPECT_EQ(kept.dtype(), DType::F64);
  // i64 data into a Float tensor: converted to the default float dtype, 1 → 1.0, 2 → 2.0.
  const auto converted =
      Tensor<1>::from_data(TensorData(std::vector<int64_t>{1, 2}, Shape{2}), device());
  EXPECT_EQ(converted.dtype(), DType::F32);
  EXPECT_EQ(values<float>(converted), (std::vector<float>{1.0f, 2.0f}));
  // An explicit dtype wins: 1.5 is exact in f16.
  const auto half = Tensor<1>::from_data(TensorData(std::vector<double>{1.5}, Shape{1}),
                                         TensorCreationOptions(device()).with_dtype(DType::F16));
  EXPECT_EQ(half.dtype(), DType::F16);
  EXPECT_EQ(values<float>(half), std::vector<float>{1.5f});
}

TEST(Creation, FromDataWithNoElementsIsLikeZeros) {
  const auto t = Tensor<2>::from_data(TensorData(std::vector<float>{}, Shape{0, 3}), device());
  EXPECT_EQ(t.shape(), (Shape{0, 3}));
  EXPECT_TRUE(values<float>(t).empty());
}

TEST(Creation, FromFloatsIntsBool) {
  EXPECT_EQ(values<double>(Tensor<1>::from_floats({1.0, -2.0}, device())),
            (std::vector<double>{1.0, -2.0}));
  EXPECT_EQ((values<int64_t>(Tensor<1, Int>::from_ints({7, -8}, device()))),
            (std::vector<int64_t>{7, -8}));
  EXPECT_EQ((values<bool>(Tensor<1, Bool>::from_bool({true, false}, device()))),
            (std::vector<bool>{true, false}));
}

TEST(Creation, RandomUniformStaysInItsRangeAndDrawsDiffer) {
  const auto a = Tensor<1>::random({64}, Distribution::uniform(2.0, 3.0), device());
  const auto b = Tensor<1>::random({64}, Distribution::uniform(2.0, 3.0), device());
  for (float v : values<float>(a)) {
    EXPECT_GE(v, 2.0f);
    EXPECT_LE(v, 3.0f);
  }
  EXPECT_NE(values<float>(a), values<float>(b));
}

TEST(Creation, RandomIsReproducibleAfterSeeding) {
  const Device d = device();
  d.seed(42);
  const auto a = Tensor<1>::random({16}, Distribution::Default, d);
  d.seed(42);
  const auto b = Tensor<1>::random({16}, Distribution::Default, d);
  EXPECT_EQ(values<float>(a), values<float>(b));
}

TEST(Creation, RandomBernoulliBoolGivesBothValues) {
  const auto t = Tensor<1, Bool>::random({256}, Distribution::bernoulli(0.5), device());
  const std::vector<bool> v = values<bool>(t);
  EXPECT_EQ(std::set<bool>(v.begin(), v.end()).size(), 2u);  // P(all equal) = 2^-255
}

TEST(Creation, ArangeWithSteps) {
  using T = Tensor<1, Int>;
  EXPECT_EQ(values<int64_t>(T::arange(0, 5, device())), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  // 1, 1+3, 1+6; 1+9 = 10 is not below 10.
  EXPECT_EQ(values<int64_t>(T::arange(1, 10, device(), 3)), (std::vector<int64_t>{1, 4, 7}));
  // Downwards: 5, 3, 1; -1 is not above 0.
  EXPECT_EQ(values<int64_t>(T::arange(5, 0, device(), -2)), (std::vector<int64_t>{5, 3, 1}));
  EXPECT_EQ(T::arange(3, 3, device()).shape(), Shape{0});
  const auto i32 = T::arange(0, 3, TensorCreationOptions(device()).with_dtype(DType::I32));
  EXPECT_EQ(i32.dtype(), DType::I32);
  EXPECT_EQ(values<int64_t>(i32), (std::vector<int64_t>{0, 1, 2}));
}

TEST(Creation, ArangeOverTheWholeInt64Range) {
  // end - start = 2^64 - 1 overflows int64, yet the range has ceil((2^64 - 1) / 2^62) = 4
  // values: -2^63, -2^63 + 2^62 = -2^62, 0, 2^62.
  constexpr int64_t kLow = std::numeric_limits<int64_t>::min();
  constexpr int64_t kHigh = std::numeric_limits<int64_t>::max();
  constexpr int64_t kStep = int64_t{1} << 62;
  EXPECT_EQ(values<int64_t>(Tensor<1, Int>::arange(kLow, kHigh, device(), kStep)),
            (std::vector<int64_t>{kLow, -kStep, 0, kStep}));
}

TEST(Creation, EyeOfEveryKind) {
  const std::vector<float> identity{1, 0, 0, 0, 1, 0, 0, 0, 1};
  const auto f = Tensor<2>::eye(3, device());
  EXPECT_EQ(f.dtype(), DType::F32);
  EXPECT_EQ(f.shape(), (Shape{3, 3}));
  EXPECT_EQ(values<float>(f), identity);
  EXPECT_EQ((Tensor<2, Int>::eye(3, device()).dtype()), DType::I64);
  EXPECT_EQ((values<bool>(Tensor<2, Bool>::eye(2, device()))),
            (std::vector<bool>{true, false, false, true}));
  EXPECT_EQ(Tensor<2>::eye(0, device()).shape(), (Shape{0, 0}));
}

TEST(Creation, LikeFunctionsKeepShapeAndDtype) {
  const auto x = Tensor<2>::zeros({2, 2}, TensorCreationOptions(device()).with_dtype(DType::F16));
  const auto ones = x.ones_like();
  EXPECT_EQ(ones.dtype(), DType::F16);
  EXPECT_EQ(values<float>(ones), std::vector<float>(4, 1.0f));
  EXPECT_EQ(values<float>(x.full_like(-3)), std::vector<float>(4, -3.0f));
  EXPECT_EQ(values<float>(ones.zeros_like()), std::vector<float>(4, 0.0f));
}

TEST(Creation, AutodiffDeviceGivesAutodiffTensors) {
  const auto t = Tensor<1>::zeros({2}, device().autodiff());
  EXPECT_TRUE(t.device().is_autodiff());
  EXPECT_FALSE(Tensor<1>::zeros({2}, device()).device().is_autodiff());
  EXPECT_TRUE(t.zeros_like().device().is_autodiff());
}

}  // namespace
}  // namespace ember::test
