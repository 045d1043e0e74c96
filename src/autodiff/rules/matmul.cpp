// Backward rule of matmul (compute-bound). For out = a @ b: da = g @ b^T, db = a^T @ g, each over
// the broadcast batch dims and then summed back to its operand's batch shape.
//
// An operand that is itself a transpose (Linear's x @ W^T) gets its gradient computed transposed,
// db = (g^T @ a)^T, as PyTorch's mm backward follows its operand's strides: the transpose's own
// backward then hands W a row-major gradient instead of a transposed view that every later reader
// (accumulation, the optimizer's update) would walk column by column.
#include <cstddef>
#include <variant>

#include "autodiff/rules/family_rules.h"
#include "autodiff/rules/rule_helpers.h"

namespace ember::autodiff::rules {
namespace {

/// Whether forward input `input` was made by swapping the last two dims of another tensor.
bool is_transpose(const BackwardArgs& args, std::size_t input) {
  if (input >= args.input_sources.size() || args.input_sources[input] == nullptr) return false;
  const auto* permute = std::get_if<ir::Permute>(args.input_sources[input]);
  return permute != nullptr && permute->swaps_last_two();
}

/// lhs @ rhs, or (rhs^T @ lhs^T)^T (the same values) when the result should be transposed.
TensorHandle product(const TensorHandle& lhs, const TensorHandle& rhs, bool transposed) {
  if (!transposed) return ops::matmul(lhs, rhs);
  return ops::transpose(ops::matmul(ops::transpose(rhs), ops::transpose(lhs)));
}

Handles matmul_backward(const BackwardArgs& args) {
  const TensorHandle& g = output_grad(args);
  const TensorHandle& a = args.inputs[0];
  const TensorHandle& b = args.inputs[1];
  return {reduce_to_shape(product(g, ops::transpose(b), is_transpose(args, 0)),
                          args.input_metas[0].shape),
          reduce_to_shape(product(ops::transpose(a), g, is_transpose(args, 1)),
                          args.input_metas[1].shape)};
}

constexpr BackwardRule kMatmul = compute_rule<matmul_backward>(Needs::Inputs);

}  // namespace

const BackwardRule* rule_for(const ir::Matmul&) {
  return &kMatmul;
}

}  // namespace ember::autodiff::rules
