// ir::broadcast_shapes: NumPy broadcasting (trailing dims aligned, 1 stretches).
#include "ir_test_support.h"

namespace ember::ir {
namespace {

TEST(IrBroadcast, EqualShapes) {
  EXPECT_EQ(broadcast_shapes({2, 3}, {2, 3}, "add"), Shape({2, 3}));
}

TEST(IrBroadcast, MissingLeadingDimsActAsOne) {
  EXPECT_EQ(broadcast_shapes({2, 3}, {3}, "add"), Shape({2, 3}));
  EXPECT_EQ(broadcast_shapes({3}, {2, 3}, "add"), Shape({2, 3}));
  EXPECT_EQ(broadcast_shapes({}, {2, 3}, "add"), Shape({2, 3}));
}

TEST(IrBroadcast, OnesStretchOnBothSides) {
  // [4, 1, 3] with [2, 1]: aligned as [4, 1, 3] / [1, 2, 1] → [4, 2, 3].
  EXPECT_EQ(broadcast_shapes({4, 1, 3}, {2, 1}, "add"), Shape({4, 2, 3}));
}

TEST(IrBroadcast, ZeroSizeDims) {
  EXPECT_EQ(broadcast_shapes({0}, {1}, "add"), Shape({0}));
  EXPECT_EQ(broadcast_shapes({0}, {0}, "add"), Shape({0}));
  EXPECT_EQ(broadcast_shapes({2, 0, 3}, {1, 3}, "add"), Shape({2, 0, 3}));
}

TEST(IrBroadcast, IncompatibleDimsNameOpAndShapes) {
  try {
    broadcast_shapes({2, 3}, {4}, "add");
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgument& error) {
    EXPECT_STREQ(error.what(), "[add] shapes [2, 3] and [4] do not broadcast");
  }
  // Zero does not stretch: only 1 does.
  EXPECT_THROW(broadcast_shapes({0}, {2}, "mul"), InvalidArgument);
}

}  // namespace
}  // namespace ember::ir
