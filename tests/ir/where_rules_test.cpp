// Rules of where and mask_fill.
#include "ir_test_support.h"

namespace ember::ir {
namespace {

using test::contains;
using test::infer_error;
using test::infer_one;
using test::meta;

TEST(IrWhere, BroadcastsAllThree) {
  // cond [2, 1], a [1, 3], b [3] → [2, 3].
  EXPECT_EQ(infer_one(Where{}, {meta({2, 1}, DType::Bool), meta({1, 3}), meta({3})}), meta({2, 3}));
  EXPECT_EQ(
      infer_one(Where{}, {meta({0}, DType::Bool), meta({1}, DType::I8), meta({0}, DType::I8)}),
      meta({0}, DType::I8));
}

TEST(IrWhere, RejectsBadDtypesAndShapes) {
  EXPECT_EQ(infer_error(Where{}, {meta({2}), meta({2}), meta({2})}),
            "[where] cond: expects a bool dtype, got f32");
  EXPECT_EQ(infer_error(Where{}, {meta({2}, DType::Bool), meta({2}), meta({2}, DType::F64)}),
            "[where] a dtype f32 and b dtype f64 differ");
  EXPECT_EQ(infer_error(Where{}, {meta({2}, DType::Bool), meta({3}), meta({3})}),
            "[where] cond [2], a [3] and b [3] do not broadcast");
  EXPECT_EQ(infer_error(Where{}, {meta({3}, DType::Bool), meta({3}), meta({2, 2})}),
            "[where] cond [3], a [3] and b [2, 2] do not broadcast");
  EXPECT_EQ(infer_error(Where{}, {meta({3}, DType::Bool), meta({3})}),
            "[where] expects 3 inputs, got 2");
}

TEST(IrMaskFill, MaskBroadcastsToX) {
  EXPECT_EQ(infer_one(MaskFill{0.5}, {meta({2, 3}), meta({3}, DType::Bool)}), meta({2, 3}));
  EXPECT_EQ(infer_one(MaskFill{7}, {meta({2, 3}, DType::I32), meta({2, 1}, DType::Bool)}),
            meta({2, 3}, DType::I32));
}

TEST(IrMaskFill, RejectsMaskLargerThanX) {
  EXPECT_EQ(infer_error(MaskFill{0}, {meta({3}), meta({2, 3}, DType::Bool)}),
            "[mask_fill] mask [2, 3] does not broadcast to x [3]");
  EXPECT_EQ(infer_error(MaskFill{0}, {meta({3}), meta({2}, DType::Bool)}),
            "[mask_fill] mask [2] does not broadcast to x [3]");
}

TEST(IrMaskFill, RejectsBadMaskDtypeAndValue) {
  EXPECT_EQ(infer_error(MaskFill{0}, {meta({3}), meta({3}, DType::U8)}),
            "[mask_fill] mask: expects a bool dtype, got u8");
  EXPECT_TRUE(contains(infer_error(MaskFill{200}, {meta({3}, DType::I8), meta({3}, DType::Bool)}),
                       "does not fit in i8"));
}

}  // namespace
}  // namespace ember::ir
