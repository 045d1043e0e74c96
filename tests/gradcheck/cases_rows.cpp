// Fused row op cases: ir::LayerNorm's result (layer_norm with and without its affine parameters,
// rms_norm) and ir::CrossEntropy's per-row loss (label smoothing, an ignored row) against finite
// differences of every float input. Class weights get no gradient from the fused op (the public
// function takes the composite when they need one), so the cross-entropy cases have none. Tiny
// shapes, a row length of 1 included.
#include <vector>

#include "gradcheck/gradcheck.h"

namespace ember::test {

std::vector<GradCase> row_op_grad_cases() {
  return {
      op_case("layer_norm/affine", ir::LayerNorm{1e-5, false, true, true},
              {reals("ln/x", {3, 5}), reals("ln/w", {5}), reals("ln/b", {5})}),
      op_case("layer_norm/weight", ir::LayerNorm{1e-3, false, true, false},
              {reals("lnw/x", {2, 2, 3}), reals("lnw/w", {3})}),
      op_case("layer_norm/plain", ir::LayerNorm{1e-5}, {reals("lnp/x", {4, 3})}),
      op_case("layer_norm/bias_only", ir::LayerNorm{1e-5, false, false, true},
              {reals("lnb/x", {2, 4}), reals("lnb/b", {4})}),
      op_case("rms_norm/weight", ir::LayerNorm{1e-6, true, true, false},
              {reals("rms/x", {3, 4}), reals("rms/w", {4})}),
      op_case("rms_norm/plain", ir::LayerNorm{1e-5, true}, {reals("rmsp/x", {2, 1})}),
      op_case("cross_entropy/plain", ir::CrossEntropy{},
              {reals("ce/x", {4, 3}), i64({2, 0, 1, 2}, {4})}),
      op_case("cross_entropy/smoothing_ignored", ir::CrossEntropy{1, 0.2, false},
              {reals("ces/x", {3, 5}), i64({4, 1, 0}, {3})}),
  };
}

}  // namespace ember::test
