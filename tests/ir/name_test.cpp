// ir::name: the names the brief lists, suffixes included.
#include <string>
#include <vector>

#include "ir_test_support.h"

namespace ember::ir {
namespace {

TEST(IrName, UnaryOpsInDeclarationOrder) {
  const std::vector<std::string> expected = {
      "neg",  "abs", "sign",  "exp",   "log",   "log1p", "sqrt",  "sin",      "cos",    "tan",
      "tanh", "erf", "logit", "recip", "floor", "ceil",  "round", "bool_not", "is_nan", "is_inf"};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(name(Unary{static_cast<UnaryOp>(i)}), expected[i]);
  }
}

TEST(IrName, BinaryOpsAndTheirScalarForms) {
  const std::vector<std::string> expected = {"add",       "sub",     "mul",     "div",
                                             "remainder", "powf",    "maximum", "minimum",
                                             "bool_and",  "bool_or", "bool_xor"};
  // The scalar forms carry the names of tensor_ops.h: maximum / minimum with a scalar are
  // clamp_min / clamp_max.
  const std::vector<std::string> scalar_forms = {
      "add_scalar",       "sub_scalar",     "mul_scalar",     "div_scalar",
      "remainder_scalar", "powf_scalar",    "clamp_min",      "clamp_max",
      "bool_and_scalar",  "bool_or_scalar", "bool_xor_scalar"};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto op = static_cast<BinaryOp>(i);
    EXPECT_EQ(name(Binary{op}), expected[i]);
    EXPECT_EQ(name(BinaryScalar{op, 1.0}), scalar_forms[i]);
  }
}

TEST(IrName, IntegerPowerIsPowiScalar) {
  EXPECT_EQ(name(BinaryScalar{BinaryOp::Pow, 2}), "powi_scalar");
  EXPECT_EQ(name(BinaryScalar{BinaryOp::Pow, 2.0}), "powf_scalar");
}

TEST(IrName, ScalarOnTheLeftOfANonCommutativeOpTakesAnR) {
  EXPECT_EQ(name(BinaryScalar{BinaryOp::Sub, 1.0, true}), "rsub_scalar");
  EXPECT_EQ(name(BinaryScalar{BinaryOp::Div, 1.0, true}), "rdiv_scalar");
  EXPECT_EQ(name(BinaryScalar{BinaryOp::Rem, 1.0, true}), "rremainder_scalar");
  // value + x is x + value, and value max x is x max value: no r.
  EXPECT_EQ(name(BinaryScalar{BinaryOp::Add, 1.0, true}), "add_scalar");
  EXPECT_EQ(name(BinaryScalar{BinaryOp::Maximum, 1.0, true}), "clamp_min");
}

TEST(IrName, CompareOpsAndTheirElementForms) {
  const std::vector<std::string> expected = {"equal",         "not_equal", "greater",
                                             "greater_equal", "lower",     "lower_equal"};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto op = static_cast<CompareOp>(i);
    EXPECT_EQ(name(Compare{op}), expected[i]);
    EXPECT_EQ(name(CompareScalar{op, 0}), expected[i] + "_elem");
  }
}

TEST(IrName, ReductionsTakeDimSuffixExceptArgAndVar) {
  EXPECT_EQ(name(Reduce{ReduceOp::Sum, std::nullopt}), "sum");
  EXPECT_EQ(name(Reduce{ReduceOp::Sum, 0}), "sum_dim");
  EXPECT_EQ(name(Reduce{ReduceOp::Mean, 1}), "mean_dim");
  EXPECT_EQ(name(Reduce{ReduceOp::Prod, 0}), "prod_dim");
  EXPECT_EQ(name(Reduce{ReduceOp::Max, 0}), "max_dim");
  EXPECT_EQ(name(Reduce{ReduceOp::Min, std::nullopt}), "min");
  EXPECT_EQ(name(Reduce{ReduceOp::Any, 0}), "any_dim");
  EXPECT_EQ(name(Reduce{ReduceOp::All, std::nullopt}), "all");
  EXPECT_EQ(name(Reduce{ReduceOp::ArgMax, 0}), "argmax");
  EXPECT_EQ(name(Reduce{ReduceOp::ArgMin, 0}), "argmin");
  EXPECT_EQ(name(Reduce{ReduceOp::Var, 0}), "var");
}

TEST(IrName, CumulativeOps) {
  EXPECT_EQ(name(Cumulative{CumulativeOp::Sum, 0}), "cumsum");
  EXPECT_EQ(name(Cumulative{CumulativeOp::Prod, 0}), "cumprod");
  EXPECT_EQ(name(Cumulative{CumulativeOp::Max, 0}), "cummax");
  EXPECT_EQ(name(Cumulative{CumulativeOp::Min, 0}), "cummin");
}

TEST(IrName, FixedNames) {
  EXPECT_EQ(name(Where{}), "where");
  EXPECT_EQ(name(MaskFill{0}), "mask_fill");
  EXPECT_EQ(name(Cast{DType::F32}), "cast");
  EXPECT_EQ(name(Matmul{}), "matmul");
  EXPECT_EQ(name(Reshape{}), "reshape");
  EXPECT_EQ(name(Permute{}), "permute");
  EXPECT_EQ(name(Flip{}), "flip");
  EXPECT_EQ(name(Expand{}), "expand");
  EXPECT_EQ(name(Slice{}), "slice");
  EXPECT_EQ(name(SliceAssign{}), "slice_assign");
  EXPECT_EQ(name(Cat{0}), "cat");
  EXPECT_EQ(name(Select{0}), "select");
  EXPECT_EQ(name(SelectAssign{0}), "select_assign");
  EXPECT_EQ(name(Gather{0}), "gather");
  EXPECT_EQ(name(Scatter{0}), "scatter");
  EXPECT_EQ(name(Sort{0}), "sort");
  EXPECT_EQ(name(Full{{}, DType::F32, 0}), "full");
  EXPECT_EQ(name(Arange{0, 1, 1, DType::I64}), "arange");
  EXPECT_EQ(name(Random{{}, DType::F32, Distribution::Default, 0}), "random");
}

}  // namespace
}  // namespace ember::ir
