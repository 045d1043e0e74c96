#include "tensor_test_util.h"

namespace ember::test {
namespace {

TEST(Matmul, TwoByTwo) {
  // [[1, 2], [3, 4]] @ [[5, 6], [7, 8]] = [[1*5+2*7, 1*6+2*8], [3*5+4*7, 3*6+4*8]].
  const auto a = floats<2>({1, 2, 3, 4}, Shape{2, 2});
  const auto b = floats<2>({5, 6, 7, 8}, Shape{2, 2});
  EXPECT_EQ(values<float>(a.matmul(b)), (std::vector<float>{19, 22, 43, 50}));
  EXPECT_EQ(values<int64_t>(
                ints<2>({1, 2, 3, 4}, Shape{2, 2}).matmul(ints<2>({5, 6, 7, 8}, Shape{2, 2}))),
            (std::vector<int64_t>{19, 22, 43, 50}));
}

TEST(Matmul, RectangularShapes) {
  // [1, 3] @ [3, 2]: [1, 2, 3] times columns [1, 0, 1] and [0, 1, 1] → [4, 5].
  const auto a = floats<2>({1, 2, 3}, Shape{1, 3});
  const auto b = floats<2>({1, 0, 0, 1, 1, 1}, Shape{3, 2});
  const auto c = a.matmul(b);
  EXPECT_EQ(c.shape(), (Shape{1, 2}));
  EXPECT_EQ(values<float>(c), (std::vector<float>{4, 5}));
}

TEST(Matmul, BatchDimsBroadcast) {
  // a: two [1, 2] matrices [1, 2] and [3, 4]; b: one [2, 1] matrix of ones, broadcast over the
  // batch → [[[1 + 2]], [[3 + 4]]].
  const auto a = floats<3>({1, 2, 3, 4}, Shape{2, 1, 2});
  const auto b = floats<3>({1, 1}, Shape{1, 2, 1});
  const auto c = a.matmul(b);
  EXPECT_EQ(c.shape(), (Shape{2, 1, 1}));
  EXPECT_EQ(values<float>(c), (std::vector<float>{3, 7}));
}

TEST(Matmul, PromotesWithinAKind) {
  const TensorHandle a = handle({2}, Shape{1, 1}, DType::F16);
  const TensorHandle b = handle({3}, Shape{1, 1}, DType::F32);
  const TensorHandle c = ops::matmul(a, b);
  EXPECT_EQ(c.dtype(), DType::F32);
  EXPECT_EQ(values<float>(c), std::vector<float>{6});
}

}  // namespace
}  // namespace ember::test
