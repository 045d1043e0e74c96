#include "tensor_test_util.h"

namespace ember::test {
namespace {

std::vector<std::vector<float>> all_values(const std::vector<Tensor<1>>& pieces) {
  std::vector<std::vector<float>> out;
  for (const auto& p : pieces)
    out.push_back(values<float>(p));
  return out;
}

TEST(Combine, CatAlongAnyDim) {
  const auto a = floats<2>({1, 2}, Shape{1, 2});
  const auto b = floats<2>({3, 4, 5, 6}, Shape{2, 2});
  const auto rows = Tensor<2>::cat({a, b}, 0);
  EXPECT_EQ(rows.shape(), (Shape{3, 2}));
  EXPECT_EQ(values<float>(rows), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  // Columns [1, 2] and [3, 4] side by side: [[1, 3], [2, 4]].
  const auto c = floats<2>({1, 2}, Shape{2, 1});
  const auto d = floats<2>({3, 4}, Shape{2, 1});
  EXPECT_EQ(values<float>(Tensor<2>::cat({c, d}, -1)), (std::vector<float>{1, 3, 2, 4}));
  EXPECT_EQ(values<float>(Tensor<2>::cat({a}, 0)), (std::vector<float>{1, 2}));
}

TEST(Combine, CatPromotes) {
  const TensorHandle h = handle({1}, Shape{1}, DType::F16);
  const TensorHandle f = handle({2}, Shape{1}, DType::F32);
  const TensorHandle c = ops::cat({h, f}, 0);
  EXPECT_EQ(c.dtype(), DType::F32);
  EXPECT_EQ(values<float>(c), (std::vector<float>{1, 2}));
}

TEST(Combine, StackAddsADim) {
  const auto a = floats<1>({1, 2}, Shape{2});
  const auto b = floats<1>({3, 4}, Shape{2});
  const auto s0 = Tensor<1>::stack<2>({a, b}, 0);
  EXPECT_EQ(s0.shape(), (Shape{2, 2}));
  EXPECT_EQ(values<float>(s0), (std::vector<float>{1, 2, 3, 4}));
  const auto s1 = Tensor<1>::stack<2>({a, b}, 1);  // [[a0, b0], [a1, b1]]
  EXPECT_EQ(values<float>(s1), (std::vector<float>{1, 3, 2, 4}));
  EXPECT_EQ(values<float>(Tensor<1>::stack<2>({a, b}, -1)), values<float>(s1));
}

TEST(Combine, SplitGivesPiecesOfSplitSizeTheLastSmaller) {
  using V = std::vector<std::vector<float>>;
  EXPECT_EQ(all_values(iota(5).split(2, 0)), (V{{0, 1}, {2, 3}, {4}}));
  EXPECT_EQ(all_values(iota(5).split(5, 0)), (V{{0, 1, 2, 3, 4}}));
  EXPECT_EQ(all_values(iota(3).split(10, -1)), (V{{0, 1, 2}}));
  const auto pieces = floats<2>({1, 2, 3, 4, 5, 6}, Shape{2, 3}).split(2, 1);
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(values<float>(pieces[0]), (std::vector<float>{1, 2, 4, 5}));
  EXPECT_EQ(values<float>(pieces[1]), (std::vector<float>{3, 6}));
}

TEST(Combine, ChunkFollowsTorchChunk) {
  using V = std::vector<std::vector<float>>;
  // torch.arange(5).chunk(3): pieces of ceil(5 / 3) = 2.
  EXPECT_EQ(all_values(iota(5).chunk(3, 0)), (V{{0, 1}, {2, 3}, {4}}));
  EXPECT_EQ(all_values(iota(6).chunk(2, 0)), (V{{0, 1, 2}, {3, 4, 5}}));
  // torch.arange(6).chunk(4): pieces of ceil(6 / 4) = 2, so only 3 chunks.
  EXPECT_EQ(all_values(iota(6).chunk(4, 0)), (V{{0, 1}, {2, 3}, {4, 5}}));
  EXPECT_EQ(iota(0).chunk(2, 0).size(), 1u);
}

}  // namespace
}  // namespace ember::test
