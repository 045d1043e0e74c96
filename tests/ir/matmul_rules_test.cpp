// Rule of matmul.
#include "ir_test_support.h"

namespace ember::ir {
namespace {

using test::infer_error;
using test::infer_one;
using test::meta;

TEST(IrMatmul, MultipliesInnerDims) {
  EXPECT_EQ(infer_one(Matmul{}, {meta({2, 3}), meta({3, 4})}), meta({2, 4}));
  EXPECT_EQ(infer_one(Matmul{}, {meta({2, 3}, DType::I32), meta({3, 4}, DType::I32)}),
            meta({2, 4}, DType::I32));
}

TEST(IrMatmul, BroadcastsBatchDims) {
  // batch [5, 1] with [1, 4] → [5, 4]; then m = 2, n = 6.
  EXPECT_EQ(infer_one(Matmul{}, {meta({5, 1, 2, 3}), meta({1, 4, 3, 6})}), meta({5, 4, 2, 6}));
}

TEST(IrMatmul, ZeroSizeDims) {
  EXPECT_EQ(infer_one(Matmul{}, {meta({2, 0}), meta({0, 3})}), meta({2, 3}));
  EXPECT_EQ(infer_one(Matmul{}, {meta({0, 2, 3}), meta({1, 3, 4})}), meta({0, 2, 4}));
}

TEST(IrMatmul, RejectsMismatchedInnerDims) {
  EXPECT_EQ(infer_error(Matmul{}, {meta({2, 3}), meta({4, 5})}),
            "[matmul] lhs [2, 3] and rhs [4, 5]: inner dims 3 != 4");
}

TEST(IrMatmul, RejectsBadRanks) {
  EXPECT_EQ(infer_error(Matmul{}, {meta({3}), meta({3, 2})}),
            "[matmul] lhs [3] and rhs [3, 2]: expects rank >= 2");
  EXPECT_EQ(infer_error(Matmul{}, {meta({2, 3}), meta({1, 3, 4})}),
            "[matmul] lhs [2, 3] and rhs [1, 3, 4]: ranks 2 and 3 differ");
}

TEST(IrMatmul, RejectsIncompatibleBatchDims) {
  EXPECT_EQ(infer_error(Matmul{}, {meta({2, 2, 3}), meta({3, 3, 4})}),
            "[matmul] lhs [2, 2, 3] and rhs [3, 3, 4]: batch dims [2] and [3] do not broadcast");
}

TEST(IrMatmul, RejectsBadDtypes) {
  EXPECT_EQ(infer_error(Matmul{}, {meta({2, 3}), meta({3, 4}, DType::F64)}),
            "[matmul] lhs dtype f32 and rhs dtype f64 differ");
  EXPECT_EQ(infer_error(Matmul{}, {meta({2, 3}, DType::Bool), meta({3, 4}, DType::Bool)}),
            "[matmul] expects a numeric dtype, got bool");
  EXPECT_EQ(infer_error(Matmul{}, {meta({2, 3})}), "[matmul] expects 2 inputs, got 1");
}

}  // namespace
}  // namespace ember::ir
