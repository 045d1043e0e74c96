// nn::Flatten (nn/flatten.h): PyTorch goldens, other ranks, and its errors.
#include <gtest/gtest.h>

#include "ember/nn/flatten.h"
#include "layer_golden.h"
#include "support/suite_device.h"

namespace ember::nn {
namespace {

using layer_golden::expect_golden;
using layer_golden::expect_invalid;
using layer_golden::golden_device;

TEST(FlattenLayer, DefaultMergesAllButTheBatchDimAsInPyTorch) {
  Flatten flatten = FlattenConfig{}.init(golden_device());
  expect_golden<4>(flatten, "flatten");
}

TEST(FlattenLayer, LeadingDimsMergeAsInPyTorch) {
  Flatten flatten = FlattenConfig{0, 1}.init(golden_device());
  expect_golden<3>(flatten, "flatten_leading");
}

TEST(FlattenLayer, TheCallerNamesTheResultRank) {
  const Tensor<4> x = Tensor<4>::zeros({2, 3, 4, 5}, ember::test::suite_device());
  const Flatten middle{1, 2};
  const Flatten last_two{-2, -1};
  const Flatten one_dim{2, 2};
  EXPECT_EQ(middle.forward<3>(x).shape(), Shape({2, 12, 5}));
  EXPECT_EQ(last_two.forward<3>(x).shape(), Shape({2, 3, 20}));
  EXPECT_EQ(one_dim.forward<4>(x).shape(), Shape({2, 3, 4, 5}));
  // A zero-size dim merges too (no -1 to infer).
  EXPECT_EQ(Flatten{}.forward(Tensor<3>::zeros({0, 3, 4}, ember::test::suite_device())).shape(),
            Shape({0, 12}));
}

TEST(FlattenLayer, BadDimsOrRankAreInvalidArguments) {
  const Tensor<3> x = Tensor<3>::zeros({2, 3, 4}, ember::test::suite_device());
  const Flatten reversed{2, 1};
  const Flatten past_the_end{0, 3};
  expect_invalid([&] { reversed.forward<3>(x); }, {"[Flatten]", "start_dim 2", "end_dim 1"});
  expect_invalid([&] { past_the_end.forward<1>(x); }, {"[Flatten]", "end_dim 3"});
  expect_invalid([&] { Flatten{}.forward<3>(x); }, {"[Flatten]", "rank 2, not 3"});
}

}  // namespace
}  // namespace ember::nn
