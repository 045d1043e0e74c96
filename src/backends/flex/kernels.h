// The flex kernels: one run overload per op struct that flex computes itself. Each takes the
// inputs as views (any strides) and the outputs' metadata from ir::infer, and returns the output
// view (a vector of views for an op with several outputs), or nullopt to decline (a dtype or case
// it has no fast path for): the backend then runs the ndarray kernel instead (fallback.h). Ops
// without an overload here always fall back.
#pragma once

#include <concepts>
#include <optional>
#include <span>
#include <vector>

#include "backends/flex/view.h"
#include "ir/ops.h"

namespace ember::flex {

using Outputs = std::span<const ir::TensorMeta>;

// layout.cpp: zero-copy views
std::optional<View> run(const ir::Reshape& op, Views in, Outputs out);
std::optional<View> run(const ir::Permute& op, Views in, Outputs out);
std::optional<View> run(const ir::Flip& op, Views in, Outputs out);
std::optional<View> run(const ir::Expand& op, Views in, Outputs out);
std::optional<View> run(const ir::Slice& op, Views in, Outputs out);
// convert.cpp
std::optional<View> run(const ir::Cast& op, Views in, Outputs out);
// elementwise.cpp: f32, f64 by SIMD
std::optional<View> run(const ir::Unary& op, Views in, Outputs out);
std::optional<View> run(const ir::Binary& op, Views in, Outputs out);
std::optional<View> run(const ir::BinaryScalar& op, Views in, Outputs out);
std::optional<View> run(const ir::Compare& op, Views in, Outputs out);
std::optional<View> run(const ir::CompareScalar& op, Views in, Outputs out);
// activation.cpp: f32, f64 by SIMD
std::optional<View> run(const ir::Activation& op, Views in, Outputs out);
std::optional<View> run(const ir::Softmax& op, Views in, Outputs out);
std::optional<View> run(const ir::SoftmaxGrad& op, Views in, Outputs out);  // along the last dim
// reduce.cpp: f32, f64 sum, mean, max, min, argmax, argmin by SIMD
std::optional<View> run(const ir::Reduce& op, Views in, Outputs out);
// matmul.cpp: f32, f64 (f16, bf16 through f32) by BLAS
std::optional<View> run(const ir::Matmul& op, Views in, Outputs out);
// creation.cpp: every dtype, in parallel
std::optional<View> run(const ir::Full& op, Views in, Outputs out);
std::optional<View> run(const ir::Random& op, Views in, Outputs out);
// conv.cpp: f32 by oneDNN (where built with it), f32 and f64 by im2col + BLAS, f16 and bf16 in f32
std::optional<View> run(const ir::Conv& op, Views in, Outputs out);
std::optional<View> run(const ir::ConvWeightGrad& op, Views in, Outputs out);
// pool.cpp: f32, f64 max (i32 / i64 indices) and average pooling, and its gradient
std::optional<std::vector<View>> run(const ir::Pool& op, Views in, Outputs out);
std::optional<std::vector<View>> run(const ir::AdaptivePool& op, Views in, Outputs out);
std::optional<View> run(const ir::AvgPoolGrad& op, Views in, Outputs out);
std::optional<View> run(const ir::AdaptiveAvgPoolGrad& op, Views in, Outputs out);
// scatter.cpp, gather.cpp: f32, f64 values by i32 / i64 indices shaped as x but along dim
std::optional<View> run(const ir::Scatter& op, Views in, Outputs out);
std::optional<View> run(const ir::Gather& op, Views in, Outputs out);
// norm.cpp: f32, f64 layer_norm / rms_norm and their gradient, row by row
std::optional<std::vector<View>> run(const ir::LayerNorm& op, Views in, Outputs out);
std::optional<std::vector<View>> run(const ir::LayerNormGrad& op, Views in, Outputs out);
// cross_entropy.cpp: f32, f64 logits with i32 / i64 targets, row by row
std::optional<std::vector<View>> run(const ir::CrossEntropy& op, Views in, Outputs out);
std::optional<View> run(const ir::CrossEntropyGrad& op, Views in, Outputs out);

/// Whether flex has a kernel of its own for Op.
template <typename Op>
concept HasFlexKernel = requires(const Op& op, Views in, Outputs out) {
  { run(op, in, out) } -> std::same_as<std::optional<View>>;
};

/// Whether flex has a kernel of its own for Op with several outputs (one view each).
template <typename Op>
concept HasFlexMultiKernel = requires(const Op& op, Views in, Outputs out) {
  { run(op, in, out) } -> std::same_as<std::optional<std::vector<View>>>;
};

}  // namespace ember::flex
