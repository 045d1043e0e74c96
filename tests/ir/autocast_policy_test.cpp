// ir::autocast_policy against the policy table of docs/mixed-precision.md, written out here once
// more: every alternative of ir::Op, and every enumerator of the op table's families.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "ir/autocast_policy.h"
#include "ir/ops.h"

namespace ember::ir {
namespace {

/// make(e) for every enumerator e of an op table family.
template <typename Enum, typename Make>
void add_each(std::vector<Op>& ops, Make make) {
  for (const Enum e : all_ops<Enum>())
    ops.push_back(make(e));
}

/// One op per enumerator for the families of the op table (and the cumulative ops), a default
/// one for every other alternative of ir::Op.
template <typename Alternative>
void add_ops(std::vector<Op>& ops) {
  if constexpr (std::is_same_v<Alternative, Unary>) {
    add_each<UnaryOp>(ops, [](UnaryOp e) { return Unary{e}; });
  } else if constexpr (std::is_same_v<Alternative, Binary>) {
    add_each<BinaryOp>(ops, [](BinaryOp e) { return Binary{e}; });
  } else if constexpr (std::is_same_v<Alternative, BinaryScalar>) {
    add_each<BinaryOp>(ops, [](BinaryOp e) { return BinaryScalar{e, 2.0}; });
  } else if constexpr (std::is_same_v<Alternative, Compare>) {
    add_each<CompareOp>(ops, [](CompareOp e) { return Compare{e}; });
  } else if constexpr (std::is_same_v<Alternative, CompareScalar>) {
    add_each<CompareOp>(ops, [](CompareOp e) { return CompareScalar{e, 2.0}; });
  } else if constexpr (std::is_same_v<Alternative, Reduce>) {
    add_each<ReduceOp>(ops, [](ReduceOp e) { return Reduce{.op = e, .dim = std::nullopt}; });
  } else if constexpr (std::is_same_v<Alternative, Activation>) {
    add_each<ActivationOp>(ops, [](ActivationOp e) { return Activation{e}; });
  } else if constexpr (std::is_same_v<Alternative, Cumulative>) {
    for (const CumulativeOp e :
         {CumulativeOp::Sum, CumulativeOp::Prod, CumulativeOp::Max, CumulativeOp::Min})
      ops.push_back(Cumulative{e, 0});
  } else {
    ops.push_back(Alternative{});
  }
}

template <std::size_t... I>
std::vector<Op> every_op(std::index_sequence<I...>) {
  std::vector<Op> ops;
  (add_ops<std::variant_alternative_t<I, Op>>(ops), ...);
  return ops;
}

std::vector<Op> every_op() {
  return every_op(std::make_index_sequence<std::variant_size_v<Op>>{});
}

// The table: PyTorch's autocast lists, restricted to the ops ember has.
const std::set<std::string> kF32Names = {
    "exp",        "log",          "log1p",    "logit",
    "tan",        "recip",                            // wide range
    "powf",       "powf_scalar",                      // pow
    "sum",        "mean",         "prod",     "var",  // reductions
    "cumsum",     "cumprod",      "softplus", "softmax",
    "layer_norm", "cross_entropy"};  // fused row ops

AutocastPolicy expected(const Op& op) {
  if (std::holds_alternative<Matmul>(op) || std::holds_alternative<Conv>(op) ||
      std::holds_alternative<Attention>(op))
    return AutocastPolicy::Lower;
  return kF32Names.contains(name(op)) ? AutocastPolicy::F32 : AutocastPolicy::Keep;
}

TEST(AutocastPolicy, EveryOpHasThePolicyOfTheTable) {
  const std::vector<Op> ops = every_op();
  std::set<std::string> f32_seen;
  for (const Op& op : ops) {
    EXPECT_EQ(autocast_policy(op), expected(op)) << name(op);
    if (autocast_policy(op) == AutocastPolicy::F32) f32_seen.insert(name(op));
  }
  // Every name of the table is an op (a renamed op would otherwise fall to Keep unseen).
  EXPECT_EQ(f32_seen, kF32Names);
  EXPECT_EQ(ops.size(), kOpCount<UnaryOp> + 2 * kOpCount<BinaryOp> + 2 * kOpCount<CompareOp> +
                            kOpCount<ReduceOp> + kOpCount<ActivationOp> + 4 +
                            (std::variant_size_v<Op> - 8));
}

TEST(AutocastPolicy, LogSoftmaxAndTransposedConvolution) {
  EXPECT_EQ(autocast_policy(Softmax{.dim = 0, .log = true}), AutocastPolicy::F32);
  Conv transposed;
  transposed.geometry.transposed = true;
  EXPECT_EQ(autocast_policy(transposed), AutocastPolicy::Lower);
  // Gradient ops run in backward only, in the forward ops' dtypes.
  EXPECT_EQ(autocast_policy(ConvWeightGrad{}), AutocastPolicy::Keep);
}

}  // namespace
}  // namespace ember::ir
