// Indexing ops of the reference backend: select, select_assign, gather, scatter; duplicates,
// every integer index dtype, and out-of-range indices.
#include <gtest/gtest.h>

#include <cstdint>

#include "ndarray_test_util.h"

namespace ember::ndarray::test {
namespace {

using ir::IndexUpdate;

const TensorData& matrix() {  // [[1, 2, 3], [4, 5, 6]]
  static const TensorData m(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  return m;
}

TEST(NdArrayIndexing, SelectPicksAlongDimWithRepeats) {
  expect_data<float>(run(ir::Select{1}, {matrix(), TensorData(std::vector<int64_t>{2, 0, 2}, {3})}),
                     {2, 3}, {3, 1, 3, 6, 4, 6});
  expect_data<float>(run(ir::Select{0}, {matrix(), TensorData(std::vector<uint8_t>{1}, {1})}),
                     {1, 3}, {4, 5, 6});
  expect_data<float>(run(ir::Select{0}, {matrix(), TensorData(std::vector<int8_t>{1, 0}, {2})}),
                     {2, 3}, {4, 5, 6, 1, 2, 3});
}

TEST(NdArrayIndexing, SelectAssignAddsDuplicatesOrKeepsTheLastWrite) {
  const TensorData x(std::vector<int32_t>{0, 0, 0, 0}, {4});
  const TensorData indices(std::vector<int64_t>{1, 1, 3}, {3});
  const TensorData values(std::vector<int32_t>{1, 2, 5}, {3});
  expect_data<int32_t>(run(ir::SelectAssign{0, IndexUpdate::Add}, {x, indices, values}), {4},
                       {0, 3, 0, 5});
  expect_data<int32_t>(run(ir::SelectAssign{0, IndexUpdate::Assign}, {x, indices, values}), {4},
                       {0, 2, 0, 5});
  // Along dim 1 of [[1, 2, 3], [4, 5, 6]]: column 0 gets both value columns added.
  const TensorData cols(std::vector<float>{10, 20, 30, 40}, {2, 2});
  expect_data<float>(run(ir::SelectAssign{1, IndexUpdate::Add},
                         {matrix(), TensorData(std::vector<int32_t>{0, 0}, {2}), cols}),
                     {2, 3}, {31, 2, 3, 74, 5, 6});
}

TEST(NdArrayIndexing, GatherFollowsTheIndexTensor) {
  // torch.gather([[1, 2], [3, 4]], 1, [[0, 0], [1, 0]]) = [[1, 1], [4, 3]].
  const TensorData x(std::vector<float>{1, 2, 3, 4}, {2, 2});
  expect_data<float>(run(ir::Gather{1}, {x, TensorData(std::vector<int64_t>{0, 0, 1, 0}, {2, 2})}),
                     {2, 2}, {1, 1, 4, 3});
  // Indices smaller than x off dim: [[1, 0]] along dim 0 reads x[1][0], x[0][1].
  expect_data<float>(run(ir::Gather{0}, {x, TensorData(std::vector<uint16_t>{1, 0}, {1, 2})}),
                     {1, 2}, {3, 2});
}

TEST(NdArrayIndexing, ScatterAddsDuplicatesOrKeepsTheLastWrite) {
  const TensorData x(std::vector<float>(6, 0), {2, 3});
  const TensorData indices(std::vector<int64_t>{0, 0, 2, 1}, {2, 2});
  const TensorData values(std::vector<float>{1, 2, 3, 4}, {2, 2});
  // Row 0: both values land in column 0; row 1: 3 in column 2, 4 in column 1.
  expect_data<float>(run(ir::Scatter{1, IndexUpdate::Add}, {x, indices, values}), {2, 3},
                     {3, 0, 0, 0, 4, 3});
  expect_data<float>(run(ir::Scatter{1, IndexUpdate::Assign}, {x, indices, values}), {2, 3},
                     {2, 0, 0, 0, 4, 3});
}

TEST(NdArrayIndexing, OutOfRangeIndicesThrow) {
  EXPECT_EQ(error_of(ir::Gather{1}, {matrix(), TensorData(std::vector<int64_t>{0, 3}, {1, 2})}),
            "[gather] index 3 out of range for dim 1 of size 3");
  // Negative indices were mapped by the Tensor API already; here they are errors.
  EXPECT_EQ(error_of(ir::Select{0}, {matrix(), TensorData(std::vector<int32_t>{-1}, {1})}),
            "[select] index -1 out of range for dim 0 of size 2");
  // A u64 index above 2^63 must not wrap into range.
  EXPECT_EQ(error_of(ir::Select{0}, {matrix(), TensorData(std::vector<uint64_t>{1ull << 63}, {1})}),
            "[select] index 9223372036854775808 out of range for dim 0 of size 2");
  const TensorData values(std::vector<float>{1}, {1, 1});
  EXPECT_EQ(error_of(ir::Scatter{0, IndexUpdate::Add},
                     {matrix(), TensorData(std::vector<uint8_t>{255}, {1, 1}), values}),
            "[scatter] index 255 out of range for dim 0 of size 2");
  EXPECT_EQ(error_of(ir::SelectAssign{1, IndexUpdate::Assign},
                     {matrix(), TensorData(std::vector<int16_t>{5}, {1}),
                      TensorData(std::vector<float>{1, 2}, {2, 1})}),
            "[select_assign] index 5 out of range for dim 1 of size 3");
}

}  // namespace
}  // namespace ember::ndarray::test
