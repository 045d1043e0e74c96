// Backward rules: for each differentiable ir op, how to turn its output gradients into input
// gradients, and whether the op is compute-bound (its output is kept for backward) or
// memory-bound (under Balanced checkpointing its output is recomputed from its inputs during
// backward instead of kept). Rules are pure functions on tensors written with ember::ops, so they
// run on every backend; recording is off while they run (first-order only).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ember/tensor_ops.h"
#include "ir/ops.h"

namespace ember::autodiff {

enum class Bound : uint8_t { Compute, Memory };

/// What a backward function receives.
struct BackwardArgs {
  const ir::Op& op;
  /// Metadata of every forward input (always available).
  std::span<const ir::TensorMeta> input_metas;
  /// The forward inputs; each handle is undefined unless the rule sets needs_inputs.
  std::span<const TensorHandle> inputs;
  /// The forward outputs; each handle is undefined unless the rule sets needs_outputs.
  std::span<const TensorHandle> outputs;
  /// The gradient of each output; undefined for an output no gradient reached (read it as
  /// zeros). Each defined one has its output's shape and dtype.
  std::span<const TensorHandle> output_grads;
  /// The op that produced each forward input, null for a leaf or a constant; empty when
  /// unknown. A rule may pick the layout of an input's gradient from it, as PyTorch picks it
  /// from the input's strides (matmul: a transposed operand gets a transposed gradient).
  std::span<const ir::Op* const> input_sources = {};
};

/// Returns one gradient per forward input, of that input's shape and dtype, or an undefined
/// handle for an input that gets none (indices, masks, integer inputs).
using BackwardFn = std::vector<TensorHandle> (*)(const BackwardArgs& args);

struct BackwardRule {
  Bound bound;
  bool needs_inputs;
  bool needs_outputs;
  BackwardFn backward;
};

/// The rule of op, or nullptr when op is not differentiable (comparisons, arg-reductions,
/// creation, casts to int or bool, ops on integer or bool tensors).
const BackwardRule* backward_rule(const ir::Op& op);

/// Sums grad over the dims broadcasting stretched so it gets shape (NumPy broadcasting from
/// shape to grad's shape).
TensorHandle reduce_to_shape(const TensorHandle& grad, const Shape& shape);

}  // namespace ember::autodiff
