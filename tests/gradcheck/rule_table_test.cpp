// The rule table itself: which ops have no gradient, which are compute- or memory-bound (the
// checkpointing policy of DESIGN.md §3), and what a few rules keep.
#include <gtest/gtest.h>

#include <variant>

#include "autodiff/rule.h"
#include "gradcheck/gradcheck.h"
#include "support/op_table.h"

namespace ember::test {
namespace {

using autodiff::backward_rule;
using autodiff::Bound;

TEST(RuleTable, NonDifferentiableOpsHaveNoRule) {
  const std::vector<ir::Op> ops{
      ir::Compare{ir::CompareOp::Equal},
      ir::CompareScalar{ir::CompareOp::Greater, 0.0},
      ir::Unary{ir::UnaryOp::Not},
      ir::Unary{ir::UnaryOp::IsNan},
      ir::Unary{ir::UnaryOp::IsInf},
      ir::Binary{ir::BinaryOp::And},
      ir::Binary{ir::BinaryOp::Or},
      ir::Binary{ir::BinaryOp::Xor},
      ir::BinaryScalar{ir::BinaryOp::Xor, true},
      ir::Reduce{ir::ReduceOp::ArgMax, 0},
      ir::Reduce{ir::ReduceOp::ArgMin, 0},
      ir::Reduce{ir::ReduceOp::Any, std::nullopt},
      ir::Reduce{ir::ReduceOp::All, 0},
      ir::Cast{DType::I64},
      ir::Cast{DType::Bool},
      ir::Full{Shape{1}, DType::F32, 0.0},
      ir::Arange{0, 3, 1, DType::I64},
      ir::Random{Shape{1}, DType::F32, Distribution::Default, 0},
  };
  for (const ir::Op& op : ops)
    EXPECT_EQ(backward_rule(op), nullptr) << ir::name(op);
}

/// The bound DESIGN.md assigns: elementwise arithmetic and layout moves are cheap to redo
/// (memory-bound); everything else keeps its output (compute-bound).
Bound expected_bound(const ir::Op& op) {
  const bool memory =
      std::holds_alternative<ir::Unary>(op) || std::holds_alternative<ir::Binary>(op) ||
      std::holds_alternative<ir::BinaryScalar>(op) || std::holds_alternative<ir::Reshape>(op) ||
      std::holds_alternative<ir::Permute>(op) || std::holds_alternative<ir::Flip>(op) ||
      std::holds_alternative<ir::Expand>(op) || std::holds_alternative<ir::Slice>(op) ||
      std::holds_alternative<ir::SliceAssign>(op);
  return memory ? Bound::Memory : Bound::Compute;
}

class RuleBound : public ::testing::TestWithParam<std::string> {};

TEST_P(RuleBound, FollowsTheCheckpointingPolicy) {
  const ir::Op& op = *find_case(GetParam()).op;
  const autodiff::BackwardRule* rule = backward_rule(op);
  ASSERT_NE(rule, nullptr);
  EXPECT_EQ(rule->bound, expected_bound(op));
}

INSTANTIATE_TEST_SUITE_P(Ops, RuleBound, ::testing::ValuesIn(case_names(grad_cases(), true)),
                         [](const auto& info) { return test_name(info.param); });

TEST(RuleTable, RulesKeepOnlyWhatTheyNeed) {
  struct Expected {
    ir::Op op;
    bool inputs;
    bool outputs;
  };
  const std::vector<Expected> table{
      {ir::Binary{ir::BinaryOp::Add}, false, false},
      {ir::Binary{ir::BinaryOp::Mul}, true, false},
      {ir::BinaryScalar{ir::BinaryOp::Mul, 2.0}, false, false},
      {ir::BinaryScalar{ir::BinaryOp::Div, 2.0, true}, true, false},
      {ir::BinaryScalar{ir::BinaryOp::Pow, 2.0}, true, false},
      {ir::BinaryScalar{ir::BinaryOp::Pow, 2.0, true}, false, true},
      {ir::Unary{ir::UnaryOp::Exp}, false, true},
      {ir::Unary{ir::UnaryOp::Tanh}, false, true},
      {ir::Reduce{ir::ReduceOp::Sum, 0}, false, false},
      {ir::Reduce{ir::ReduceOp::Max, 0}, true, true},
      {ir::Reshape{Shape{2}}, false, false},
      {ir::Sort{0}, false, true},
  };
  for (const Expected& e : table) {
    const autodiff::BackwardRule* rule = backward_rule(e.op);
    ASSERT_NE(rule, nullptr) << ir::name(e.op);
    EXPECT_EQ(rule->needs_inputs, e.inputs) << ir::name(e.op);
    EXPECT_EQ(rule->needs_outputs, e.outputs) << ir::name(e.op);
  }
}

// s op x of a commutative op is x op s: the same rule (ops.def's rscalar_gradient column says none
// for it, and binary_scalar.cpp takes scalar_gradient's).
TEST(RuleTable, ScalarOnTheLeftOfACommutativeOpHasTheRuleOfTheScalarOnTheRight) {
  for (ir::BinaryOp op :
       {ir::BinaryOp::Add, ir::BinaryOp::Mul, ir::BinaryOp::Maximum, ir::BinaryOp::Minimum}) {
    const autodiff::BackwardRule* rule = backward_rule(ir::BinaryScalar{op, 2.0});
    ASSERT_NE(rule, nullptr) << ir::name(ir::BinaryScalar{op, 2.0});
    EXPECT_EQ(backward_rule(ir::BinaryScalar{op, 2.0, true}), rule);
  }
  EXPECT_EQ(backward_rule(ir::BinaryScalar{ir::BinaryOp::And, true, true}), nullptr);
}

}  // namespace
}  // namespace ember::test
