// Fused attention cases: ir::Attention's first output (the result) against finite differences of
// q, k and v, with and without causal masking and a Bool mask, L != S and Ev != E. A Float mask
// gets no gradient from the fused op (the public function takes the composite when it needs
// one), so its cases live in the conformance and composite comparisons instead. Tiny shapes.
#include <string>
#include <vector>

#include "gradcheck/gradcheck.h"

namespace ember::test {
namespace {

/// q [2, L, E], k [2, S, E], v [2, S, Ev] (+ masks) of case name.
GradCase attention_case(const std::string& name, ir::Attention op, int64_t l, int64_t s, int64_t e,
                        int64_t ev, std::vector<TensorData> masks = {}) {
  std::vector<TensorData> inputs{reals(name + "/q", {2, l, e}), reals(name + "/k", {2, s, e}),
                                 reals(name + "/v", {2, s, ev})};
  for (TensorData& m : masks)
    inputs.push_back(std::move(m));
  return op_case("scaled_dot_product_attention/" + name, op, std::move(inputs));
}

}  // namespace

std::vector<GradCase> attention_grad_cases() {
  return {
      attention_case("plain", {0.5, false}, 3, 4, 2, 3),
      attention_case("causal", {0.7, true}, 4, 3, 3, 2),
      // Row 1 attends keys 0 and 2 only; the mask broadcasts over the batch.
      attention_case("bool_mask", {0.6, false}, 2, 3, 2, 2, {mask({1, 1, 0, 1, 0, 1}, {1, 2, 3})}),
  };
}

}  // namespace ember::test
