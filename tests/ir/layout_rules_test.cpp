// Rules of reshape, permute, flip, expand and cat.
#include "ir_test_support.h"

namespace ember::ir {
namespace {

using test::infer_error;
using test::infer_one;
using test::meta;

TEST(IrReshape, KeepsElementCount) {
  EXPECT_EQ(infer_one(Reshape{{3, 2}}, {meta({2, 3}, DType::I16)}), meta({3, 2}, DType::I16));
  EXPECT_EQ(infer_one(Reshape{{6}}, {meta({1, 2, 3})}), meta({6}));
  EXPECT_EQ(infer_one(Reshape{{3, 0}}, {meta({0, 3})}), meta({3, 0}));
  EXPECT_EQ(infer_one(Reshape{{}}, {meta({1})}), meta({}));
}

TEST(IrReshape, RejectsOtherCountsAndNegativeDims) {
  EXPECT_EQ(infer_error(Reshape{{4, 2}}, {meta({2, 3})}),
            "[reshape] cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements)");
  EXPECT_EQ(infer_error(Reshape{{-1, 6}}, {meta({2, 3})}),
            "[reshape] shape [-1, 6] has negative dim -1");
  // 2^62 * 4 = 2^64 overflows int64.
  EXPECT_EQ(infer_error(Reshape{{int64_t{1} << 62, 4}}, {meta({2})}),
            "[reshape] shape [4611686018427387904, 4] has more elements than int64 can count");
}

TEST(IrPermute, ReordersDims) {
  // Output dim i = input dim axes[i]: [2, 3, 4] with (2, 0, 1) → [4, 2, 3].
  EXPECT_EQ(infer_one(Permute{{2, 0, 1}}, {meta({2, 3, 4})}), meta({4, 2, 3}));
  EXPECT_EQ(infer_one(Permute{{}}, {meta({})}), meta({}));
}

TEST(IrPermute, RejectsNonPermutations) {
  EXPECT_EQ(infer_error(Permute{{0}}, {meta({2, 3})}), "[permute] axes [0] do not match rank 2");
  EXPECT_EQ(infer_error(Permute{{0, 0}}, {meta({2, 3})}), "[permute] axis 0 repeated in [0, 0]");
  EXPECT_EQ(infer_error(Permute{{0, 2}}, {meta({2, 3})}),
            "[permute] axis 2 out of range for rank 2");
  EXPECT_EQ(infer_error(Permute{{-1, 0}}, {meta({2, 3})}),
            "[permute] axis -1 out of range for rank 2");
}

TEST(IrFlip, KeepsMeta) {
  EXPECT_EQ(infer_one(Flip{{1}}, {meta({2, 3}, DType::U16)}), meta({2, 3}, DType::U16));
  EXPECT_EQ(infer_one(Flip{{}}, {meta({2, 3})}), meta({2, 3}));
  EXPECT_EQ(infer_one(Flip{{0, 1}}, {meta({0, 3})}), meta({0, 3}));
}

TEST(IrFlip, RejectsRepeatedOrOutOfRangeAxes) {
  EXPECT_EQ(infer_error(Flip{{1, 1}}, {meta({2, 3})}), "[flip] axis 1 repeated in [1, 1]");
  EXPECT_EQ(infer_error(Flip{{2}}, {meta({2, 3})}), "[flip] axis 2 out of range for rank 2");
}

TEST(IrExpand, StretchesDimsOfOne) {
  EXPECT_EQ(infer_one(Expand{{4, 3}}, {meta({1, 3})}), meta({4, 3}));
  EXPECT_EQ(infer_one(Expand{{2, 3}}, {meta({2, 3}, DType::Bool)}), meta({2, 3}, DType::Bool));
  EXPECT_EQ(infer_one(Expand{{0, 3}}, {meta({1, 3})}), meta({0, 3}));
}

TEST(IrExpand, RejectsOtherDimsAndRanks) {
  EXPECT_EQ(infer_error(Expand{{2, 4}}, {meta({2, 3})}),
            "[expand] cannot expand [2, 3] to [2, 4]: dim 1 of size 3 is neither 1 nor 4");
  EXPECT_EQ(infer_error(Expand{{2, 3}}, {meta({3})}),
            "[expand] cannot expand [3] to [2, 3]: ranks 1 and 2 differ");
  EXPECT_EQ(infer_error(Expand{{-2, 3}}, {meta({1, 3})}),
            "[expand] shape [-2, 3] has negative dim -2");
}

TEST(IrCat, SumsTheCatDim) {
  EXPECT_EQ(infer_one(Cat{0}, {meta({2, 3}), meta({4, 3})}), meta({6, 3}));
  EXPECT_EQ(infer_one(Cat{1}, {meta({2, 1}), meta({2, 0}), meta({2, 5})}), meta({2, 6}));
  EXPECT_EQ(infer_one(Cat{0}, {meta({3}, DType::I8)}), meta({3}, DType::I8));
}

TEST(IrCat, RejectsMismatchedInputs) {
  EXPECT_EQ(infer_error(Cat{0}, {}), "[cat] expects at least 1 input, got 0");
  EXPECT_EQ(infer_error(Cat{2}, {meta({2, 3})}), "[cat] dim 2 out of range for rank 2");
  EXPECT_EQ(infer_error(Cat{0}, {meta({2, 3}), meta({2, 4})}),
            "[cat] input 0 [2, 3] and input 1 [2, 4] differ in dim 1 (cat along dim 0)");
  EXPECT_EQ(infer_error(Cat{0}, {meta({2, 3}), meta({2, 3}), meta({2, 3}, DType::I64)}),
            "[cat] input 0 dtype f32 and input 2 dtype i64 differ");
  EXPECT_EQ(infer_error(Cat{0}, {meta({2, 3}), meta({2})}),
            "[cat] input 0 [2, 3] and input 1 [2] differ in rank");
}

}  // namespace
}  // namespace ember::ir
