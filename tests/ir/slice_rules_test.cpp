// Rules of slice and slice_assign.
#include <cstdint>

#include "ir_test_support.h"

namespace ember::ir {
namespace {

using test::infer_error;
using test::infer_one;
using test::meta;

TEST(IrSlice, OutputDimIsCeilOfLengthOverStep) {
  // dim 0: 0..5 step 2 → 0, 2, 4 (3); dim 1: 1..3 → 1, 2 (2).
  EXPECT_EQ(infer_one(Slice{{{0, 5, 2}, {1, 3, 1}}}, {meta({5, 4})}), meta({3, 2}));
  // 0..4 step 3 → 0, 3 (2); 2..2 is empty.
  EXPECT_EQ(infer_one(Slice{{{0, 4, 3}, {2, 2, 1}}}, {meta({4, 4}, DType::I8)}),
            meta({2, 0}, DType::I8));
  // A step far past the length takes just the start.
  EXPECT_EQ(infer_one(Slice{{{1, 4, INT64_MAX}}}, {meta({4})}), meta({1}));
}

TEST(IrSlice, RejectsUnnormalizedRanges) {
  EXPECT_EQ(infer_error(Slice{{{0, 2, 1}}}, {meta({4, 4})}),
            "[slice] 1 ranges for rank 2 (shape [4, 4])");
  EXPECT_EQ(infer_error(Slice{{{0, 5, 1}}}, {meta({4})}),
            "[slice] dim 0: range 0..5 is not within 0..4");
  EXPECT_EQ(infer_error(Slice{{{0, 4, 1}, {3, 1, 1}}}, {meta({4, 4})}),
            "[slice] dim 1: range 3..1 is not within 0..4");
  EXPECT_EQ(infer_error(Slice{{{-1, 2, 1}}}, {meta({4})}),
            "[slice] dim 0: range -1..2 is not within 0..4");
  EXPECT_EQ(infer_error(Slice{{{0, 4, -1}}}, {meta({4})}), "[slice] dim 0: step -1 must be >= 1");
  EXPECT_EQ(infer_error(Slice{{{0, 4, 0}}}, {meta({4})}), "[slice] dim 0: step 0 must be >= 1");
}

TEST(IrSliceAssign, ValuesMatchTheSlice) {
  EXPECT_EQ(infer_one(SliceAssign{{{0, 5, 2}, {1, 3, 1}}}, {meta({5, 4}), meta({3, 2})}),
            meta({5, 4}));
}

TEST(IrSliceAssign, RejectsOtherValues) {
  EXPECT_EQ(infer_error(SliceAssign{{{0, 5, 2}, {1, 3, 1}}}, {meta({5, 4}), meta({2, 2})}),
            "[slice_assign] values shape [2, 2] and slice shape [3, 2] differ");
  EXPECT_EQ(infer_error(SliceAssign{{{0, 1, 1}}}, {meta({5}), meta({1}, DType::F16)}),
            "[slice_assign] x dtype f32 and values dtype f16 differ");
  EXPECT_EQ(infer_error(SliceAssign{{{0, 1, 1}}}, {meta({5})}),
            "[slice_assign] expects 2 inputs, got 1");
}

}  // namespace
}  // namespace ember::ir
