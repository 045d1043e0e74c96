// The fused attention ops, run directly (ir::Attention, ir::AttentionGrad), so that every device
// runs its own kernel for them whatever its backend answers to runs_fused_attention: no mask, a
// Bool key-padding mask, a Float mask, causal with L > S, several 32-row tiles, a head dim of
// 128. The backward cases run the device's own forward for out and lse. No NumPy reference
// (has_golden false): ndarray's kernels are checked against the composite in
// tests/ndarray/attention_test.cpp.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "support/attention_paths.h"
#include "support/op_cases.h"
#include "tensor/dispatch.h"

namespace ember::test {
namespace {

/// Moderate values, so that the scores stay well inside every float dtype's range.
constexpr ValueSpec kValues{-1.0, 1.0};

struct AttentionSizes {
  Shape batch;
  int64_t l, s, e, ev;
};

/// q, k, v drawn for sizes, then mask when given.
std::vector<InputSpec> attention_inputs(const AttentionSizes& n, std::vector<InputSpec> mask) {
  std::vector<InputSpec> inputs{drawn(with_tail(n.batch, {n.l, n.e}), kValues),
                                drawn(with_tail(n.batch, {n.s, n.e}), kValues),
                                drawn(with_tail(n.batch, {n.s, n.ev}), kValues)};
  for (InputSpec& m : mask)
    inputs.push_back(std::move(m));
  return inputs;
}

OpCase forward_case(std::string name, ir::Attention op, const AttentionSizes& n,
                    std::vector<InputSpec> mask = {}) {
  OpRun run = [op](const ops::Handles& in, const OpArgs&, const OpTarget&) {
    return tensor::run(op, in);
  };
  OpCase c = make_case("scaled_dot_product_attention" + name, DTypes::Float,
                       attention_inputs(n, std::move(mask)), std::move(run));
  c.has_golden = false;
  return c;
}

/// The inputs of forward_case and a drawn gradient of the result, last.
OpCase backward_case(std::string name, ir::Attention op, const AttentionSizes& n,
                     std::vector<InputSpec> mask = {}) {
  std::vector<InputSpec> inputs = attention_inputs(n, std::move(mask));
  inputs.push_back(drawn(with_tail(n.batch, {n.l, n.ev}), kValues));
  OpRun run = [op](const ops::Handles& in, const OpArgs&, const OpTarget&) {
    ops::Handles forward_inputs(in.begin(), in.end() - 1);
    const ops::Handles forward = tensor::run(op, forward_inputs);
    ops::Handles grad_inputs = std::move(forward_inputs);
    grad_inputs.insert(grad_inputs.end(), {forward[0], forward[1], in.back()});
    return tensor::run(ir::AttentionGrad{op}, grad_inputs);
  };
  OpCase c = make_case("scaled_dot_product_attention_backward" + name, DTypes::Float,
                       std::move(inputs), std::move(run));
  c.has_golden = false;
  return c;
}

const AttentionSizes kSmall{{2, 3}, 5, 7, 4, 6};
const AttentionSizes kTiles{{1, 2}, 40, 70, 16, 24};
/// Keys 0..6 of each batch entry, every row keeping at least one (a row with none is NaN).
InputSpec key_padding() {
  return {Shape{2, 1, 1, 7}, {}, DType::Bool, {1, 0, 1, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0}};
}

}  // namespace

std::vector<OpCase> attention_cases() {
  return {
      forward_case("", {0.5, false}, kSmall),
      forward_case("/causal_longer_queries", {0.35, true}, {{2, 2}, 9, 6, 8, 8}),
      forward_case("/bool_mask", {0.5, false}, kSmall, {key_padding()}),
      forward_case("/float_mask", {0.5, false}, kSmall, {drawn({5, 7}, kValues)}),
      forward_case("/tiles_causal", {0.25, true}, kTiles),
      forward_case("/head_dim_128", {0.09, false}, {{1, 1}, 3, 4, 128, 128}),
      backward_case("", {0.5, false}, kSmall),
      backward_case("/causal_tiles", {0.25, true}, kTiles),
      backward_case("/bool_mask", {0.5, false}, kSmall, {key_padding()}),
      backward_case("/float_mask", {0.5, false}, kSmall, {drawn({5, 7}, kValues)}),
  };
}

}  // namespace ember::test
