// What the libtorch backend's kernels share: its buffer (an at::Tensor), the dtype map, and the
// kernels' signature. Included only by src/backends/libtorch/*.cpp: ATen's headers never reach
// the rest of ember (they cost seconds a file to compile).
#pragma once

#include <ATen/ATen.h>

#include <optional>
#include <span>
#include <string>

#include "backends/backend.h"
#include "ember/error.h"
#include "ir/ops.h"

namespace ember::libtorch {

/// A tensor's storage: an ATen tensor on the backend's device, of the tensor's shape and dtype. It
/// may be a view of another buffer's storage (reshape, permute, expand, slice): ember never writes
/// into a buffer once made, so a view is as good as a copy.
struct TorchBuffer final : backend::Buffer {
  explicit TorchBuffer(at::Tensor t) : tensor(std::move(t)) {}
  at::Tensor tensor;
};

/// LibTorch's type for dtype; InvalidArgument "[op] ..." for the unsigned types LibTorch 1.13 lacks
/// (u16, u32, u64: supports_dtype says no).
at::ScalarType scalar_type(DType dtype, const std::string& op);
/// Whether LibTorch has a type for dtype.
bool has_scalar_type(DType dtype);

/// The results of one op, one per output (two for sort and max pooling). Empty: the op runs on
/// the host through ndarray's kernel instead (the ops docs/backends/libtorch.md lists).
using Results = c10::SmallVector<at::Tensor, 2>;

/// An op's operands as kernels see them.
struct Args {
  const ir::Op& op;                     ///< the whole op, for the names in messages
  std::span<const at::Tensor> in;       ///< its inputs, as ir::infer checked them
  std::span<const ir::TensorMeta> out;  ///< its outputs' metadata (ir::infer's)
  at::TensorOptions options;            ///< the backend's device

  /// "[name] " for messages.
  std::string prefix() const { return "[" + ir::name(op) + "] "; }
};

/// shape's dims as ATen's sizes (a view of shape's storage).
inline at::IntArrayRef sizes_of(const Shape& shape) {
  const std::vector<int64_t>& dims = shape.dims();
  return {dims.data(), dims.size()};
}

/// Whether x holds floats (of any precision).
inline bool is_float(const at::Tensor& x) {
  return at::isFloatingType(x.scalar_type());
}

/// value as LibTorch 1.13's optional (not yet std::optional).
template <typename T>
c10::optional<T> torch_optional(const std::optional<T>& value) {
  return value ? c10::optional<T>(*value) : c10::nullopt;
}

/// x itself, or x in f32 when it is f16 or bf16: ember computes half-precision values in f32 and
/// rounds the result once (as ndarray does), and LibTorch 1.13 lacks many half kernels on CPU.
at::Tensor widened(const at::Tensor& x);
/// A 0-dim tensor holding value as a tensor of dtype holds it (ember's conversion: floats
/// saturate into ints, NaN to 0), on options' device.
at::Tensor scalar_tensor(const Scalar& value, DType dtype, const at::TensorOptions& options);

// One overload per op struct; the backend casts each result to its output's dtype and reshapes
// it to its output's shape (ir::infer's), so a kernel may return a wider float or a 0-dim sum.
// elementwise.cpp
Results run(const ir::Unary& op, const Args& a);
Results run(const ir::Binary& op, const Args& a);
Results run(const ir::BinaryScalar& op, const Args& a);
Results run(const ir::Compare& op, const Args& a);
Results run(const ir::CompareScalar& op, const Args& a);
Results run(const ir::Where& op, const Args& a);
Results run(const ir::MaskFill& op, const Args& a);
Results run(const ir::Cast& op, const Args& a);
Results run(const ir::Activation& op, const Args& a);
// reduce.cpp
Results run(const ir::Reduce& op, const Args& a);
Results run(const ir::Matmul& op, const Args& a);
Results run(const ir::Sort& op, const Args& a);
Results run(const ir::Cumulative& op, const Args& a);
Results run(const ir::Softmax& op, const Args& a);
Results run(const ir::Attention& op, const Args& a);         // host (ndarray)
Results run(const ir::AttentionGrad& op, const Args& a);     // host (ndarray)
Results run(const ir::LayerNorm& op, const Args& a);         // host (ndarray)
Results run(const ir::LayerNormGrad& op, const Args& a);     // host (ndarray)
Results run(const ir::CrossEntropy& op, const Args& a);      // host (ndarray)
Results run(const ir::SoftmaxGrad& op, const Args& a);       // host (ndarray)
Results run(const ir::CrossEntropyGrad& op, const Args& a);  // host (ndarray)
// layout.cpp
Results run(const ir::Reshape& op, const Args& a);
Results run(const ir::Permute& op, const Args& a);
Results run(const ir::Flip& op, const Args& a);
Results run(const ir::Expand& op, const Args& a);
Results run(const ir::Slice& op, const Args& a);
Results run(const ir::SliceAssign& op, const Args& a);
Results run(const ir::Cat& op, const Args& a);
Results run(const ir::Full& op, const Args& a);
Results run(const ir::Arange& op, const Args& a);
Results run(const ir::Random& op, const Args& a);
// indexing.cpp
Results run(const ir::Select& op, const Args& a);
Results run(const ir::SelectAssign& op, const Args& a);
Results run(const ir::Gather& op, const Args& a);
Results run(const ir::Scatter& op, const Args& a);
// spatial.cpp
Results run(const ir::Conv& op, const Args& a);
Results run(const ir::ConvWeightGrad& op, const Args& a);
Results run(const ir::Pool& op, const Args& a);
Results run(const ir::AdaptivePool& op, const Args& a);
Results run(const ir::AvgPoolGrad& op, const Args& a);
Results run(const ir::AdaptiveAvgPoolGrad& op, const Args& a);
Results run(const ir::Interpolate& op, const Args& a);
Results run(const ir::InterpolateGrad& op, const Args& a);

}  // namespace ember::libtorch
