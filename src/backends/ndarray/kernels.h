// The ndarray kernels: one run overload per op struct, so the backend dispatches with a single
// std::visit. Each takes the inputs' host data (contiguous, satisfying ir::infer) and the
// outputs' metadata ir::infer returned, and returns the outputs' data.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "ember/error.h"
#include "ember/tensor_data.h"
#include "ir/ops.h"

namespace ember::ndarray {

using Inputs = std::span<const TensorData* const>;
using Outputs = std::span<const ir::TensorMeta>;

// unary.cpp
TensorData run(const ir::Unary& op, Inputs in, Outputs out);
// binary.cpp
TensorData run(const ir::Binary& op, Inputs in, Outputs out);
TensorData run(const ir::BinaryScalar& op, Inputs in, Outputs out);
// compare.cpp
TensorData run(const ir::Compare& op, Inputs in, Outputs out);
TensorData run(const ir::CompareScalar& op, Inputs in, Outputs out);
// where.cpp
TensorData run(const ir::Where& op, Inputs in, Outputs out);
TensorData run(const ir::MaskFill& op, Inputs in, Outputs out);
// cast.cpp
TensorData run(const ir::Cast& op, Inputs in, Outputs out);
// reduce.cpp
TensorData run(const ir::Reduce& op, Inputs in, Outputs out);
// matmul.cpp
TensorData run(const ir::Matmul& op, Inputs in, Outputs out);
// layout.cpp
TensorData run(const ir::Reshape& op, Inputs in, Outputs out);
TensorData run(const ir::Permute& op, Inputs in, Outputs out);
TensorData run(const ir::Flip& op, Inputs in, Outputs out);
TensorData run(const ir::Expand& op, Inputs in, Outputs out);
TensorData run(const ir::Slice& op, Inputs in, Outputs out);
TensorData run(const ir::SliceAssign& op, Inputs in, Outputs out);
TensorData run(const ir::Cat& op, Inputs in, Outputs out);
// indexing.cpp
TensorData run(const ir::Select& op, Inputs in, Outputs out);
TensorData run(const ir::SelectAssign& op, Inputs in, Outputs out);
TensorData run(const ir::Gather& op, Inputs in, Outputs out);
TensorData run(const ir::Scatter& op, Inputs in, Outputs out);
// sort.cpp
std::vector<TensorData> run(const ir::Sort& op, Inputs in, Outputs out);
// cumulative.cpp
TensorData run(const ir::Cumulative& op, Inputs in, Outputs out);
// creation.cpp
TensorData run(const ir::Full& op, Inputs in, Outputs out);
TensorData run(const ir::Arange& op, Inputs in, Outputs out);
TensorData run(const ir::Random& op, Inputs in, Outputs out);
// activation.cpp
TensorData run(const ir::Activation& op, Inputs in, Outputs out);
TensorData run(const ir::Softmax& op, Inputs in, Outputs out);
// conv.cpp
TensorData run(const ir::Conv& op, Inputs in, Outputs out);
TensorData run(const ir::ConvWeightGrad& op, Inputs in, Outputs out);
// pool.cpp
std::vector<TensorData> run(const ir::Pool& op, Inputs in, Outputs out);
std::vector<TensorData> run(const ir::AdaptivePool& op, Inputs in, Outputs out);
TensorData run(const ir::AvgPoolGrad& op, Inputs in, Outputs out);
TensorData run(const ir::AdaptiveAvgPoolGrad& op, Inputs in, Outputs out);
// interpolate.cpp
TensorData run(const ir::Interpolate& op, Inputs in, Outputs out);
TensorData run(const ir::InterpolateGrad& op, Inputs in, Outputs out);
// attention.cpp: outputs (result, lse) and (dq, dk, dv)
std::vector<TensorData> run(const ir::Attention& op, Inputs in, Outputs out);
std::vector<TensorData> run(const ir::AttentionGrad& op, Inputs in, Outputs out);
// norm.cpp: outputs (y[, mean], rstd) and (dx[, dweight][, dbias])
std::vector<TensorData> run(const ir::LayerNorm& op, Inputs in, Outputs out);
std::vector<TensorData> run(const ir::LayerNormGrad& op, Inputs in, Outputs out);
// cross_entropy.cpp: outputs (loss, lse) and dlogits
std::vector<TensorData> run(const ir::CrossEntropy& op, Inputs in, Outputs out);
TensorData run(const ir::CrossEntropyGrad& op, Inputs in, Outputs out);
// softmax_grad.cpp
TensorData run(const ir::SoftmaxGrad& op, Inputs in, Outputs out);

/// A zero-filled tensor of meta's shape and dtype, for a kernel to fill.
inline TensorData zeros_like(const ir::TensorMeta& meta) {
  return TensorData::zeros(meta.shape, meta.dtype);
}

/// Rejects a dtype the op's rule excludes. ir::infer already does; kernels are instantiated for
/// every dtype, and this keeps a contract violation from computing something meaningless.
[[noreturn]] inline void throw_unsupported(const ir::Op& op, DType dtype) {
  throw InvalidArgument("[" + ir::name(op) + "] not defined for dtype " +
                        std::string(dtype_name(dtype)));
}

}  // namespace ember::ndarray
