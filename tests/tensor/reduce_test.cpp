#include "tensor_test_util.h"

namespace ember::test {
namespace {

// x = [[1, 2, 3],
//      [4, 5, 6]]
TEST(Reduce, WholeTensorReductionsGiveOneElement) {
  const auto x = x23();
  EXPECT_EQ(x.sum().shape(), Shape{1});
  EXPECT_EQ(values<float>(x.sum()), std::vector<float>{21});    // 1+...+6
  EXPECT_EQ(values<float>(x.mean()), std::vector<float>{3.5});  // 21 / 6
  EXPECT_EQ(values<float>(x.prod()), std::vector<float>{720});  // 6!
  EXPECT_EQ(values<float>(x.max()), std::vector<float>{6});
  EXPECT_EQ(values<float>(x.min()), std::vector<float>{1});
}

TEST(Reduce, AlongADimKeepsItWithSizeOne) {
  const auto x = x23();
  EXPECT_EQ(x.sum_dim(0).shape(), (Shape{1, 3}));
  EXPECT_EQ(values<float>(x.sum_dim(0)), (std::vector<float>{5, 7, 9}));  // column sums
  EXPECT_EQ(values<float>(x.sum_dim(-1)), (std::vector<float>{6, 15}));   // row sums
  EXPECT_EQ(values<float>(x.mean_dim(1)), (std::vector<float>{2, 5}));    // 6/3, 15/3
  EXPECT_EQ(values<float>(x.prod_dim(0)), (std::vector<float>{4, 10, 18}));
  EXPECT_EQ(values<float>(x.max_dim(1)), (std::vector<float>{3, 6}));
  EXPECT_EQ(values<float>(x.min_dim(0)), (std::vector<float>{1, 2, 3}));
}

TEST(Reduce, ArgMaxArgMinUseTheDevicesIntDtype) {
  const auto x = floats<2>({1, 9, 9, 4, 0, 6}, Shape{2, 3});
  const auto arg = x.argmax(1);
  EXPECT_EQ(arg.dtype(), DType::I64);
  EXPECT_EQ(arg.shape(), (Shape{2, 1}));
  EXPECT_EQ(values<int64_t>(arg), (std::vector<int64_t>{1, 2}));  // first of the tied 9s
  EXPECT_EQ(values<int64_t>(x.argmin(0)), (std::vector<int64_t>{0, 1, 1}));
}

TEST(Reduce, Variance) {
  // Each row deviates from its mean (2, then 5) by -1, 0, 1: squares sum to 2.
  const auto x = x23();
  EXPECT_EQ(values<float>(x.var(1)), (std::vector<float>{1, 1}));    // 2 / (3 - 1)
  const std::vector<float> biased = values<float>(x.var_biased(1));  // 2 / 3
  ASSERT_EQ(biased.size(), 2u);
  EXPECT_NEAR(biased[0], 2.0 / 3.0, 1e-6);
  EXPECT_NEAR(biased[1], 2.0 / 3.0, 1e-6);
  EXPECT_NEAR(values<float>(ops::var(x.handle(), 0, 0))[0], 2.25, 1e-6);  // (1.5² + 1.5²) / 2
}

TEST(Reduce, AnyAll) {
  const auto b = bools<2>({true, false, false, false}, Shape{2, 2});
  EXPECT_EQ(values<bool>(b.any()), std::vector<bool>{true});
  EXPECT_EQ(values<bool>(b.all()), std::vector<bool>{false});
  EXPECT_EQ(values<bool>(b.any_dim(1)), (std::vector<bool>{true, false}));
  EXPECT_EQ(values<bool>(b.all_dim(0)), (std::vector<bool>{false, false}));
  // Nonzero is true.
  EXPECT_EQ(values<bool>(floats<1>({0, 2}, Shape{2}).all()), std::vector<bool>{false});
}

TEST(Reduce, IntAndBoolTensors) {
  const auto i = ints<1>({1, 2, 3}, Shape{3});
  EXPECT_EQ(i.sum().dtype(), DType::I64);
  EXPECT_EQ(values<int64_t>(i.sum()), std::vector<int64_t>{6});
  EXPECT_EQ(values<int64_t>(ints<1>({1, 2}, Shape{2}).mean()), std::vector<int64_t>{1});  // 3/2
  EXPECT_EQ(values<bool>(bools<1>({false, true}, Shape{2}).max()), std::vector<bool>{true});
}

}  // namespace
}  // namespace ember::test
