#include "tensor_test_util.h"

namespace ember::test {
namespace {

TEST(Sort, SortAndIndices) {
  const auto x = floats<1>({3, 1, 2}, Shape{3});
  EXPECT_EQ(values<float>(x.sort(0)), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(values<float>(x.sort_descending(-1)), (std::vector<float>{3, 2, 1}));
  const auto [sorted, indices] = x.sort_with_indices(0);
  EXPECT_EQ(values<float>(sorted), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(indices.dtype(), DType::I64);
  EXPECT_EQ(values<int64_t>(indices), (std::vector<int64_t>{1, 2, 0}));
  EXPECT_EQ(values<int64_t>(x.argsort(0, true)), (std::vector<int64_t>{0, 2, 1}));
}

TEST(Sort, IsStableBothWays) {
  // Equal values keep their original order: the 1s at 1, 3 and the 2s at 0, 2.
  const auto x = ints<1>({2, 1, 2, 1}, Shape{4});
  EXPECT_EQ(values<int64_t>(x.argsort(0)), (std::vector<int64_t>{1, 3, 0, 2}));
  EXPECT_EQ(values<int64_t>(x.argsort(0, true)), (std::vector<int64_t>{0, 2, 1, 3}));
}

TEST(Sort, AlongADimOfAMatrix) {
  const auto x = floats<2>({3, 1, 0, 5}, Shape{2, 2});
  EXPECT_EQ(values<float>(x.sort(1)), (std::vector<float>{1, 3, 0, 5}));
  EXPECT_EQ(values<float>(x.sort(0)), (std::vector<float>{0, 1, 3, 5}));
}

TEST(Sort, TopkIsLargestFirstWithTiesByIndex) {
  const auto x = floats<1>({1, 5, 3, 5}, Shape{4});
  const auto [top, indices] = x.topk_with_indices(2, 0);
  EXPECT_EQ(values<float>(top), (std::vector<float>{5, 5}));
  EXPECT_EQ(values<int64_t>(indices), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(values<float>(x.topk(3, -1)), (std::vector<float>{5, 5, 3}));
  EXPECT_EQ(x.topk(0, 0).shape(), Shape{0});
  const auto m = floats<2>({1, 9, 4, 7, 2, 8}, Shape{2, 3});
  EXPECT_EQ(values<float>(m.topk(1, 1)), (std::vector<float>{9, 8}));
}

TEST(Sort, CumulativeOps) {
  EXPECT_EQ(values<float>(floats<1>({1, 2, 3}, Shape{3}).cumsum(0)), (std::vector<float>{1, 3, 6}));
  EXPECT_EQ(values<float>(floats<1>({1, 2, 3}, Shape{3}).cumprod(0)),
            (std::vector<float>{1, 2, 6}));
  EXPECT_EQ(values<float>(floats<1>({1, 3, 2}, Shape{3}).cummax(0)), (std::vector<float>{1, 3, 3}));
  EXPECT_EQ(values<float>(floats<1>({3, 1, 2}, Shape{3}).cummin(0)), (std::vector<float>{3, 1, 1}));
  // Down the columns of [[1, 2], [3, 4]]: [[1, 2], [1 + 3, 2 + 4]].
  EXPECT_EQ(values<int64_t>(ints<2>({1, 2, 3, 4}, Shape{2, 2}).cumsum(0)),
            (std::vector<int64_t>{1, 2, 4, 6}));
}

TEST(Sort, OneHot) {
  const auto classes = ints<1>({0, 2, 1}, Shape{3});
  const auto f = classes.one_hot(3);
  EXPECT_EQ(f.shape(), (Shape{3, 3}));
  EXPECT_EQ(f.dtype(), DType::F32);
  EXPECT_EQ(values<float>(f), (std::vector<float>{1, 0, 0, 0, 0, 1, 0, 1, 0}));
  const auto i = classes.one_hot<Int>(4);
  EXPECT_EQ(i.dtype(), DType::I64);
  EXPECT_EQ(values<int64_t>(i), (std::vector<int64_t>{1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0}));
  const auto b = ints<2>({1, 0}, Shape{2, 1}).one_hot<Bool>(2);
  EXPECT_EQ(b.shape(), (Shape{2, 1, 2}));
  EXPECT_EQ(values<bool>(b), (std::vector<bool>{false, true, true, false}));
}

}  // namespace
}  // namespace ember::test
