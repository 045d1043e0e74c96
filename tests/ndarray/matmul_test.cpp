// Matmul of the reference backend: plain product, broadcast batch dims, integer wrap-around.
#include <gtest/gtest.h>

#include <cstdint>

#include "ndarray_test_util.h"

namespace ember::ndarray::test {
namespace {

TEST(NdArrayMatmul, MultipliesMatrices) {
  // [[1, 2, 3], [4, 5, 6]] x [[7, 8], [9, 10], [11, 12]]
  //   = [[7 + 18 + 33, 8 + 20 + 36], [28 + 45 + 66, 32 + 50 + 72]]
  const TensorData a(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  const TensorData b(std::vector<float>{7, 8, 9, 10, 11, 12}, {3, 2});
  expect_data<float>(run(ir::Matmul{}, {a, b}), {2, 2}, {58, 64, 139, 154});
}

TEST(NdArrayMatmul, BroadcastsBatchDims) {
  // lhs [2, 1, 2, 2] holds A0 = [[1, 2], [3, 4]] and A1 = [[0, 1], [1, 0]];
  // rhs [1, 3, 2, 2] holds B0 = I, B1 = 2I and B2 = [[0, 1], [0, 0]].
  const TensorData a(std::vector<int32_t>{1, 2, 3, 4, 0, 1, 1, 0}, {2, 1, 2, 2});
  const TensorData b(std::vector<int32_t>{1, 0, 0, 1, 2, 0, 0, 2, 0, 1, 0, 0}, {1, 3, 2, 2});
  // out[i][j] = Ai x Bj: A0, 2 A0, [[0, 1], [0, 3]], A1, 2 A1, [[0, 0], [0, 1]].
  expect_data<int32_t>(run(ir::Matmul{}, {a, b}), {2, 3, 2, 2},
                       {1, 2, 3, 4, 2, 4, 6, 8, 0, 1, 0, 3,  //
                        0, 1, 1, 0, 0, 2, 2, 0, 0, 0, 0, 1});
}

TEST(NdArrayMatmul, IntegerProductsWrap) {
  // 16 * 16 + 1 * 1 = 257 ≡ 1 (mod 256).
  const TensorData a(std::vector<int8_t>{16, 1}, {1, 2});
  const TensorData b(std::vector<int8_t>{16, 1}, {2, 1});
  expect_data<int8_t>(run(ir::Matmul{}, {a, b}), {1, 1}, {1});
}

TEST(NdArrayMatmul, EmptyInnerDimGivesZeros) {
  const TensorData a(std::vector<float>{}, {2, 0});
  const TensorData b(std::vector<float>{}, {0, 3});
  expect_data<float>(run(ir::Matmul{}, {a, b}), {2, 3}, {0, 0, 0, 0, 0, 0});
}

}  // namespace
}  // namespace ember::ndarray::test
