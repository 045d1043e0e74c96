// Layout ops of the reference backend: permute, flip, expand, slice, slice_assign, cat, reshape.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>

#include "ndarray_test_util.h"

namespace ember::ndarray::test {
namespace {

/// 0, 1, ..., n - 1 as int32 of shape.
TensorData iota(const Shape& shape) {
  std::vector<int32_t> values(static_cast<std::size_t>(shape.num_elements()));
  std::iota(values.begin(), values.end(), 0);
  return TensorData(values, shape);
}

TEST(NdArrayLayout, PermuteMovesDims) {
  expect_data<int32_t>(run(ir::Permute{{1, 0}}, {iota({2, 3})}), {3, 2}, {0, 3, 1, 4, 2, 5});
  // x[a][b][c] = 12a + 4b + c of shape [2, 3, 4]; out dim i = x dim axes[i], so with axes
  // [2, 0, 1] out[i][j][k] = x[j][k][i] = 12j + 4k + i.
  std::vector<int32_t> expected;
  for (int32_t i = 0; i < 4; ++i) {
    for (int32_t j = 0; j < 2; ++j) {
      for (int32_t k = 0; k < 3; ++k)
        expected.push_back(12 * j + 4 * k + i);
    }
  }
  expect_data<int32_t>(run(ir::Permute{{2, 0, 1}}, {iota({2, 3, 4})}), {4, 2, 3}, expected);
}

TEST(NdArrayLayout, FlipReversesListedAxes) {
  const TensorData x = iota({2, 3});  // [[0, 1, 2], [3, 4, 5]]
  expect_data<int32_t>(run(ir::Flip{{1}}, {x}), {2, 3}, {2, 1, 0, 5, 4, 3});
  expect_data<int32_t>(run(ir::Flip{{0}}, {x}), {2, 3}, {3, 4, 5, 0, 1, 2});
  expect_data<int32_t>(run(ir::Flip{{0, 1}}, {x}), {2, 3}, {5, 4, 3, 2, 1, 0});
  // Layout ops move bytes: f16 values survive unchanged.
  const TensorData half(std::vector<float>{0.1f, 65504}, {2}, DType::F16);
  expect_data<Half>(run(ir::Flip{{0}}, {half}), {2}, {Half(65504.0f), Half(0.1f)});
}

TEST(NdArrayLayout, ExpandRepeatsSizeOneDims) {
  expect_data<int32_t>(run(ir::Expand{{3, 2}}, {iota({3, 1})}), {3, 2}, {0, 0, 1, 1, 2, 2});
  expect_data<int32_t>(run(ir::Expand{{2, 3}}, {iota({1, 3})}), {2, 3}, {0, 1, 2, 0, 1, 2});
}

TEST(NdArrayLayout, SliceWithSteps) {
  expect_data<int32_t>(run(ir::Slice{{{1, 8, 3}}}, {iota({10})}), {3}, {1, 4, 7});
  // Rows 0 and 2, columns 1 and 3 of [[0..3], [4..7], [8..11]].
  expect_data<int32_t>(run(ir::Slice{{{0, 3, 2}, {1, 4, 2}}}, {iota({3, 4})}), {2, 2},
                       {1, 3, 9, 11});
  expect_data<int32_t>(run(ir::Slice{{{2, 2, 1}}}, {iota({4})}), {0}, {});
}

TEST(NdArrayLayout, SliceAssignReplacesOnlyTheSlice) {
  const TensorData x(std::vector<int32_t>(12, 0), {3, 4});
  const TensorData values(std::vector<int32_t>{1, 2, 3, 4}, {2, 2});
  expect_data<int32_t>(run(ir::SliceAssign{{{0, 3, 2}, {1, 4, 2}}}, {x, values}), {3, 4},
                       {0, 1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4});
}

TEST(NdArrayLayout, CatJoinsAlongDim) {
  const TensorData a(std::vector<int32_t>{1, 2}, {2, 1});
  const TensorData b(std::vector<int32_t>{3, 4, 5, 6}, {2, 2});
  expect_data<int32_t>(run(ir::Cat{1}, {a, b}), {2, 3}, {1, 3, 4, 2, 5, 6});
  const TensorData empty(std::vector<int32_t>{}, {0, 2});
  expect_data<int32_t>(run(ir::Cat{0}, {b, empty, b}), {4, 2}, {3, 4, 5, 6, 3, 4, 5, 6});
}

TEST(NdArrayLayout, ReshapeKeepsRowMajorOrder) {
  expect_data<int32_t>(run(ir::Reshape{{3, 2}}, {iota({2, 3})}), {3, 2}, {0, 1, 2, 3, 4, 5});
}

}  // namespace
}  // namespace ember::ndarray::test
