// Rules of unary, binary, binary-scalar, compare and cast ops.
#include <cmath>
#include <limits>

#include "ir_test_support.h"

namespace ember::ir {
namespace {

using test::contains;
using test::infer_error;
using test::infer_one;
using test::meta;

TEST(IrUnary, KeepsShapeAndDtype) {
  EXPECT_EQ(infer_one(Unary{UnaryOp::Exp}, {meta({2, 3}, DType::F32)}), meta({2, 3}, DType::F32));
  EXPECT_EQ(infer_one(Unary{UnaryOp::Neg}, {meta({4}, DType::I32)}), meta({4}, DType::I32));
  EXPECT_EQ(infer_one(Unary{UnaryOp::Abs}, {meta({4}, DType::U8)}), meta({4}, DType::U8));
  EXPECT_EQ(infer_one(Unary{UnaryOp::Not}, {meta({1}, DType::Bool)}), meta({1}, DType::Bool));
  EXPECT_EQ(infer_one(Unary{UnaryOp::Sqrt}, {meta({0, 3}, DType::BF16)}),
            meta({0, 3}, DType::BF16));
}

TEST(IrUnary, PredicatesGiveBool) {
  EXPECT_EQ(infer_one(Unary{UnaryOp::IsNan}, {meta({2}, DType::F16)}), meta({2}, DType::Bool));
  EXPECT_EQ(infer_one(Unary{UnaryOp::IsInf}, {meta({2}, DType::F64)}), meta({2}, DType::Bool));
}

TEST(IrUnary, RejectsDtypeOutsideItsClass) {
  EXPECT_EQ(infer_error(Unary{UnaryOp::Exp}, {meta({2}, DType::I32)}),
            "[exp] expects a float dtype, got i32");
  EXPECT_EQ(infer_error(Unary{UnaryOp::Neg}, {meta({2}, DType::U8)}),
            "[neg] expects a float or signed int dtype, got u8");
  EXPECT_EQ(infer_error(Unary{UnaryOp::Sign}, {meta({2}, DType::Bool)}),
            "[sign] expects a numeric dtype, got bool");
  EXPECT_EQ(infer_error(Unary{UnaryOp::Not}, {meta({2}, DType::F32)}),
            "[bool_not] expects a bool dtype, got f32");
  EXPECT_EQ(infer_error(Unary{UnaryOp::IsNan}, {meta({2}, DType::I64)}),
            "[is_nan] expects a float dtype, got i64");
}

TEST(IrUnary, ChecksArityAndInputShapes) {
  EXPECT_EQ(infer_error(Unary{UnaryOp::Exp}, {meta({2}), meta({2})}),
            "[exp] expects 1 input, got 2");
  EXPECT_EQ(infer_error(Unary{UnaryOp::Exp}, {meta({2, -1})}),
            "[exp] input 0 [2, -1] has negative dim -1");
}

TEST(IrBinary, BroadcastsShapes) {
  EXPECT_EQ(infer_one(Binary{BinaryOp::Add}, {meta({2, 3}), meta({3})}), meta({2, 3}));
  EXPECT_EQ(
      infer_one(Binary{BinaryOp::Mul}, {meta({4, 1, 3}, DType::I64), meta({2, 1}, DType::I64)}),
      meta({4, 2, 3}, DType::I64));
  EXPECT_EQ(infer_one(Binary{BinaryOp::Sub}, {meta({0, 3}), meta({1, 3})}), meta({0, 3}));
  EXPECT_EQ(infer_one(Binary{BinaryOp::Xor}, {meta({2}, DType::Bool), meta({2}, DType::Bool)}),
            meta({2}, DType::Bool));
}

TEST(IrBinary, RejectsMixedDtypes) {
  EXPECT_EQ(infer_error(Binary{BinaryOp::Add}, {meta({2}, DType::F32), meta({2}, DType::I64)}),
            "[add] lhs dtype f32 and rhs dtype i64 differ");
}

TEST(IrBinary, RejectsDtypeOutsideItsClass) {
  EXPECT_EQ(infer_error(Binary{BinaryOp::Add}, {meta({2}, DType::Bool), meta({2}, DType::Bool)}),
            "[add] expects a numeric dtype, got bool");
  EXPECT_EQ(infer_error(Binary{BinaryOp::And}, {meta({2}), meta({2})}),
            "[bool_and] expects a bool dtype, got f32");
}

TEST(IrBinary, RejectsIncompatibleShapesAndArity) {
  EXPECT_EQ(infer_error(Binary{BinaryOp::Mul}, {meta({2, 3}), meta({4})}),
            "[mul] lhs [2, 3] and rhs [4] do not broadcast");
  EXPECT_EQ(infer_error(Binary{BinaryOp::Mul}, {meta({2})}), "[mul] expects 2 inputs, got 1");
}

TEST(IrBinaryScalar, KeepsTensorMeta) {
  // A Float scalar with an int tensor is allowed: converted (2.5 → 2).
  EXPECT_EQ(infer_one(BinaryScalar{BinaryOp::Add, 2.5}, {meta({3}, DType::I32)}),
            meta({3}, DType::I32));
  EXPECT_EQ(infer_one(BinaryScalar{BinaryOp::Or, true}, {meta({3}, DType::Bool)}),
            meta({3}, DType::Bool));
  // Float division by zero is IEEE-defined.
  EXPECT_EQ(infer_one(BinaryScalar{BinaryOp::Div, 0.0}, {meta({3})}), meta({3}));
  // value / x: the divisor is data, checked by the backend.
  EXPECT_EQ(infer_one(BinaryScalar{BinaryOp::Div, 0, true}, {meta({3}, DType::I32)}),
            meta({3}, DType::I32));
}

TEST(IrBinaryScalar, RejectsDtypeOutsideItsClass) {
  EXPECT_EQ(infer_error(BinaryScalar{BinaryOp::Add, 1}, {meta({2}, DType::Bool)}),
            "[add_scalar] expects a numeric dtype, got bool");
  EXPECT_EQ(infer_error(BinaryScalar{BinaryOp::Xor, true}, {meta({2}, DType::I8)}),
            "[bool_xor_scalar] expects a bool dtype, got i8");
}

TEST(IrBinaryScalar, RejectsValuesThatDoNotFitTheIntDtype) {
  const std::string too_big = infer_error(BinaryScalar{BinaryOp::Add, 300}, {meta({2}, DType::U8)});
  EXPECT_TRUE(contains(too_big, "[add_scalar] value "));
  EXPECT_TRUE(contains(too_big, "300"));
  EXPECT_TRUE(contains(too_big, " does not fit in u8"));
  EXPECT_TRUE(contains(infer_error(BinaryScalar{BinaryOp::Mul, -1}, {meta({2}, DType::U8)}),
                       "does not fit in u8"));
  EXPECT_TRUE(
      contains(infer_error(BinaryScalar{BinaryOp::Add, std::nan("")}, {meta({2}, DType::I8)}),
               "does not fit in i8"));
  // 2^63 is one past i64's maximum; -2^63 is its minimum.
  EXPECT_TRUE(contains(infer_error(BinaryScalar{BinaryOp::Add, 0x1p63}, {meta({2}, DType::I64)}),
                       "does not fit in i64"));
  EXPECT_EQ(infer_one(BinaryScalar{BinaryOp::Add, -0x1p63}, {meta({2}, DType::I64)}),
            meta({2}, DType::I64));
  // 255.9 truncates to 255, u8's maximum.
  EXPECT_EQ(infer_one(BinaryScalar{BinaryOp::Add, 255.9}, {meta({2}, DType::U8)}),
            meta({2}, DType::U8));
}

TEST(IrBinaryScalar, RejectsIntegerDivisionByZeroAndNegativeExponent) {
  EXPECT_TRUE(contains(infer_error(BinaryScalar{BinaryOp::Div, 0}, {meta({2}, DType::I32)}),
                       "[div_scalar] integer division by zero"));
  // 0.5 converts to the integer 0.
  EXPECT_TRUE(contains(infer_error(BinaryScalar{BinaryOp::Rem, 0.5}, {meta({2}, DType::I64)}),
                       "[remainder_scalar] integer division by zero"));
  const std::string power = infer_error(BinaryScalar{BinaryOp::Pow, -1}, {meta({2}, DType::I32)});
  // An integer exponent is powi_scalar's.
  EXPECT_TRUE(contains(power, "[powi_scalar] an integer base needs a non-negative exponent, got "));
  EXPECT_TRUE(contains(power, "-1"));
  EXPECT_EQ(infer_one(BinaryScalar{BinaryOp::Pow, -1}, {meta({2})}), meta({2}));
}

TEST(IrCompare, BroadcastsToBool) {
  EXPECT_EQ(
      infer_one(Compare{CompareOp::Greater}, {meta({2, 1}, DType::I32), meta({3}, DType::I32)}),
      meta({2, 3}, DType::Bool));
  EXPECT_EQ(infer_one(Compare{CompareOp::Equal}, {meta({2}, DType::Bool), meta({2}, DType::Bool)}),
            meta({2}, DType::Bool));
}

TEST(IrCompare, RejectsMixedDtypesAndShapes) {
  EXPECT_EQ(infer_error(Compare{CompareOp::Lower}, {meta({2}, DType::I32), meta({2}, DType::I64)}),
            "[lower] lhs dtype i32 and rhs dtype i64 differ");
  EXPECT_EQ(infer_error(Compare{CompareOp::Equal}, {meta({2}), meta({3})}),
            "[equal] lhs [2] and rhs [3] do not broadcast");
}

TEST(IrCompareScalar, AnyValueAgainstAnyDtype) {
  // u8 > -1 is simply true everywhere: no range check.
  EXPECT_EQ(infer_one(CompareScalar{CompareOp::Greater, -1}, {meta({2, 2}, DType::U8)}),
            meta({2, 2}, DType::Bool));
  EXPECT_EQ(infer_one(CompareScalar{CompareOp::Equal, true}, {meta({0}, DType::Bool)}),
            meta({0}, DType::Bool));
  EXPECT_EQ(infer_error(CompareScalar{CompareOp::Equal, 1}, {}),
            "[equal_elem] expects 1 input, got 0");
}

TEST(IrCast, AnyToAny) {
  EXPECT_EQ(infer_one(Cast{DType::I8}, {meta({2, 3})}), meta({2, 3}, DType::I8));
  EXPECT_EQ(infer_one(Cast{DType::F16}, {meta({1}, DType::Bool)}), meta({1}, DType::F16));
}

}  // namespace
}  // namespace ember::ir
