// Strided views: permute, transpose, flip, expand, slice and reshape of a contiguous (or
// view-compatible) tensor share the input's storage; values read through views match ndarray's;
// ops never write into a storage another view shares.
#include <gtest/gtest.h>

#include <vector>

#include "flex_test_util.h"

namespace ember::flex::test {
namespace {

using ops::Dims;

TEST(FlexViews, LayoutOpsShareTheInputStorage) {
  const Device flex = Device::flex();
  const TensorHandle x = iota({2, 3, 4}, flex);
  EXPECT_TRUE(shares_storage(x, ops::permute(x, {2, 0, 1})));
  EXPECT_TRUE(shares_storage(x, ops::swap_dims(x, 0, 2)));
  EXPECT_TRUE(shares_storage(x, ops::flip(x, {0, 2})));
  EXPECT_TRUE(shares_storage(x, ops::slice(x, {Slice(), Slice(1, 3), Slice(0, 4, 2)})));
  EXPECT_TRUE(shares_storage(x, ops::reshape(x, {6, 4})));
  EXPECT_TRUE(shares_storage(x, ops::unsqueeze_dim(x, 1)));
  const TensorHandle row = iota({1, 4}, flex);
  EXPECT_TRUE(shares_storage(row, ops::expand(row, {3, 4})));
}

TEST(FlexViews, ViewsHaveTheExpectedStridesAndOffsets) {
  const Device flex = Device::flex();
  const TensorHandle x = iota({2, 3, 4}, flex);
  const View transposed = view_of(ops::permute(x, {2, 0, 1}));
  EXPECT_EQ(transposed.strides, (std::vector<int64_t>{1, 12, 4}));
  const View flipped = view_of(ops::flip(x, {1}));
  EXPECT_EQ(flipped.offset, 8);  // element [0, 2, 0]
  EXPECT_EQ(flipped.strides, (std::vector<int64_t>{12, -4, 1}));
  const View stepped = view_of(ops::slice(x, {Slice(1, 2), Slice(), Slice(1, 4, 2)}));
  EXPECT_EQ(stepped.offset, 13);  // element [1, 0, 1]
  EXPECT_EQ(stepped.strides, (std::vector<int64_t>{12, 4, 2}));
  const TensorHandle column = iota({3, 1}, flex);
  EXPECT_EQ(view_of(ops::expand(column, {3, 5})).strides, (std::vector<int64_t>{1, 0}));
}

TEST(FlexViews, ValuesReadThroughViewsAreTheRightElements) {
  const Device flex = Device::flex();
  const TensorHandle x = iota({2, 3}, flex);  // [[0, 1, 2], [3, 4, 5]]
  EXPECT_EQ(ops::into_data(ops::transpose(x)).to_vector<float>(),
            (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(ops::into_data(ops::flip(x, {0, 1})).to_vector<float>(),
            (std::vector<float>{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(ops::into_data(ops::slice(x, {Slice(), Slice(0, 3, 2)})).to_vector<float>(),
            (std::vector<float>{0, 2, 3, 5}));
  EXPECT_EQ(
      ops::into_data(ops::expand(ops::slice(x, {Slice(1, 2), Slice()}), {2, 3})).to_vector<float>(),
      (std::vector<float>{3, 4, 5, 3, 4, 5}));
}

TEST(FlexViews, ReshapeSplittingOrMergingLaidOutDimsStaysAView) {
  const Device flex = Device::flex();
  const TensorHandle t = ops::transpose(iota({4, 6}, flex));  // [6, 4], strides [1, 6]
  const TensorHandle split = ops::reshape(t, {3, 2, 4});
  EXPECT_TRUE(shares_storage(t, split));
  EXPECT_EQ(view_of(split).strides, (std::vector<int64_t>{2, 1, 6}));
  // Expanded dims merge with each other: stride 0 times anything is still 0.
  const TensorHandle e = ops::expand(iota({1, 1, 5}, flex), {2, 3, 5});
  const TensorHandle merged = ops::reshape(e, {6, 5});
  EXPECT_TRUE(shares_storage(e, merged));
  EXPECT_EQ(view_of(merged).strides, (std::vector<int64_t>{0, 1}));
}

TEST(FlexViews, ReshapeThatStridesCannotExpressCopiesOnce) {
  const Device flex = Device::flex();
  const TensorHandle t = ops::transpose(iota({2, 3}, flex));  // [[0, 3], [1, 4], [2, 5]]
  const TensorHandle flat = ops::reshape(t, {6});
  EXPECT_FALSE(shares_storage(t, flat));
  EXPECT_TRUE(view_of(flat).is_contiguous());
  EXPECT_EQ(ops::into_data(flat).to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(FlexViews, EmptySlicesAndEmptyTensorsWork) {
  const Device flex = Device::flex();
  const TensorHandle x = iota({3, 4}, flex);
  const TensorHandle empty = ops::slice(x, {Slice(3, 3), Slice()});
  EXPECT_EQ(ops::into_data(empty).shape(), Shape({0, 4}));
  EXPECT_EQ(ops::into_data(ops::transpose(empty)).shape(), Shape({4, 0}));
  EXPECT_EQ(ops::into_data(ops::add(empty, empty)).shape(), Shape({0, 4}));
}

TEST(FlexViews, OpsNeverWriteIntoASharedStorage) {
  const Device flex = Device::flex();
  const TensorHandle x = iota({3, 4}, flex);
  const TensorHandle window = ops::slice(x, {Slice(1, 3), Slice(1, 3)});
  const TensorHandle zeros = ops::zeros({2, 2}, flex, TensorKind::Float);
  const TensorHandle assigned = ops::slice_assign(window, {Slice(), Slice()}, zeros);
  EXPECT_EQ(ops::into_data(assigned).to_vector<float>(), (std::vector<float>{0, 0, 0, 0}));
  EXPECT_EQ(ops::into_data(window).to_vector<float>(), (std::vector<float>{5, 6, 9, 10}));
  const TensorData original = ops::into_data(x);
  EXPECT_EQ(original.to_vector<float>()[5], 5.0f);
  EXPECT_EQ(original.to_vector<float>()[10], 10.0f);
}

/// Views of every kind in front of ops with and without flex kernels of their own.
TEST(FlexViews, StridedInputsGiveNdarrayResults) {
  const auto permuted = [](const Device& d) {
    return ops::permute(varied({3, 4, 5}, d), {2, 0, 1});
  };
  const auto flipped_slice = [](const Device& d) {
    return ops::slice(ops::flip(varied({6, 7}, d), {1}), {Slice(1, 6, 2), Slice(0, 7, 3)});
  };
  const auto expanded = [](const Device& d) { return ops::expand(varied({4, 1}, d), {4, 6}); };
  const std::vector<std::pair<const char*, std::function<TensorHandle(const Device&)>>> cases = {
      {"add permuted + permuted",
       [&](const Device& d) { return ops::add(permuted(d), permuted(d)); }},
      {"mul expanded by row",
       [&](const Device& d) { return ops::mul(expanded(d), varied({6}, d)); }},
      {"exp of flipped slice", [&](const Device& d) { return ops::exp(flipped_slice(d)); }},
      {"cumsum of flipped slice",
       [&](const Device& d) { return ops::cumsum(flipped_slice(d), 1); }},
      {"sum_dim of permuted", [&](const Device& d) { return ops::sum_dim(permuted(d), 1); }},
      {"matmul of transposes",
       [&](const Device& d) {
         return ops::matmul(ops::transpose(varied({5, 3}, d)), ops::transpose(varied({4, 5}, d)));
       }},
      {"reshape of permuted",
       [&](const Device& d) {
         return ops::reshape(permuted(d), {20, 3});
       }},
      {"sort of expanded", [&](const Device& d) { return ops::sort(expanded(d), 0); }},
  };
  for (const auto& [name, compute] : cases)
    expect_matches_ndarray(compute, name);
}

}  // namespace
}  // namespace ember::flex::test
