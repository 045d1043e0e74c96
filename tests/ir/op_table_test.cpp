// The op table (ember/ops.def) as ir sees it: the enums list their ops in order, every op has a
// name of its own, and a value past the table (from untrusted bytes) is refused.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ir/ops.h"
#include "ir_test_support.h"

namespace ember::ir {
namespace {

using test::infer_error;
using test::meta;

template <typename Enum, typename MakeOp>
void expect_ordered_and_named(const MakeOp& make_op) {
  std::set<std::string> names;
  std::size_t index = 0;
  for (const Enum op : all_ops<Enum>()) {
    EXPECT_EQ(static_cast<std::size_t>(op), index++) << "all_ops lists the enum in order";
    EXPECT_TRUE(names.insert(name(make_op(op))).second) << name(make_op(op)) << " twice";
  }
  EXPECT_EQ(index, kOpCount<Enum>);
  EXPECT_EQ(name(make_op(static_cast<Enum>(kOpCount<Enum>))), "invalid_op");
}

TEST(IrOpTable, EveryOpIsListedInOrderWithANameOfItsOwn) {
  expect_ordered_and_named<UnaryOp>([](UnaryOp op) { return Op{Unary{op}}; });
  expect_ordered_and_named<BinaryOp>([](BinaryOp op) { return Op{Binary{op}}; });
  expect_ordered_and_named<BinaryOp>([](BinaryOp op) { return Op{BinaryScalar{op, 1.0}}; });
  expect_ordered_and_named<ActivationOp>([](ActivationOp op) { return Op{Activation{op, 1.0}}; });
}

TEST(IrOpTable, AnOpPastTheTableIsRefused) {
  const auto unary = static_cast<UnaryOp>(kOpCount<UnaryOp>);
  EXPECT_EQ(infer_error(Unary{unary}, {meta({2})}),
            "[invalid_op] unknown op " + std::to_string(kOpCount<UnaryOp>) + " (" +
                std::to_string(kOpCount<UnaryOp>) + " ops of its kind)");
  const auto binary = static_cast<BinaryOp>(kOpCount<BinaryOp>);
  EXPECT_NE(infer_error(Binary{binary}, {meta({2}), meta({2})}).find("unknown op"),
            std::string::npos);
  EXPECT_NE(infer_error(BinaryScalar{binary, 1.0}, {meta({2})}).find("unknown op"),
            std::string::npos);
}

}  // namespace
}  // namespace ember::ir
