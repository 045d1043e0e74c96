#include "tensor_test_util.h"

namespace ember::test {
namespace {

TEST(Indexing, SelectPicksEntriesAlongADim) {
  // x = [[1, 2], [3, 4], [5, 6]]
  const auto x = floats<2>({1, 2, 3, 4, 5, 6}, Shape{3, 2});
  EXPECT_EQ(values<float>(x.select(0, ints<1>({2, 0}, Shape{2}))),
            (std::vector<float>{5, 6, 1, 2}));
  EXPECT_EQ(values<float>(x.select(-1, ints<1>({1, 1}, Shape{2}))),
            (std::vector<float>{2, 2, 4, 4, 6, 6}));
  // Any int dtype indexes.
  const TensorHandle i8 = handle({1}, Shape{1}, DType::I8);
  EXPECT_EQ(values<float>(ops::select(x.handle(), 0, i8)), (std::vector<float>{3, 4}));
}

TEST(Indexing, SelectAssignAddsAndDuplicatesAccumulate) {
  // Index 0 receives 1 + 2, index 2 receives 3.
  const auto z = Tensor<1>::zeros({3}, device());
  EXPECT_EQ(values<float>(
                z.select_assign(0, ints<1>({0, 0, 2}, Shape{3}), floats<1>({1, 2, 3}, Shape{3}))),
            (std::vector<float>{3, 0, 3}));
}

TEST(Indexing, GatherFollowsTorchGather) {
  // torch.gather([[1, 2], [3, 4]], 1, [[0, 0], [1, 0]]) = [[1, 1], [4, 3]].
  const auto x = floats<2>({1, 2, 3, 4}, Shape{2, 2});
  EXPECT_EQ(values<float>(x.gather(1, ints<2>({0, 0, 1, 0}, Shape{2, 2}))),
            (std::vector<float>{1, 1, 4, 3}));
}

TEST(Indexing, ScatterAdds) {
  // Row 0: indices [0, 0] add 1 + 2 to column 0. Row 1: indices [1, 0] add 3 to column 1, 4 to
  // column 0.
  const auto z = Tensor<2>::zeros({2, 2}, device());
  EXPECT_EQ(values<float>(z.scatter(1, ints<2>({0, 0, 1, 0}, Shape{2, 2}),
                                    floats<2>({1, 2, 3, 4}, Shape{2, 2}))),
            (std::vector<float>{3, 0, 4, 3}));
}

}  // namespace
}  // namespace ember::test
