// Rules of the reductions.
#include "ir_test_support.h"

namespace ember::ir {
namespace {

using test::infer_error;
using test::infer_one;
using test::meta;

TEST(IrReduce, WholeReductionGivesShapeOne) {
  EXPECT_EQ(infer_one(Reduce{ReduceOp::Sum, std::nullopt}, {meta({2, 3})}), meta({1}));
  EXPECT_EQ(infer_one(Reduce{ReduceOp::Prod, std::nullopt}, {meta({4}, DType::I8)}),
            meta({1}, DType::I8));
  EXPECT_EQ(infer_one(Reduce{ReduceOp::Max, std::nullopt}, {meta({4}, DType::Bool)}),
            meta({1}, DType::Bool));
}

TEST(IrReduce, DimReductionKeepsTheDimAsOne) {
  EXPECT_EQ(infer_one(Reduce{ReduceOp::Sum, 1}, {meta({2, 3})}), meta({2, 1}));
  EXPECT_EQ(infer_one(Reduce{ReduceOp::Mean, 0}, {meta({2, 3}, DType::I32)}),
            meta({1, 3}, DType::I32));
  EXPECT_EQ(infer_one(Reduce{ReduceOp::Var, 1, 1}, {meta({2, 3}, DType::F64)}),
            meta({2, 1}, DType::F64));
}

TEST(IrReduce, OutputDtypeOfArgAndLogicalReductions) {
  EXPECT_EQ(infer_one(Reduce{ReduceOp::ArgMax, 1}, {meta({2, 3})}), meta({2, 1}, DType::I64));
  EXPECT_EQ(infer_one(Reduce{ReduceOp::ArgMin, 0, 0, DType::I32}, {meta({2, 3})}),
            meta({1, 3}, DType::I32));
  EXPECT_EQ(infer_one(Reduce{ReduceOp::Any, std::nullopt}, {meta({2, 3}, DType::I32)}),
            meta({1}, DType::Bool));
  EXPECT_EQ(infer_one(Reduce{ReduceOp::All, 0}, {meta({2, 3})}), meta({1, 3}, DType::Bool));
}

TEST(IrReduce, RejectsDimOutOfRange) {
  EXPECT_EQ(infer_error(Reduce{ReduceOp::Sum, 3}, {meta({2, 3})}),
            "[sum_dim] dim 3 out of range for rank 2");
  EXPECT_EQ(infer_error(Reduce{ReduceOp::Max, -1}, {meta({2, 3})}),
            "[max_dim] dim -1 out of range for rank 2");
  EXPECT_EQ(infer_error(Reduce{ReduceOp::Sum, std::nullopt}, {meta({})}),
            "[sum] expects rank >= 1, got shape []");
}

TEST(IrReduce, RejectsDtypeOutsideItsClass) {
  EXPECT_EQ(infer_error(Reduce{ReduceOp::Sum, std::nullopt}, {meta({2}, DType::Bool)}),
            "[sum] expects a numeric dtype, got bool");
  EXPECT_EQ(infer_error(Reduce{ReduceOp::Var, 0}, {meta({2}, DType::I32)}),
            "[var] expects a float dtype, got i32");
  EXPECT_EQ(infer_error(Reduce{ReduceOp::ArgMax, 0}, {meta({2}, DType::Bool)}),
            "[argmax] expects a numeric dtype, got bool");
}

TEST(IrReduce, RejectsIndexDtypeThatCannotHoldTheIndices) {
  EXPECT_EQ(infer_error(Reduce{ReduceOp::ArgMax, 0, 0, DType::F32}, {meta({2})}),
            "[argmax] index dtype: expects an int dtype, got f32");
  // A dim of 256 has indices 0..255: u8 holds them, one more does not fit.
  EXPECT_EQ(infer_one(Reduce{ReduceOp::ArgMin, 0, 0, DType::U8}, {meta({256})}),
            meta({1}, DType::U8));
  EXPECT_EQ(infer_error(Reduce{ReduceOp::ArgMin, 0, 0, DType::U8}, {meta({257})}),
            "[argmin] index dtype u8 cannot hold index 256 of a dim of size 257");
}

TEST(IrReduce, RejectsBadVarCorrection) {
  EXPECT_EQ(infer_error(Reduce{ReduceOp::Var, 0, -1}, {meta({3})}),
            "[var] correction -1 must be >= 0");
  EXPECT_EQ(infer_error(Reduce{ReduceOp::Var, 0, 4}, {meta({3})}),
            "[var] correction 4 exceeds the 3 elements reduced");
}

TEST(IrReduce, EmptyDims) {
  // Sum, prod, any and all have an identity for zero elements.
  EXPECT_EQ(infer_one(Reduce{ReduceOp::Sum, 1}, {meta({2, 0})}), meta({2, 1}));
  EXPECT_EQ(infer_one(Reduce{ReduceOp::All, std::nullopt}, {meta({0})}), meta({1}, DType::Bool));
  // Reducing a non-empty dim of an empty tensor is fine for any op.
  EXPECT_EQ(infer_one(Reduce{ReduceOp::Max, 1}, {meta({0, 3})}), meta({0, 1}));
  EXPECT_EQ(infer_error(Reduce{ReduceOp::Max, 1}, {meta({2, 0})}),
            "[max_dim] cannot reduce an empty dim: dim 1 of [2, 0]");
  EXPECT_EQ(infer_error(Reduce{ReduceOp::Mean, std::nullopt}, {meta({0, 3})}),
            "[mean] cannot reduce an empty tensor [0, 3]");
  EXPECT_EQ(infer_error(Reduce{ReduceOp::ArgMax, 0}, {meta({0})}),
            "[argmax] cannot reduce an empty dim: dim 0 of [0]");
  EXPECT_EQ(infer_error(Reduce{ReduceOp::Var, 0}, {meta({0})}),
            "[var] cannot reduce an empty dim: dim 0 of [0]");
}

}  // namespace
}  // namespace ember::ir
