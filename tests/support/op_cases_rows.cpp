// The fused row ops, run directly (ir::LayerNorm, ir::CrossEntropy and their gradient ops), so that
// every device runs its own kernel for them whatever its backend answers to runs_fused_rows (the
// remote device sends them over the wire): layer_norm with and without its affine parameters,
// rms_norm, rows of 1 and 37 values; cross_entropy with class weights, label smoothing and an
// ignored row; softmax's gradient along the last dim and others. The backward cases run the
// device's own forward for the statistics. No NumPy reference (has_golden false): ndarray's kernels
// are checked against the composites in tests/module/fused_rows_test.cpp.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "support/op_cases.h"
#include "tensor/dispatch.h"

namespace ember::test {
namespace {

/// x [rows, n] and the affine parameters the op takes, drawn.
std::vector<InputSpec> norm_inputs(const ir::LayerNorm& op, int64_t rows, int64_t n) {
  std::vector<InputSpec> inputs{drawn({rows, n}, {-2.0, 2.0})};
  if (op.weight) inputs.push_back(drawn({n}, {0.5, 1.5}));
  if (op.bias) inputs.push_back(drawn({n}, {-1.0, 1.0}));
  return inputs;
}

OpCase norm_case(std::string name, ir::LayerNorm op, int64_t rows, int64_t n) {
  OpRun run = [op](const ops::Handles& in, const OpArgs&, const OpTarget&) {
    return tensor::run(op, in);
  };
  OpCase c =
      make_case(ir::name(op) + name, DTypes::Float, norm_inputs(op, rows, n), std::move(run));
  c.has_golden = false;
  return c;
}

/// The forward's inputs and a drawn gradient of y, last; runs the forward, then the gradient op.
OpCase norm_backward_case(std::string name, ir::LayerNorm op, int64_t rows, int64_t n) {
  std::vector<InputSpec> inputs = norm_inputs(op, rows, n);
  inputs.push_back(drawn({rows, n}, {-1.0, 1.0}));
  OpRun run = [op](const ops::Handles& in, const OpArgs&, const OpTarget&) {
    const ops::Handles forward_inputs(in.begin(), in.end() - 1);
    const ops::Handles forward = tensor::run(op, forward_inputs);
    ops::Handles grad_inputs{in[0]};
    if (op.weight) grad_inputs.push_back(in[1]);
    grad_inputs.insert(grad_inputs.end(), forward.begin() + 1, forward.end());
    grad_inputs.push_back(in.back());
    return tensor::run(ir::LayerNormGrad{op}, grad_inputs);
  };
  OpCase c = make_case(ir::name(ir::LayerNormGrad{op}) + name, DTypes::Float, std::move(inputs),
                       std::move(run));
  c.has_golden = false;
  return c;
}

/// logits [4, 6], targets (row 2's is 1 when ignore_index is 1) and the class weights if any.
std::vector<InputSpec> loss_inputs(const ir::CrossEntropy& op) {
  std::vector<InputSpec> inputs{drawn({4, 6}, {-3.0, 3.0}), indices({4}, {5, 0, 1, 3})};
  if (op.weight) inputs.push_back(drawn({6}, {0.5, 2.0}));
  return inputs;
}

OpCase loss_case(std::string name, ir::CrossEntropy op, bool backward) {
  std::vector<InputSpec> inputs = loss_inputs(op);
  if (backward) inputs.push_back(drawn({4}, {-1.0, 1.0}));
  OpRun run = [op, backward](const ops::Handles& in, const OpArgs&, const OpTarget&) {
    if (!backward) return tensor::run(op, in);
    ops::Handles grad_inputs(in.begin(), in.end() - 1);
    grad_inputs.push_back(tensor::run(op, grad_inputs)[1]);
    grad_inputs.push_back(in.back());
    return tensor::run(ir::CrossEntropyGrad{op}, grad_inputs);
  };
  const std::string base = backward ? "cross_entropy_backward" : "cross_entropy";
  OpCase c = make_case(base + name, DTypes::Float, std::move(inputs), std::move(run));
  c.has_golden = false;
  return c;
}

/// softmax's gradient along dim of a drawn y [3, 4, 37] (any values: the op is linear in g).
OpCase softmax_grad_case(ir::Softmax op) {
  OpRun run = [op](const ops::Handles& in, const OpArgs&, const OpTarget&) {
    return tensor::run(ir::SoftmaxGrad{op}, in);
  };
  OpCase c =
      make_case(ir::name(ir::SoftmaxGrad{op}) + "/dim_" + std::to_string(op.dim), DTypes::Float,
                {drawn({3, 4, 37}, {op.log ? -4.0 : 0.0, op.log ? 0.0 : 1.0}),
                 drawn({3, 4, 37}, {-1.0, 1.0})},
                std::move(run));
  c.has_golden = false;
  return c;
}

}  // namespace

std::vector<OpCase> row_op_cases() {
  const ir::LayerNorm affine{1e-5, false, true, true};
  const ir::LayerNorm rms{1e-6, true, true, false};
  const ir::CrossEntropy smoothed{1, 0.1, true};
  return {
      norm_case("", affine, 3, 37),
      norm_case("/plain_rows_of_1", ir::LayerNorm{1e-5}, 5, 1),
      norm_case("", rms, 4, 37),
      norm_backward_case("", affine, 3, 37),
      norm_backward_case("/weight_only", ir::LayerNorm{1e-3, false, true, false}, 70, 9),
      norm_backward_case("", rms, 4, 37),
      loss_case("", ir::CrossEntropy{}, false),
      loss_case("/weighted_smoothed_ignored", smoothed, false),
      loss_case("", ir::CrossEntropy{}, true),
      loss_case("/weighted_smoothed_ignored", smoothed, true),
      softmax_grad_case({2, false}),
      softmax_grad_case({2, true}),
      softmax_grad_case({1, false}),
      softmax_grad_case({0, true}),
  };
}

}  // namespace ember::test
