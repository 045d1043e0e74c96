#include <cmath>
#include <limits>

#include "tensor_test_util.h"

namespace ember::test {
namespace {

constexpr float kE = 2.7182817f;

void expect_near_all(const std::vector<float>& actual, const std::vector<float>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], 1e-5) << i;
}

TEST(Elementwise, FloatUnaryOps) {
  const auto x = floats<1>({0.0f, 1.0f}, Shape{2});
  expect_near_all(values<float>(x.exp()), {1.0f, kE});           // e^0, e^1
  expect_near_all(values<float>(x.log1p()), {0.0f, 0.693147f});  // ln 1, ln 2
  expect_near_all(values<float>(x.sin()), {0.0f, 0.841471f});
  expect_near_all(values<float>(x.cos()), {1.0f, 0.540302f});
  expect_near_all(values<float>(x.tan()), {0.0f, 1.557408f});
  expect_near_all(values<float>(x.tanh()), {0.0f, 0.761594f});
  expect_near_all(values<float>(x.erf()), {0.0f, 0.842701f});
  expect_near_all(values<float>(floats<1>({1.0f, kE}, Shape{2}).log()), {0.0f, 1.0f});
  expect_near_all(values<float>(floats<1>({4.0f, 9.0f}, Shape{2}).sqrt()), {2.0f, 3.0f});
  expect_near_all(values<float>(floats<1>({4.0f, -0.5f}, Shape{2}).recip()), {0.25f, -2.0f});
}

TEST(Elementwise, RoundingOps) {
  const auto x = floats<1>({-1.5f, 2.5f, 3.5f}, Shape{3});
  EXPECT_EQ(values<float>(x.floor()), (std::vector<float>{-2, 2, 3}));
  EXPECT_EQ(values<float>(x.ceil()), (std::vector<float>{-1, 3, 4}));
  EXPECT_EQ(values<float>(x.round()), (std::vector<float>{-2, 2, 4}));  // half to even
}

TEST(Elementwise, NumericUnaryOpsOnInts) {
  const auto x = ints<1>({-5, 0, 7}, Shape{3});
  EXPECT_EQ(values<int64_t>(x.neg()), (std::vector<int64_t>{5, 0, -7}));
  EXPECT_EQ(values<int64_t>(-x), (std::vector<int64_t>{5, 0, -7}));
  EXPECT_EQ(values<int64_t>(x.abs()), (std::vector<int64_t>{5, 0, 7}));
  EXPECT_EQ(values<int64_t>(x.sign()), (std::vector<int64_t>{-1, 0, 1}));
}

TEST(Elementwise, NanAndInfTests) {
  const float inf = std::numeric_limits<float>::infinity();
  const auto x = floats<1>({std::nanf(""), inf, 1.0f}, Shape{3});
  EXPECT_EQ(values<bool>(x.is_nan()), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(values<bool>(x.is_inf()), (std::vector<bool>{false, true, false}));
}

TEST(Elementwise, BoolOps) {
  const auto a = bools<1>({true, false, true, false}, Shape{4});
  const auto b = bools<1>({true, true, false, false}, Shape{4});
  EXPECT_EQ(values<bool>(a.bool_not()), (std::vector<bool>{false, true, false, true}));
  EXPECT_EQ(values<bool>(a.bool_and(b)), (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(values<bool>(a.bool_or(b)), (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(values<bool>(a.bool_xor(b)), (std::vector<bool>{false, true, true, false}));
}

TEST(Elementwise, BinaryOpsBroadcast) {
  const auto a = floats<2>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  const auto row = floats<2>({10, 20, 30}, Shape{1, 3});
  EXPECT_EQ(values<float>(a + row), (std::vector<float>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(values<float>(a - row), (std::vector<float>{-9, -18, -27, -6, -15, -24}));
  EXPECT_EQ(values<float>(a * row), (std::vector<float>{10, 40, 90, 40, 100, 180}));
  // [2, 1] with [1, 3] → [2, 3]: column[i] / row[j].
  const auto column = floats<2>({60, 120}, Shape{2, 1});
  EXPECT_EQ((column / row).shape(), (Shape{2, 3}));
  EXPECT_EQ(values<float>(column / row), (std::vector<float>{6, 3, 2, 12, 6, 4}));
}

TEST(Elementwise, RemainderTakesTheDivisorsSign) {
  // Python: -7 % 3 == 2, 7 % -3 == -2, 7 % 3 == 1.
  const auto a = ints<1>({-7, 7, 7}, Shape{3});
  const auto b = ints<1>({3, -3, 3}, Shape{3});
  EXPECT_EQ(values<int64_t>(a.remainder(b)), (std::vector<int64_t>{2, -2, 1}));
  EXPECT_EQ(values<int64_t>(a.remainder_scalar(3)), (std::vector<int64_t>{2, 1, 1}));
}

TEST(Elementwise, PowMaxMin) {
  const auto a = floats<1>({2, 3}, Shape{2});
  const auto b = floats<1>({3, 2}, Shape{2});
  EXPECT_EQ(values<float>(a.powf(b)), (std::vector<float>{8, 9}));  // 2^3, 3^2
  EXPECT_EQ(values<float>(a.powf_scalar(2.0)), (std::vector<float>{4, 9}));
  EXPECT_EQ(values<float>(a.powi_scalar(3)), (std::vector<float>{8, 27}));
  EXPECT_EQ(values<int64_t>(ints<1>({2, 3}, Shape{2}).powi_scalar(3)),
            (std::vector<int64_t>{8, 27}));
  EXPECT_EQ(values<float>(a.maximum(b)), (std::vector<float>{3, 3}));
  EXPECT_EQ(values<float>(a.minimum(b)), (std::vector<float>{2, 2}));
}

TEST(Elementwise, PromotionWithinAKind) {
  // f16 + f32 → f32; 1.5 + 0.25 = 1.75.
  const TensorHandle h = handle({1.5}, Shape{1}, DType::F16);
  const TensorHandle f = handle({0.25}, Shape{1}, DType::F32);
  EXPECT_EQ(ops::add(h, f).dtype(), DType::F32);
  EXPECT_EQ(values<float>(ops::add(h, f)), std::vector<float>{1.75f});
  // i32 + i64 → i64; 3 * 4 = 12.
  const TensorHandle i32 = handle({3}, Shape{1}, DType::I32);
  const TensorHandle i64 = handle({4}, Shape{1}, DType::I64);
  EXPECT_EQ(ops::mul(i32, i64).dtype(), DType::I64);
  EXPECT_EQ(values<int64_t>(ops::mul(i32, i64)), std::vector<int64_t>{12});
  // u8 with i8 → i16 (promote_types).
  EXPECT_EQ(ops::sub(handle({1}, Shape{1}, DType::U8), handle({2}, Shape{1}, DType::I8)).dtype(),
            DType::I16);
}

TEST(Elementwise, ScalarOps) {
  const auto x = floats<1>({1, 2}, Shape{2});
  EXPECT_EQ(values<float>(x + 2.5), (std::vector<float>{3.5, 4.5}));
  EXPECT_EQ(values<float>(x - 1), (std::vector<float>{0, 1}));
  EXPECT_EQ(values<float>(x * 3), (std::vector<float>{3, 6}));
  EXPECT_EQ(values<float>(x / 4), (std::vector<float>{0.25, 0.5}));
  EXPECT_EQ(values<float>(10 - x), (std::vector<float>{9, 8}));
  EXPECT_EQ(values<float>(6 / x), (std::vector<float>{6, 3}));
  EXPECT_EQ(values<float>(2 * x), (std::vector<float>{2, 4}));
  EXPECT_EQ(values<float>(1 + x), (std::vector<float>{2, 3}));
  // An integral float scalar is exact in an Int tensor: 5 + 2.0 = 7.
  const auto i = ints<1>({5}, Shape{1});
  EXPECT_EQ(values<int64_t>(i + 2.0), std::vector<int64_t>{7});
  EXPECT_EQ(values<int64_t>(i / 2), std::vector<int64_t>{2});  // truncates
}

TEST(Elementwise, Clamp) {
  const auto x = floats<1>({-2, 0.5, 3}, Shape{3});
  EXPECT_EQ(values<float>(x.clamp(-1, 1)), (std::vector<float>{-1, 0.5, 1}));
  EXPECT_EQ(values<float>(x.clamp_min(0)), (std::vector<float>{0, 0.5, 3}));
  EXPECT_EQ(values<float>(x.clamp_max(0)), (std::vector<float>{-2, 0, 0}));
}

TEST(Elementwise, ClampBoundsOutsideTheDtypeNameTheClampSide) {
  const TensorHandle u8 = handle({0, 255}, Shape{2}, DType::U8);
  EXPECT_INVALID(ops::clamp_min(u8, -1), "[clamp_min]", "-1", "u8");
  EXPECT_INVALID(ops::clamp_max(u8, 300), "[clamp_max]", "300", "u8");
  // clamp is clamp_min then clamp_max; a fractional bound is refused by clamp itself.
  EXPECT_INVALID(ops::clamp(u8, 0, 300), "[clamp_max]", "300");
  EXPECT_INVALID(ops::clamp(u8, 0.5, 2), "[clamp]", "0.5");
}

TEST(Elementwise, Comparisons) {
  const auto a = floats<1>({1, 2, 3}, Shape{3});
  const auto b = floats<1>({3, 2, 1}, Shape{3});
  EXPECT_EQ(values<bool>(a.equal(b)), (std::vector<bool>{false, true, false}));
  EXPECT_EQ(values<bool>(a.not_equal(b)), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(values<bool>(a.greater(b)), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(values<bool>(a.greater_equal(b)), (std::vector<bool>{false, true, true}));
  EXPECT_EQ(values<bool>(a.lower(b)), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(values<bool>(a.lower_equal(b)), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(values<bool>(a.equal_elem(2)), (std::vector<bool>{false, true, false}));
  EXPECT_EQ(values<bool>(a.not_equal_elem(2)), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(values<bool>(a.greater_elem(2)), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(values<bool>(a.greater_equal_elem(2)), (std::vector<bool>{false, true, true}));
  EXPECT_EQ(values<bool>(a.lower_elem(2)), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(values<bool>(a.lower_equal_elem(2)), (std::vector<bool>{true, true, false}));
  // Promoted: i32 3 vs i64 3.
  EXPECT_EQ(values<bool>(
                ops::equal(handle({3}, Shape{1}, DType::I32), handle({3}, Shape{1}, DType::I64))),
            std::vector<bool>{true});
}

TEST(Elementwise, ScalarComparisonsAcceptAnyScalarAndAreExact) {
  // Values the dtype cannot hold still compare: every u8 lies in [0, 255].
  const TensorHandle u8 = handle({0, 255}, Shape{2}, DType::U8);
  EXPECT_EQ(values<bool>(ops::greater_elem(u8, -1)), (std::vector<bool>{true, true}));
  EXPECT_EQ(values<bool>(ops::lower_elem(u8, 300)), (std::vector<bool>{true, true}));
  EXPECT_EQ(values<bool>(ops::equal_elem(u8, 256)), (std::vector<bool>{false, false}));
  // A fractional scalar is not truncated: 1 < 1.5 and 2 > 1.5.
  const TensorHandle i64 = handle({1, 2}, Shape{2}, DType::I64);
  EXPECT_EQ(values<bool>(ops::lower_elem(i64, 1.5)), (std::vector<bool>{true, false}));
  EXPECT_EQ(values<bool>(ops::equal_elem(i64, 1.5)), (std::vector<bool>{false, false}));
  // A bool is 0 or 1: neither equals 2, only true (1) is greater than 0.5.
  const auto b = bools<1>({false, true}, Shape{2});
  EXPECT_EQ(values<bool>(ops::equal_elem(b.handle(), 2)), (std::vector<bool>{false, false}));
  EXPECT_EQ(values<bool>(ops::greater_elem(b.handle(), 0.5)), (std::vector<bool>{false, true}));
  EXPECT_EQ(values<bool>(ops::lower_equal_elem(b.handle(), true)), (std::vector<bool>{true, true}));
}

TEST(Elementwise, MaskWhereMaskFillWhere) {
  const auto x = floats<1>({1, 2, 3}, Shape{3});
  const auto mask = bools<1>({true, false, true}, Shape{3});
  const auto v = floats<1>({10, 20, 30}, Shape{3});
  EXPECT_EQ(values<float>(x.mask_where(mask, v)), (std::vector<float>{10, 2, 30}));
  EXPECT_EQ(values<float>(x.mask_fill(mask, -1)), (std::vector<float>{-1, 2, -1}));
  EXPECT_EQ(values<float>(where(mask, v, x)), (std::vector<float>{10, 2, 30}));
  // A [1, 3] mask broadcasts over the rows of a [2, 3] tensor.
  const auto m = floats<2>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  EXPECT_EQ(values<float>(m.mask_fill(bools<2>({false, true, false}, Shape{1, 3}), 0)),
            (std::vector<float>{1, 0, 3, 4, 0, 6}));
  // mask_where keeps x's dtype: an f64 value written into an f16 tensor.
  const TensorHandle half = handle({1, 2}, Shape{2}, DType::F16);
  const TensorHandle wide = handle({5, 6}, Shape{2}, DType::F64);
  const TensorHandle replaced =
      ops::mask_where(half, bools<1>({false, true}, Shape{2}).handle(), wide);
  EXPECT_EQ(replaced.dtype(), DType::F16);
  EXPECT_EQ(values<float>(replaced), (std::vector<float>{1, 6}));
}

TEST(Elementwise, CastAndKindConversions) {
  const auto x = floats<1>({1.7f, -1.7f, 0.0f}, Shape{3});
  const auto i = x.to_int();  // truncates toward zero
  EXPECT_EQ(i.dtype(), DType::I64);
  EXPECT_EQ(values<int64_t>(i), (std::vector<int64_t>{1, -1, 0}));
  EXPECT_EQ(values<bool>(x.to_bool()), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(values<float>(i.to_float()), (std::vector<float>{1, -1, 0}));
  const auto h = x.cast(FloatDType::F16);
  EXPECT_EQ(h.dtype(), DType::F16);
  EXPECT_EQ(ops::cast(x.handle(), DType::U8).dtype(), DType::U8);
}

TEST(Elementwise, IntoScalar) {
  EXPECT_EQ(Tensor<1>::from_floats({4.5}, device()).into_scalar<double>(), 4.5);
  EXPECT_EQ(ints<2>({1, 2, 3, 4}, Shape{2, 2}).sum().into_scalar<int64_t>(), 10);
}

}  // namespace
}  // namespace ember::test
