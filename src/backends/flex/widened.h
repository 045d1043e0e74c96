// The narrow-float fallback of the kernels that compute in f32 only (softmax, reductions, pooling,
// scatter): before the ndarray fallback, such an op with bf16 or f16 inputs runs its f32 kernel on
// the inputs widened to f32, and its bf16 / f16 outputs are narrowed back (round to nearest even,
// the Cast op's bits) — as ndarray computes those dtypes, in f32 with one rounding on store, but
// on the vectorized, threaded kernels. The elementwise kernels do better, in L1-sized chunks
// (narrow.h); this one helper covers every other op at once.
#pragma once

#include <optional>
#include <vector>

#include "backends/flex/kernels.h"
#include "backends/flex/view.h"

namespace ember::flex {

/// A kernel's operands with the bf16 / f16 inputs and outputs widened to f32.
class WidenedOperands {
 public:
  WidenedOperands(Views in, Outputs out);

  /// Whether any input is bf16 or f16 (else there is nothing to run in f32).
  bool any() const { return any_; }
  Views inputs() const { return Views({pointers_.data(), pointers_.size()}); }
  Outputs outputs() const { return metas_; }
  /// Output k of the f32 kernel, narrowed back to the op's output dtype where that is narrow.
  View narrowed(View result, std::size_t k) const;

 private:
  bool any_ = false;
  std::vector<View> widened_;  ///< the narrow inputs' f32 copies
  std::vector<const View*> pointers_;
  std::vector<ir::TensorMeta> metas_;
  std::vector<DType> dtypes_;  ///< the op's own output dtypes
};

/// op's outputs from its f32 kernel on the widened operands, when some input is bf16 / f16 and
/// the kernel accepts them; else nullopt.
template <typename Op>
std::optional<std::vector<View>> run_widened(const Op& op, Views in, Outputs out) {
  const WidenedOperands operands(in, out);
  if (!operands.any()) return std::nullopt;
  std::vector<View> results;
  if constexpr (HasFlexKernel<Op>) {
    std::optional<View> result = run(op, operands.inputs(), operands.outputs());
    if (!result) return std::nullopt;
    results.push_back(*std::move(result));
  } else {
    std::optional<std::vector<View>> all = run(op, operands.inputs(), operands.outputs());
    if (!all) return std::nullopt;
    results = *std::move(all);
  }
  for (std::size_t k = 0; k < results.size(); ++k)
    results[k] = operands.narrowed(std::move(results[k]), k);
  return results;
}

/// A bf16 / f16 reduction: a sum, mean, max or min along the last dim row by row in f32 buffers
/// (one pass over the narrow bytes); another along a dim other than the first, of a tensor larger
/// than a slab, with its first dim cut into slabs of about a million elements, each widened and
/// reduced in turn, so that the f32 copy stays in the last-level cache instead of going to memory
/// and back. Others as run_widened's template.
std::optional<std::vector<View>> run_widened(const ir::Reduce& op, Views in, Outputs out);

}  // namespace ember::flex
