// The fused row ops, named once: ops that run a whole row (the last dim) in one pass over memory
// each way on a backend whose runs_fused_rows says yes (backends/backend.h), and as composites of
// other ops everywhere else. A backend without kernels of its own for them overloads its run for
// this concept, to send them to the host when they arrive directly.
#pragma once

#include <type_traits>
#include <variant>

#include "ir/ops.h"

namespace ember::ir {

template <typename T>
concept FusedRowOp = std::is_same_v<T, LayerNorm> || std::is_same_v<T, LayerNormGrad> ||
    std::is_same_v<T, CrossEntropy> || std::is_same_v<T, CrossEntropyGrad> ||
    std::is_same_v<T, SoftmaxGrad>;

/// Whether op is one of the fused row ops (what Backend::runs_fused_rows is asked about).
inline bool is_fused_row_op(const Op& op) {
  return std::visit([](const auto& o) { return FusedRowOp<std::decay_t<decltype(o)>>; }, op);
}

}  // namespace ember::ir
