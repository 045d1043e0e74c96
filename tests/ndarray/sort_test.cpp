// Sort and cumulative ops of the reference backend: stability in both directions, NaN as the
// largest value, index dtypes, running ops with wrap-around and NaN propagation.
#include <gtest/gtest.h>

#include <cstdint>

#include "ndarray_test_util.h"

namespace ember::ndarray::test {
namespace {

using ir::CumulativeOp;

std::vector<TensorData> sort(const TensorData& x, int64_t dim, bool descending,
                             DType index_dtype = DType::I64) {
  return run_all(ir::Sort{dim, descending, index_dtype}, {x});
}

TEST(NdArraySort, IsStableInBothDirections) {
  // Equal values keep their original order: the 1s at 1 and 3, the 3s at 0 and 4.
  const TensorData x(std::vector<int32_t>{3, 1, 2, 1, 3}, {5});
  const auto up = sort(x, 0, false);
  expect_data<int32_t>(up[0], {5}, {1, 1, 2, 3, 3});
  expect_data<int64_t>(up[1], {5}, {1, 3, 2, 0, 4});
  const auto down = sort(x, 0, true);
  expect_data<int32_t>(down[0], {5}, {3, 3, 2, 1, 1});
  expect_data<int64_t>(down[1], {5}, {0, 4, 2, 1, 3});
}

TEST(NdArraySort, NaNSortsAsTheLargest) {
  const TensorData x(std::vector<float>{kNaNf, 1, kNaNf, 0}, {4});
  const auto up = sort(x, 0, false, DType::I32);
  expect_data<float>(up[0], {4}, {0, 1, kNaNf, kNaNf});
  expect_data<int32_t>(up[1], {4}, {3, 1, 0, 2});
  const auto down = sort(x, 0, true, DType::I32);
  expect_data<float>(down[0], {4}, {kNaNf, kNaNf, 1, 0});
  expect_data<int32_t>(down[1], {4}, {0, 2, 1, 3});
}

TEST(NdArraySort, SortsEachLaneAlongDim) {
  // Columns of [[3, 1], [1, 2], [2, 0]] sorted independently.
  const TensorData x(std::vector<double>{3, 1, 1, 2, 2, 0}, {3, 2});
  const auto sorted = sort(x, 0, false);
  expect_data<double>(sorted[0], {3, 2}, {1, 0, 2, 1, 3, 2});
  expect_data<int64_t>(sorted[1], {3, 2}, {1, 2, 2, 0, 0, 1});
}

TEST(NdArrayCumulative, RunningSumAndProduct) {
  expect_data<float>(
      run(ir::Cumulative{CumulativeOp::Sum, 0}, {TensorData(std::vector<float>{1, 2, 3}, {3})}),
      {3}, {1, 3, 6});
  // 100 + 100 = 200 ≡ -56 (mod 256).
  expect_data<int8_t>(
      run(ir::Cumulative{CumulativeOp::Sum, 0}, {TensorData(std::vector<int8_t>{100, 100}, {2})}),
      {2}, {100, -56});
  // Along dim 1 of [[1, 2, 3], [4, 5, 6]].
  expect_data<int64_t>(run(ir::Cumulative{CumulativeOp::Prod, 1},
                           {TensorData(std::vector<int64_t>{1, 2, 3, 4, 5, 6}, {2, 3})}),
                       {2, 3}, {1, 2, 6, 4, 20, 120});
}

TEST(NdArrayCumulative, RunningExtremesPropagateNaN) {
  expect_data<float>(
      run(ir::Cumulative{CumulativeOp::Max, 0}, {TensorData(std::vector<float>{1, kNaNf, 3}, {3})}),
      {3}, {1, kNaNf, kNaNf});
  expect_data<int32_t>(
      run(ir::Cumulative{CumulativeOp::Min, 0}, {TensorData(std::vector<int32_t>{3, 1, 2}, {3})}),
      {3}, {3, 1, 1});
  // Along dim 0 of [[1, 5], [4, 2], [3, 6]].
  expect_data<int32_t>(run(ir::Cumulative{CumulativeOp::Max, 0},
                           {TensorData(std::vector<int32_t>{1, 5, 4, 2, 3, 6}, {3, 2})}),
                       {3, 2}, {1, 5, 4, 5, 4, 6});
}

}  // namespace
}  // namespace ember::ndarray::test
