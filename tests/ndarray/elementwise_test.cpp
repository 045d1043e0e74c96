// Elementwise semantics of the reference backend: integer wrap-around and division, remainder
// signs, NaN handling, rounding, f16/bf16 computed in f32, broadcasting, scalars, casts.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "ndarray_test_util.h"

namespace ember::ndarray::test {
namespace {

using ir::BinaryOp;
using ir::CompareOp;
using ir::UnaryOp;

constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();

TensorData binary(BinaryOp op, const TensorData& a, const TensorData& b) {
  return run(ir::Binary{op}, {a, b});
}

TEST(NdArrayElementwise, IntegerArithmeticWrapsAround) {
  expect_data<int8_t>(binary(BinaryOp::Add, TensorData(std::vector<int8_t>{127, -128}, {2}),
                             TensorData(std::vector<int8_t>{1, -1}, {2})),
                      {2}, {-128, 127});
  // 3 - 5 = -2 ≡ 254 (mod 256).
  expect_data<uint8_t>(binary(BinaryOp::Sub, TensorData(std::vector<uint8_t>{3}, {1}),
                              TensorData(std::vector<uint8_t>{5}, {1})),
                       {1}, {254});
  // (2^16 - 1)^2 = 2^32 - 2^17 + 1 ≡ 1 (mod 2^16); u16 * u16 overflows int if done naively.
  expect_data<uint16_t>(binary(BinaryOp::Mul, TensorData(std::vector<uint16_t>{65535}, {1}),
                               TensorData(std::vector<uint16_t>{65535}, {1})),
                        {1}, {1});
  // (2^31 - 1) * 2 = 2^32 - 2 ≡ -2 (mod 2^32).
  expect_data<int32_t>(binary(BinaryOp::Mul, TensorData(std::vector<int32_t>{kI32Max}, {1}),
                              TensorData(std::vector<int32_t>{2}, {1})),
                       {1}, {-2});
  expect_data<int64_t>(binary(BinaryOp::Add, TensorData(std::vector<int64_t>{INT64_MAX}, {1}),
                              TensorData(std::vector<int64_t>{1}, {1})),
                       {1}, {INT64_MIN});
}

TEST(NdArrayElementwise, IntegerDivisionTruncatesTowardZero) {
  const TensorData a(std::vector<int32_t>{7, -7, 7, -7, kI32Min}, {5});
  const TensorData b(std::vector<int32_t>{2, 2, -2, -2, -1}, {5});
  // MIN / -1 = 2^31 wraps to MIN instead of trapping.
  expect_data<int32_t>(binary(BinaryOp::Div, a, b), {5}, {3, -3, -3, 3, kI32Min});
}

TEST(NdArrayElementwise, IntegerDivisionByZeroThrows) {
  const TensorData a(std::vector<int32_t>{1, 2}, {2});
  const TensorData b(std::vector<int32_t>{1, 0}, {2});
  EXPECT_EQ(error_of(ir::Binary{BinaryOp::Div}, {a, b}), "[div] integer division by zero");
  EXPECT_EQ(error_of(ir::Binary{BinaryOp::Rem}, {a, b}), "[remainder] integer division by zero");
  // 6 / x with a zero in x: only the data can tell.
  EXPECT_EQ(error_of(ir::BinaryScalar{BinaryOp::Div, Scalar(6), true},
                     {TensorData(std::vector<uint8_t>{3, 0}, {2})}),
            "[rdiv_scalar] integer division by zero");
}

TEST(NdArrayElementwise, RemainderTakesTheDivisorsSign) {
  // Python: 5 % 3 = 2, -5 % 3 = 1, 5 % -3 = -1, -5 % -3 = -2.
  expect_data<int32_t>(binary(BinaryOp::Rem, TensorData(std::vector<int32_t>{5, -5, 5, -5}, {4}),
                              TensorData(std::vector<int32_t>{3, 3, -3, -3}, {4})),
                       {4}, {2, 1, -1, -2});
  // -128 % -1 traps on x86 when computed naively; the remainder is 0.
  expect_data<int8_t>(binary(BinaryOp::Rem, TensorData(std::vector<int8_t>{-128}, {1}),
                             TensorData(std::vector<int8_t>{-1}, {1})),
                      {1}, {0});
  // Python: 5.5 % 3 = 2.5, -5.5 % 3 = 0.5, 5.5 % -3 = -0.5, -5.5 % -3 = -2.5.
  expect_data<double>(
      binary(BinaryOp::Rem, TensorData(std::vector<double>{5.5, -5.5, 5.5, -5.5}, {4}),
             TensorData(std::vector<double>{3, 3, -3, -3}, {4})),
      {4}, {2.5, 0.5, -0.5, -2.5});
}

TEST(NdArrayElementwise, IntegerPowerWrapsAndRejectsNegativeExponents) {
  // 3^4 = 81; 2^31 ≡ -2^31 (mod 2^32); (-2)^3 = -8; 0^0 = 1; 5^1 = 5.
  expect_data<int32_t>(binary(BinaryOp::Pow, TensorData(std::vector<int32_t>{3, 2, -2, 0, 5}, {5}),
                              TensorData(std::vector<int32_t>{4, 31, 3, 0, 1}, {5})),
                       {5}, {81, kI32Min, -8, 1, 5});
  // 2^9 = 512 ≡ 0 (mod 256).
  expect_data<uint8_t>(binary(BinaryOp::Pow, TensorData(std::vector<uint8_t>{2}, {1}),
                              TensorData(std::vector<uint8_t>{9}, {1})),
                       {1}, {0});
  const std::string message = error_of(
      ir::Binary{BinaryOp::Pow},
      {TensorData(std::vector<int32_t>{2}, {1}), TensorData(std::vector<int32_t>{-1}, {1})});
  EXPECT_EQ(message.rfind("[powf]", 0), 0u) << message;
  EXPECT_NE(message.find("-1"), std::string::npos) << message;
}

TEST(NdArrayElementwise, MaximumAndMinimumPropagateNaN) {
  const TensorData a(std::vector<float>{kNaNf, 1, 2}, {3});
  const TensorData b(std::vector<float>{0, kNaNf, 3}, {3});
  expect_data<float>(binary(BinaryOp::Maximum, a, b), {3}, {kNaNf, kNaNf, 3});
  expect_data<float>(binary(BinaryOp::Minimum, a, b), {3}, {kNaNf, kNaNf, 2});
}

TEST(NdArrayElementwise, HalfPrecisionComputesInF32AndRoundsToEven) {
  // f16 has 10 fraction bits: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10 and rounds to the
  // even 1; 1 + 3 * 2^-11 lies halfway between 1 + 2^-10 and 1 + 2^-9 and rounds to 1 + 2^-9.
  const std::vector<float> small{0x1p-11f, 0x3p-11f};
  expect_data<Half>(binary(BinaryOp::Add, TensorData(std::vector<float>{1, 1}, {2}, DType::F16),
                           TensorData(small, {2}, DType::F16)),
                    {2}, {Half(1.0f), Half(1.0f + 0x1p-9f)});
  // bf16 has 7 fraction bits: the same ties one scale up (2^-8 and 3 * 2^-8).
  const std::vector<float> bf_small{0x1p-8f, 0x3p-8f};
  expect_data<BFloat16>(
      binary(BinaryOp::Add, TensorData(std::vector<float>{1, 1}, {2}, DType::BF16),
             TensorData(bf_small, {2}, DType::BF16)),
      {2}, {BFloat16(1.0f), BFloat16(1.0f + 0x1p-6f)});
}

TEST(NdArrayElementwise, RoundIsHalfToEven) {
  expect_data<float>(
      run(ir::Unary{UnaryOp::Round},
          {TensorData(std::vector<float>{0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 2.4f}, {6})}),
      {6}, {0, 2, 2, -0.0f, -2, 2});
}

TEST(NdArrayElementwise, SignAbsAndNegEdgeCases) {
  expect_data<float>(
      run(ir::Unary{UnaryOp::Sign}, {TensorData(std::vector<float>{-2, 0, 3, kNaNf}, {4})}), {4},
      {-1, 0, 1, kNaNf});
  // |-128| and -(-128) do not fit in i8: they wrap to -128, as in PyTorch.
  const TensorData i8(std::vector<int8_t>{-128, -3, 4}, {3});
  expect_data<int8_t>(run(ir::Unary{UnaryOp::Abs}, {i8}), {3}, {-128, 3, 4});
  expect_data<int8_t>(run(ir::Unary{UnaryOp::Neg}, {i8}), {3}, {-128, 3, -4});
  const TensorData u8(std::vector<uint8_t>{0, 7, 200}, {3});
  expect_data<uint8_t>(run(ir::Unary{UnaryOp::Sign}, {u8}), {3}, {0, 1, 1});
  expect_data<uint8_t>(run(ir::Unary{UnaryOp::Abs}, {u8}), {3}, {0, 7, 200});
}

TEST(NdArrayElementwise, PredicatesAndNot) {
  const float inf = std::numeric_limits<float>::infinity();
  const TensorData x(std::vector<float>{kNaNf, inf, -inf, 1}, {4});
  expect_data<bool>(run(ir::Unary{UnaryOp::IsNan}, {x}), {4}, {true, false, false, false});
  expect_data<bool>(run(ir::Unary{UnaryOp::IsInf}, {x}), {4}, {false, true, true, false});
  expect_data<bool>(run(ir::Unary{UnaryOp::Not}, {TensorData(std::vector<bool>{true, false}, {2})}),
                    {2}, {false, true});
}

TEST(NdArrayElementwise, BinaryBroadcastsBothSides) {
  // [[1], [2]] + [10, 20, 30]
  expect_data<float>(binary(BinaryOp::Add, TensorData(std::vector<float>{1, 2}, {2, 1}),
                            TensorData(std::vector<float>{10, 20, 30}, {3})),
                     {2, 3}, {11, 21, 31, 12, 22, 32});
}

TEST(NdArrayElementwise, ScalarOnEitherSide) {
  const TensorData x(std::vector<int32_t>{3, 12}, {2});
  expect_data<int32_t>(run(ir::BinaryScalar{BinaryOp::Sub, Scalar(10), true}, {x}), {2}, {7, -2});
  expect_data<int32_t>(run(ir::BinaryScalar{BinaryOp::Sub, Scalar(10), false}, {x}), {2}, {-7, 2});
  // The scalar is rounded to f16 first: 2^-11 is exact in f16, and 1 + 2^-11 ties to 1.
  expect_data<Half>(run(ir::BinaryScalar{BinaryOp::Add, Scalar(0x1p-11), false},
                        {TensorData(std::vector<float>{1}, {1}, DType::F16)}),
                    {1}, {Half(1.0f)});
}

TEST(NdArrayElementwise, ComparisonsTreatNaNAsUnordered) {
  const TensorData a(std::vector<float>{kNaNf, 1}, {2});
  const TensorData b(std::vector<float>{kNaNf, 1}, {2});
  expect_data<bool>(run(ir::Compare{CompareOp::Equal}, {a, b}), {2}, {false, true});
  expect_data<bool>(run(ir::Compare{CompareOp::NotEqual}, {a, b}), {2}, {true, false});
  expect_data<bool>(run(ir::Compare{CompareOp::Greater}, {a, b}), {2}, {false, false});
  expect_data<bool>(run(ir::Compare{CompareOp::GreaterEqual}, {a, b}), {2}, {false, true});
}

TEST(NdArrayElementwise, HalfComparisonsUseTheStoredValues) {
  // 1 + 2^-11 rounds to 1 in f16, so the stored values are equal.
  const TensorData a(std::vector<float>{1.0f + 0x1p-11f, 2}, {2}, DType::F16);
  const TensorData b(std::vector<float>{1, 3}, {2}, DType::F16);
  expect_data<bool>(run(ir::Compare{CompareOp::Equal}, {a, b}), {2}, {true, false});
  expect_data<bool>(run(ir::Compare{CompareOp::Lower}, {a, b}), {2}, {false, true});
}

TEST(NdArrayElementwise, ScalarComparisonsAreExactForInts) {
  const TensorData i32(std::vector<int32_t>{2, 3}, {2});
  expect_data<bool>(run(ir::CompareScalar{CompareOp::GreaterEqual, Scalar(2.5)}, {i32}), {2},
                    {false, true});
  const TensorData u8(std::vector<uint8_t>{0, 255}, {2});
  expect_data<bool>(run(ir::CompareScalar{CompareOp::Greater, Scalar(-1)}, {u8}), {2},
                    {true, true});
  expect_data<bool>(run(ir::CompareScalar{CompareOp::Lower, Scalar(300)}, {u8}), {2}, {true, true});
  // A float tensor compares with the scalar rounded to its dtype: f32 0.1 equals 0.1.
  expect_data<bool>(run(ir::CompareScalar{CompareOp::Equal, Scalar(0.1)},
                        {TensorData(std::vector<float>{0.1f}, {1})}),
                    {1}, {true});
}

TEST(NdArrayElementwise, WhereBroadcastsAllThree) {
  const TensorData cond(std::vector<bool>{true, false}, {2, 1});
  const TensorData a(std::vector<int64_t>{1, 2, 3}, {3});
  const TensorData b(std::vector<int64_t>{9}, {1});
  expect_data<int64_t>(run(ir::Where{}, {cond, a, b}), {2, 3}, {1, 2, 3, 9, 9, 9});
}

TEST(NdArrayElementwise, MaskFillBroadcastsTheMask) {
  const TensorData x(std::vector<int32_t>{1, 2, 3, 4}, {2, 2});
  const TensorData mask(std::vector<bool>{false, true}, {2});
  expect_data<int32_t>(run(ir::MaskFill{Scalar(-1)}, {x, mask}), {2, 2}, {1, -1, 3, -1});
}

TEST(NdArrayElementwise, CastTruncatesAndSaturates) {
  const TensorData x(std::vector<float>{300, -300, kNaNf, 1.9f, -1.9f}, {5});
  expect_data<int8_t>(run(ir::Cast{DType::I8}, {x}), {5}, {127, -128, 0, 1, -1});
  expect_data<uint8_t>(run(ir::Cast{DType::U8}, {x}), {5}, {255, 0, 0, 1, 0});
  expect_data<bool>(
      run(ir::Cast{DType::Bool}, {TensorData(std::vector<float>{0, -0.0f, kNaNf, 2}, {4})}), {4},
      {false, false, true, true});
  // 2049 lies halfway between the f16 neighbours 2048 and 2050: even mantissa wins.
  expect_data<Half>(run(ir::Cast{DType::F16}, {TensorData(std::vector<int64_t>{2049}, {1})}), {1},
                    {Half(2048.0f)});
}

}  // namespace
}  // namespace ember::ndarray::test
