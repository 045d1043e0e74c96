// Reductions of the reference backend: layout of the result, accumulation types, integer
// wrap-around and truncation, NaN propagation, first-index ties, variance correction.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

#include "ndarray_test_util.h"

namespace ember::ndarray::test {
namespace {

using ir::ReduceOp;

TensorData reduce(ReduceOp op, std::optional<int64_t> dim, const TensorData& x,
                  int64_t correction = 0, DType index_dtype = DType::I64) {
  return run(ir::Reduce{op, dim, correction, index_dtype}, {x});
}

TEST(NdArrayReduce, WholeTensorGivesShapeOne) {
  const TensorData x(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  expect_data<float>(reduce(ReduceOp::Sum, std::nullopt, x), {1}, {21});
}

TEST(NdArrayReduce, ReducedDimIsKeptWithSizeOne) {
  const TensorData x(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  expect_data<float>(reduce(ReduceOp::Sum, 0, x), {1, 3}, {5, 7, 9});
  expect_data<float>(reduce(ReduceOp::Sum, 1, x), {2, 1}, {6, 15});
  // x[i][j][k] = 4i + 2j + k; summing j gives 8i + 2k + 2.
  const TensorData cube(std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7}, {2, 2, 2});
  expect_data<int32_t>(reduce(ReduceOp::Sum, 1, cube), {2, 1, 2}, {2, 4, 10, 12});
}

TEST(NdArrayReduce, FloatSumsAccumulateInDouble) {
  // In f32, 1e8 + 1 rounds back to 1e8 (its spacing there is 8), so a float accumulator gives 0.
  const TensorData x(std::vector<float>{1e8f, 1, -1e8f}, {3});
  expect_data<float>(reduce(ReduceOp::Sum, std::nullopt, x), {1}, {1});
}

TEST(NdArrayReduce, IntegerSumWrapsAndMeanTruncates) {
  // 100 + 100 = 200 ≡ -56 (mod 256).
  expect_data<int8_t>(
      reduce(ReduceOp::Sum, std::nullopt, TensorData(std::vector<int8_t>{100, 100}, {2})), {1},
      {-56});
  // 3 / 2 = 1.5 → 1 and -3 / 2 = -1.5 → -1 (toward zero).
  expect_data<int32_t>(
      reduce(ReduceOp::Mean, 1, TensorData(std::vector<int32_t>{1, 2, -1, -2}, {2, 2})), {2, 1},
      {1, -1});
  expect_data<int32_t>(reduce(ReduceOp::Prod, 0, TensorData(std::vector<int32_t>{2, 3, 4}, {3})),
                       {1}, {24});
}

TEST(NdArrayReduce, MaxAndMinPropagateNaN) {
  const TensorData x(std::vector<float>{1, kNaNf, 3}, {3});
  expect_data<float>(reduce(ReduceOp::Max, std::nullopt, x), {1}, {kNaNf});
  expect_data<float>(reduce(ReduceOp::Min, 0, x), {1}, {kNaNf});
  expect_data<bool>(reduce(ReduceOp::Max, 0, TensorData(std::vector<bool>{false, true}, {2})), {1},
                    {true});
}

TEST(NdArrayReduce, ArgExtremesGiveTheFirstIndex) {
  expect_data<int64_t>(reduce(ReduceOp::ArgMax, 0, TensorData(std::vector<float>{1, 3, 3, 2}, {4})),
                       {1}, {1});
  expect_data<int32_t>(
      reduce(ReduceOp::ArgMin, 0, TensorData(std::vector<int16_t>{2, 1, 1, 3}, {4}), 0, DType::I32),
      {1}, {1});
  // A NaN is the extreme both ways; the first one wins.
  const TensorData nan(std::vector<float>{1, kNaNf, 5, kNaNf}, {4});
  expect_data<int64_t>(reduce(ReduceOp::ArgMax, 0, nan), {1}, {1});
  expect_data<int64_t>(reduce(ReduceOp::ArgMin, 0, nan), {1}, {1});
  // Along dim 0 of [[1, 5], [4, 2]]: column maxima are in rows 1 and 0.
  expect_data<int64_t>(
      reduce(ReduceOp::ArgMax, 0, TensorData(std::vector<double>{1, 5, 4, 2}, {2, 2})), {1, 2},
      {1, 0});
}

TEST(NdArrayReduce, VarianceDividesByNMinusCorrection) {
  // mean 2.5; squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5.
  const TensorData x(std::vector<double>{1, 2, 3, 4}, {4});
  expect_data<double>(reduce(ReduceOp::Var, 0, x, 1), {1}, {5.0 / 3.0});
  expect_data<double>(reduce(ReduceOp::Var, 0, x, 0), {1}, {1.25});
  // n - correction = 0: NaN, as PyTorch.
  expect_data<double>(reduce(ReduceOp::Var, 0, TensorData(std::vector<double>{7}, {1}), 1), {1},
                      {kNaN});
}

TEST(NdArrayReduce, AnyAndAllTreatNonzeroAsTrue) {
  expect_data<bool>(
      reduce(ReduceOp::Any, 1, TensorData(std::vector<float>{0, kNaNf, 0, 0}, {2, 2})), {2, 1},
      {true, false});
  expect_data<bool>(reduce(ReduceOp::All, 1, TensorData(std::vector<int32_t>{1, 2, 0, 3}, {2, 2})),
                    {2, 1}, {true, false});
  expect_data<bool>(
      reduce(ReduceOp::Any, std::nullopt, TensorData(std::vector<uint8_t>{0, 0}, {2})), {1},
      {false});
}

}  // namespace
}  // namespace ember::ndarray::test
