// Rules of select, select_assign, gather and scatter.
#include "ir_test_support.h"

namespace ember::ir {
namespace {

using test::infer_error;
using test::infer_one;
using test::meta;

TEST(IrSelect, DimTakesTheIndicesLength) {
  EXPECT_EQ(infer_one(Select{0}, {meta({5, 4}), meta({3}, DType::I64)}), meta({3, 4}));
  EXPECT_EQ(infer_one(Select{1}, {meta({5, 4}, DType::Bool), meta({0}, DType::U8)}),
            meta({5, 0}, DType::Bool));
}

TEST(IrSelect, RejectsBadIndicesAndDim) {
  EXPECT_EQ(infer_error(Select{0}, {meta({5, 4}), meta({3})}),
            "[select] indices: expects an int dtype, got f32");
  EXPECT_EQ(infer_error(Select{0}, {meta({5, 4}), meta({3, 1}, DType::I64)}),
            "[select] indices: expects rank 1, got shape [3, 1]");
  EXPECT_EQ(infer_error(Select{2}, {meta({5, 4}), meta({3}, DType::I64)}),
            "[select] dim 2 out of range for rank 2");
}

TEST(IrSelectAssign, ValuesMatchTheSelection) {
  EXPECT_EQ(infer_one(SelectAssign{1}, {meta({5, 4}), meta({2}, DType::I32), meta({5, 2})}),
            meta({5, 4}));
}

TEST(IrSelectAssign, RejectsOtherValues) {
  EXPECT_EQ(infer_error(SelectAssign{1}, {meta({5, 4}), meta({2}, DType::I32), meta({5, 3})}),
            "[select_assign] values shape [5, 3] and selection shape [5, 2] differ");
  EXPECT_EQ(
      infer_error(SelectAssign{1}, {meta({5, 4}), meta({2}, DType::I32), meta({5, 2}, DType::F64)}),
      "[select_assign] x dtype f32 and values dtype f64 differ");
}

TEST(IrGather, OutputTakesTheIndicesShape) {
  EXPECT_EQ(infer_one(Gather{0}, {meta({3, 4}, DType::I16), meta({2, 4}, DType::I64)}),
            meta({2, 4}, DType::I16));
  // Along dim, indices may be longer than x (repeated picks); elsewhere no longer.
  EXPECT_EQ(infer_one(Gather{0}, {meta({3, 4}), meta({5, 2}, DType::U8)}), meta({5, 2}));
}

TEST(IrGather, RejectsBadIndices) {
  EXPECT_EQ(infer_error(Gather{0}, {meta({3, 4}), meta({2, 5}, DType::I64)}),
            "[gather] indices [2, 5] exceed x [3, 4] in dim 1");
  EXPECT_EQ(infer_error(Gather{0}, {meta({3, 4}), meta({2}, DType::I64)}),
            "[gather] indices [2] and x [3, 4] differ in rank");
  EXPECT_EQ(infer_error(Gather{0}, {meta({3, 4}), meta({2, 4}, DType::Bool)}),
            "[gather] indices: expects an int dtype, got bool");
  EXPECT_EQ(infer_error(Gather{-1}, {meta({3, 4}), meta({2, 4}, DType::I64)}),
            "[gather] dim -1 out of range for rank 2");
}

TEST(IrScatter, OutputTakesXsShape) {
  EXPECT_EQ(infer_one(Scatter{1}, {meta({3, 4}), meta({3, 2}, DType::I64), meta({3, 2})}),
            meta({3, 4}));
}

TEST(IrScatter, RejectsBadIndicesAndValues) {
  EXPECT_EQ(infer_error(Scatter{1}, {meta({3, 4}), meta({3, 2}, DType::I64), meta({3, 3})}),
            "[scatter] values shape [3, 3] and indices shape [3, 2] differ");
  EXPECT_EQ(
      infer_error(Scatter{1}, {meta({3, 4}), meta({3, 2}, DType::I64), meta({3, 2}, DType::I32)}),
      "[scatter] x dtype f32 and values dtype i32 differ");
  EXPECT_EQ(infer_error(Scatter{1}, {meta({3, 4}), meta({4, 2}, DType::I64), meta({4, 2})}),
            "[scatter] indices [4, 2] exceed x [3, 4] in dim 0");
}

}  // namespace
}  // namespace ember::ir
