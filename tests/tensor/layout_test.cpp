#include <optional>

#include "tensor_test_util.h"

namespace ember::test {
namespace {

constexpr std::nullopt_t none = std::nullopt;

/// arange(24) as [2, 3, 4]: element [i, j, k] is 12 i + 4 j + k.
Tensor<3> x234() {
  return iota(24).reshape<3>({2, 3, 4});
}

TEST(Layout, ReshapeKeepsRowMajorOrderAndResolvesMinusOne) {
  const auto r = x23().reshape<2>({3, 2});
  EXPECT_EQ(r.shape(), (Shape{3, 2}));
  EXPECT_EQ(values<float>(r), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(x23().reshape<2>({-1, 2}).shape(), (Shape{3, 2}));  // 6 / 2 = 3
  EXPECT_EQ(x23().reshape<1>({-1}).shape(), Shape{6});
  EXPECT_EQ(x23().reshape<3>({1, -1, 3}).shape(), (Shape{1, 2, 3}));
}

TEST(Layout, TransposeSwapsTheLastTwoDims) {
  const auto t = x23().transpose();
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_EQ(values<float>(t), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(Layout, SwapDimsAndPermute) {
  // swap_dims(0, 2): out[k, j, i] = x[i, j, k] = 12 i + 4 j + k.
  const auto s = x234().swap_dims(0, -1);
  EXPECT_EQ(s.shape(), (Shape{4, 3, 2}));
  std::vector<float> expected;
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 2; ++i)
        expected.push_back(12 * i + 4 * j + k);
  EXPECT_EQ(values<float>(s), expected);
  // permute({2, 0, 1}): out dims are x's dims 2, 0, 1, so out[k, i, j] = x[i, j, k].
  const auto p = x234().permute({2, 0, 1});
  EXPECT_EQ(p.shape(), (Shape{4, 2, 3}));
  expected.clear();
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        expected.push_back(12 * i + 4 * j + k);
  EXPECT_EQ(values<float>(p), expected);
  EXPECT_EQ(values<float>(x234().permute({-3, -2, -1})), values<float>(x234()));
}

TEST(Layout, Flip) {
  EXPECT_EQ(values<float>(x23().flip({0})), (std::vector<float>{4, 5, 6, 1, 2, 3}));
  EXPECT_EQ(values<float>(x23().flip({-1})), (std::vector<float>{3, 2, 1, 6, 5, 4}));
  EXPECT_EQ(values<float>(x23().flip({0, 1})), (std::vector<float>{6, 5, 4, 3, 2, 1}));
}

TEST(Layout, ExpandAddsLeadingDimsAndKeepsMinusOne) {
  const auto row = floats<1>({1, 2, 3}, Shape{3});
  const auto e = row.expand<2>({2, -1});
  EXPECT_EQ(e.shape(), (Shape{2, 3}));
  EXPECT_EQ(values<float>(e), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  const auto column = floats<2>({1, 2}, Shape{2, 1});
  EXPECT_EQ(values<float>(column.expand<2>({2, 3})), (std::vector<float>{1, 1, 1, 2, 2, 2}));
}

TEST(Layout, SliceFollowsPython) {
  // Expected values are Python's list(range(10))[start:end:step].
  const auto x = iota(10);
  const auto sliced = [&](Slice s) { return values<float>(x.slice({s})); };
  EXPECT_EQ(sliced(Slice(2, 5)), (std::vector<float>{2, 3, 4}));
  EXPECT_EQ(sliced(Slice(-3, none)), (std::vector<float>{7, 8, 9}));
  EXPECT_EQ(sliced(Slice(none, none, -1)), (std::vector<float>{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(sliced(Slice(8, 2, -2)), (std::vector<float>{8, 6, 4}));
  EXPECT_EQ(sliced(Slice(-1, none, -3)), (std::vector<float>{9, 6, 3, 0}));
  EXPECT_EQ(sliced(Slice(1, 100, 4)), (std::vector<float>{1, 5, 9}));  // end clamps
  EXPECT_EQ(sliced(Slice(-100, 2)), (std::vector<float>{0, 1}));       // start clamps
  EXPECT_EQ(sliced(Slice(100, none, -4)), (std::vector<float>{9, 5, 1}));
  EXPECT_TRUE(sliced(Slice(5, 2)).empty());
  EXPECT_TRUE(sliced(Slice(2, 5, -1)).empty());
  EXPECT_EQ(sliced(Slice(7)), std::vector<float>{7});
  EXPECT_EQ(sliced(Slice(-1)), std::vector<float>{9});
}

TEST(Layout, SliceOfSeveralDims) {
  // numpy: [[1, 2, 3], [4, 5, 6]][:, 1:] and [::-1, ::2].
  EXPECT_EQ(values<float>(x23().slice({Slice::all(), Slice::from(1)})),
            (std::vector<float>{2, 3, 5, 6}));
  EXPECT_EQ(values<float>(x23().slice({Slice(none, none, -1), Slice(none, none, 2)})),
            (std::vector<float>{4, 6, 1, 3}));
  EXPECT_EQ(x23().slice({Slice(1)}).shape(), (Shape{1, 3}));  // fewer slices than dims
}

TEST(Layout, SliceAssign) {
  const auto z = Tensor<1>::zeros({5}, device());
  EXPECT_EQ(values<float>(z.slice_assign({Slice(1, 4)}, floats<1>({1, 2, 3}, Shape{3}))),
            (std::vector<float>{0, 1, 2, 3, 0}));
  // numpy: a = zeros(5); a[::-2] = [1, 2, 3] writes a[4] = 1, a[2] = 2, a[0] = 3.
  EXPECT_EQ(values<float>(z.slice_assign({Slice(none, none, -2)}, floats<1>({1, 2, 3}, Shape{3}))),
            (std::vector<float>{3, 0, 2, 0, 1}));
  const auto x = x23().slice_assign({Slice::all(), Slice(-1)}, floats<2>({0, 0}, Shape{2, 1}));
  EXPECT_EQ(values<float>(x), (std::vector<float>{1, 2, 0, 4, 5, 0}));
}

TEST(Layout, Narrow) {
  EXPECT_EQ(values<float>(x23().narrow(1, 1, 2)), (std::vector<float>{2, 3, 5, 6}));
  EXPECT_EQ(values<float>(x23().narrow(-1, -2, 2)), (std::vector<float>{2, 3, 5, 6}));
  EXPECT_EQ(x23().narrow(0, 2, 0).shape(), (Shape{0, 3}));
}

TEST(Layout, SqueezeAndUnsqueeze) {
  const auto row = floats<2>({1, 2, 3}, Shape{1, 3});
  EXPECT_EQ(row.squeeze<1>(0).shape(), Shape{3});
  EXPECT_EQ(row.squeeze<1>(-2).shape(), Shape{3});
  EXPECT_EQ(x23().unsqueeze<4>().shape(), (Shape{1, 1, 2, 3}));
  EXPECT_EQ(x23().unsqueeze_dim<3>(-1).shape(), (Shape{2, 3, 1}));
  EXPECT_EQ(x23().unsqueeze_dim<3>(1).shape(), (Shape{2, 1, 3}));
  EXPECT_EQ(values<float>(x23().unsqueeze_dim<3>(0)), values<float>(x23()));
  EXPECT_EQ(ops::squeeze_all(floats<3>({1, 2, 3}, Shape{1, 3, 1}).handle()).shape(), Shape{3});
  EXPECT_EQ(ops::squeeze_all(floats<2>({1}, Shape{1, 1}).handle()).shape(), Shape{1});
}

TEST(Layout, RepeatDimTilesTheWholeTensor) {
  const auto x = floats<2>({1, 2, 3, 4}, Shape{2, 2});
  EXPECT_EQ(values<float>(x.repeat_dim(0, 2)), (std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4}));
  const auto wide = x.repeat_dim(-1, 3);
  EXPECT_EQ(wide.shape(), (Shape{2, 6}));
  EXPECT_EQ(values<float>(wide), (std::vector<float>{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4}));
  EXPECT_EQ(x.repeat_dim(0, 0).shape(), (Shape{0, 2}));
}

}  // namespace
}  // namespace ember::test
