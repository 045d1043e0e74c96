// Rules of sort and the cumulative ops.
#include <vector>

#include "ir_test_support.h"

namespace ember::ir {
namespace {

using test::infer_error;
using test::infer_one;
using test::meta;

TEST(IrSort, GivesValuesAndIndices) {
  const OutputMetas expected = {meta({3, 4}), meta({3, 4}, DType::I64)};
  EXPECT_EQ(infer(Sort{1}, std::vector{meta({3, 4})}), expected);
  const OutputMetas bools = {meta({0}, DType::Bool), meta({0}, DType::I32)};
  EXPECT_EQ(infer(Sort{0, true, DType::I32}, std::vector{meta({0}, DType::Bool)}), bools);
}

TEST(IrSort, RejectsBadDimAndIndexDtype) {
  EXPECT_EQ(infer_error(Sort{2}, {meta({3, 4})}), "[sort] dim 2 out of range for rank 2");
  EXPECT_EQ(infer_error(Sort{0, false, DType::F32}, {meta({3})}),
            "[sort] index dtype: expects an int dtype, got f32");
  // i8 holds indices up to 127: a dim of 128 fits, 129 does not.
  EXPECT_EQ(infer(Sort{0, false, DType::I8}, std::vector{meta({128})}).size(), 2u);
  EXPECT_EQ(infer_error(Sort{0, false, DType::I8}, {meta({129})}),
            "[sort] index dtype i8 cannot hold index 128 of a dim of size 129");
}

TEST(IrCumulative, KeepsMeta) {
  EXPECT_EQ(infer_one(Cumulative{CumulativeOp::Sum, 1}, {meta({2, 3}, DType::I32)}),
            meta({2, 3}, DType::I32));
  EXPECT_EQ(infer_one(Cumulative{CumulativeOp::Max, 0}, {meta({0})}), meta({0}));
}

TEST(IrCumulative, RejectsBadDtypeAndDim) {
  EXPECT_EQ(infer_error(Cumulative{CumulativeOp::Sum, 0}, {meta({2}, DType::Bool)}),
            "[cumsum] expects a numeric dtype, got bool");
  EXPECT_EQ(infer_error(Cumulative{CumulativeOp::Prod, 1}, {meta({2})}),
            "[cumprod] dim 1 out of range for rank 1");
}

}  // namespace
}  // namespace ember::ir
