// The backward rules that the op table's gradient columns name (ember/ops.def), as PyTorch's
// derivatives.yaml names each op's derivative. A family's rule file (unary.cpp, binary.cpp,
// binary_scalar.cpp, activation.cpp) expands its section of the table into an array of rules
// indexed by the op's enumerator, each entry EMBER_GRADIENT_RULE(gradient, <its function>), and
// looks an op up with rule_in.
#pragma once

#include <cstddef>

#include "autodiff/rule.h"
#include "autodiff/rules/rule_helpers.h"
#include "ir/ops.h"

namespace ember::autodiff::rules {

/// The memory-bound rule running Body and keeping what kNeeds says: one object for each pair, so
/// that an entry of a rule table is an address known at compile time.
template <BackwardFn Body, Needs kNeeds>
inline constexpr BackwardRule kMemoryRule = memory_rule<Body>(kNeeds);

/// The rule of op in table (one entry per op of its enum, in the op table's order); nullptr for a
/// value past the last op, which an op decoded from untrusted bytes may hold.
template <typename Enum, std::size_t N>
const BackwardRule* rule_in(const BackwardRule* const (&table)[N], Enum op) {
  static_assert(N == ir::kOpCount<Enum>, "a rule table has one entry per op of its enum");
  const auto index = static_cast<std::size_t>(op);
  return index < N ? table[index] : nullptr;
}

}  // namespace ember::autodiff::rules

// Note: EMBER_GRADIENT_RULE(gradient, backward) is the rule a gradient column's word names, with
// backward the function the naming convention gives (exp_backward). It is a macro because `none`
// must not name a function (an op without a gradient has none to name) and only the preprocessor
// can leave a name out: it pastes the word onto one of the macros below. A word without a macro
// here (a typo) leaves a call of an undeclared function, which does not compile.
#define EMBER_GRADIENT_RULE(gradient, backward) EMBER_GRADIENT_RULE_##gradient(backward)
#define EMBER_GRADIENT_RULE_none(backward) nullptr
// The piecewise constant ops' zeros: the zero_backward of the file expanding it (unary.cpp).
#define EMBER_GRADIENT_RULE_zero(backward) &kMemoryRule<zero_backward, Needs::Nothing>
#define EMBER_GRADIENT_RULE_Nothing(backward) &kMemoryRule<backward, Needs::Nothing>
#define EMBER_GRADIENT_RULE_Inputs(backward) &kMemoryRule<backward, Needs::Inputs>
#define EMBER_GRADIENT_RULE_Outputs(backward) &kMemoryRule<backward, Needs::Outputs>
