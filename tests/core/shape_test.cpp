#include "ember/shape.h"

#include <gtest/gtest.h>

#include <limits>

#include "test_helpers.h"

namespace ember {
namespace {

using test::invalid_argument_message;
using test::printed;

TEST(Shape, NumElementsIsTheProductOfTheDims) {
  EXPECT_EQ(Shape({2, 3, 4}).num_elements(), 24);
  EXPECT_EQ(Shape({7}).num_elements(), 7);
  EXPECT_EQ(Shape{}.num_elements(), 1);  // rank 0: one scalar
  EXPECT_EQ(Shape({2, 0, 3}).num_elements(), 0);
}

TEST(Shape, NumElementsOverflowIsInvalidArgument) {
  const Shape huge({int64_t{1} << 32, int64_t{1} << 32});
  EXPECT_EQ(invalid_argument_message([&] { huge.num_elements(); }),
            "[Shape] [4294967296, 4294967296] has more elements than int64 can count");
  EXPECT_EQ(Shape({int64_t{1} << 31, int64_t{1} << 31}).num_elements(), int64_t{1} << 62);
}

TEST(Shape, ContiguousStridesAreRowMajor) {
  EXPECT_EQ(Shape({2, 3, 4}).contiguous_strides(), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(Shape({5}).contiguous_strides(), (std::vector<int64_t>{1}));
  EXPECT_EQ(Shape{}.contiguous_strides(), (std::vector<int64_t>{}));
  // As PyTorch: torch.empty(2, 0, 3).stride() == (3, 3, 1).
  EXPECT_EQ(Shape({2, 0, 3}).contiguous_strides(), (std::vector<int64_t>{3, 3, 1}));
}

TEST(Shape, ContiguousStridesOverflowIsInvalidArgument) {
  const int64_t big = int64_t{1} << 40;
  EXPECT_THROW(Shape({0, big, big}).contiguous_strides(), InvalidArgument);
}

TEST(Shape, AccessorsAndEquality) {
  const Shape s({2, 3});
  EXPECT_EQ(s.rank(), 2u);
  EXPECT_EQ(s[0], 2);
  EXPECT_EQ(s[1], 3);
  EXPECT_EQ(s.dims(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(s, Shape(std::vector<int64_t>{2, 3}));
  EXPECT_NE(s, Shape({3, 2}));
  EXPECT_NE(s, Shape({2, 3, 1}));
}

TEST(Shape, Prints) {
  EXPECT_EQ(printed(Shape({2, 3})), "[2, 3]");
  EXPECT_EQ(printed(Shape({7})), "[7]");
  EXPECT_EQ(printed(Shape{}), "[]");
  EXPECT_EQ(printed(Shape({1, 0, 4})), "[1, 0, 4]");
}

}  // namespace
}  // namespace ember
