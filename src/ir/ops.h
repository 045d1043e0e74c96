// The op IR: every tensor operation described as data. The Tensor API builds these structs,
// ir::infer checks them and computes output metadata (the shape and dtype rules, written once
// here), and every backend consumes the same structs. Composite ops (transpose, stack, topk,
// one_hot, ...) are lowered to these by the Tensor API and have no struct of their own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "core/inline_vector.h"
#include "ember/distribution.h"
#include "ember/dtype.h"
#include "ember/scalar.h"
#include "ember/shape.h"

namespace ember::ir {

/// Shape and dtype of one tensor operand or result.
struct TensorMeta {
  Shape shape;
  DType dtype;
  friend bool operator==(const TensorMeta&, const TensorMeta&) = default;
};

/// The metadata of an op's outputs: held inline for up to two outputs (every op but a few has
/// one), so that inferring them allocates nothing beyond their shapes.
using OutputMetas = ember::detail::InlineVector<TensorMeta, 2>;

/// A scalar operand (the public ember::Scalar).
using Scalar = ember::Scalar;

// ---- the op table ---------------------------------------------------------------------------

/// The dtypes an op of the op table takes (its dtypes column, include/ember/ops.def).
enum class DTypeSet : uint8_t { Float, FloatOrSigned, Numeric, Bool, Any };
/// The dtype of such an op's result: its input's, Bool, or the index dtype the op names.
enum class ResultDType : uint8_t { Same, Bool, Index };

/// Every enumerator of an op enum of the op table, in table order: OpList<UnaryOp>::all.
template <typename Enum>
struct OpList;
/// all_ops<UnaryOp>(): every unary op, for tables and tests that go through them all.
template <typename Enum>
constexpr std::span<const Enum> all_ops() {
  return OpList<Enum>::all;
}
/// How many ops an op enum has.
template <typename Enum>
inline constexpr std::size_t kOpCount = std::size(OpList<Enum>::all);
/// f(std::integral_constant<Enum, op>{}): code specialized for each op, one chosen at run time
/// (a loop written once for every op, with the op's formula folded into it). op is an enumerator
/// (ir::infer has checked it).
template <typename Enum, std::size_t kFirst = 0, typename F>
decltype(auto) visit_op(Enum op, F&& f) {
  constexpr Enum kCandidate = OpList<Enum>::all[kFirst];
  if constexpr (kFirst + 1 == kOpCount<Enum>) {
    return f(std::integral_constant<Enum, kCandidate>{});
  } else {
    if (op == kCandidate) return f(std::integral_constant<Enum, kCandidate>{});
    return visit_op<Enum, kFirst + 1>(op, std::forward<F>(f));
  }
}

// ---- elementwise ----------------------------------------------------------------------------

/// The unary ops, in the op table's order (see ops.def for dtypes and results).
enum class UnaryOp : uint8_t {
#define EMBER_UNARY_OP(Enumerator, ...) Enumerator,
#include "ember/ops.def"
};
template <>
struct OpList<UnaryOp> {
  static constexpr UnaryOp all[] = {
#define EMBER_UNARY_OP(Enumerator, ...) UnaryOp::Enumerator,
#include "ember/ops.def"
  };
};
/// inputs: (x). Output: x's shape; dtype x's, or Bool where the table says so (IsNan, IsInf).
struct Unary {
  UnaryOp op;
};

/// The binary ops, in the op table's order. Div of integers truncates toward zero (by zero is an
/// error), Rem takes the divisor's sign (Python's %), Pow of an integer base needs a
/// non-negative integer exponent, Maximum and Minimum propagate NaN.
enum class BinaryOp : uint8_t {
#define EMBER_BINARY_OP(Enumerator, ...) Enumerator,
#include "ember/ops.def"
};
template <>
struct OpList<BinaryOp> {
  static constexpr BinaryOp all[] = {
#define EMBER_BINARY_OP(Enumerator, ...) BinaryOp::Enumerator,
#include "ember/ops.def"
  };
};
/// inputs: (lhs, rhs) of one dtype, broadcast (NumPy rules).
struct Binary {
  BinaryOp op;
};
/// inputs: (x). x op value, or value op x when scalar_lhs. value is converted to x's dtype.
struct BinaryScalar {
  BinaryOp op;
  Scalar value;
  bool scalar_lhs = false;
};

/// The comparisons, in the op table's order.
enum class CompareOp : uint8_t {
#define EMBER_COMPARE_OP(Enumerator, ...) Enumerator,
#include "ember/ops.def"
};
template <>
struct OpList<CompareOp> {
  static constexpr CompareOp all[] = {
#define EMBER_COMPARE_OP(Enumerator, ...) CompareOp::Enumerator,
#include "ember/ops.def"
  };
};
/// inputs: (lhs, rhs) of one dtype, broadcast. Output Bool.
struct Compare {
  CompareOp op;
};
/// inputs: (x). x op value. Output Bool.
struct CompareScalar {
  CompareOp op;
  Scalar value;
};

/// inputs: (cond: Bool, a, b) broadcast together; a and b of one dtype. cond ? a : b.
struct Where {};
/// inputs: (x, mask: Bool) broadcast to x's shape. mask ? value : x.
struct MaskFill {
  Scalar value;
};
/// inputs: (x). Converts to dtype (float→int truncates toward zero and saturates).
struct Cast {
  DType dtype;
};

// ---- reductions ---------------------------------------------------------------------------

/// The reductions, in the op table's order.
enum class ReduceOp : uint8_t {
#define EMBER_REDUCE_OP(Enumerator, ...) Enumerator,
#include "ember/ops.def"
};
template <>
struct OpList<ReduceOp> {
  static constexpr ReduceOp all[] = {
#define EMBER_REDUCE_OP(Enumerator, ...) ReduceOp::Enumerator,
#include "ember/ops.def"
  };
};
/// inputs: (x). With a dim, that dim becomes 1 (kept); without, the output has shape [1].
struct Reduce {
  ReduceOp op;
  std::optional<int64_t> dim;  ///< Non-negative, < rank.
  int64_t correction = 0;      ///< Var only.
  DType index_dtype = DType::I64;
};

/// inputs: (lhs [..., m, k], rhs [..., k, n]) of one numeric dtype, rank >= 2 each and equal;
/// batch dims broadcast. Output [..., m, n].
struct Matmul {};

// ---- layout -------------------------------------------------------------------------------

/// inputs: (x). Same element count; every dim explicit (the Tensor API resolves -1).
struct Reshape {
  Shape shape;
};
/// inputs: (x). axes is a permutation of 0..rank-1; output dim i = input dim axes[i].
struct Permute {
  std::vector<int64_t> axes;
  /// Whether it swaps the last two axes and keeps the others (a matrix transpose of each batch
  /// entry): rank 2 or more.
  bool swaps_last_two() const {
    const std::size_t rank = axes.size();
    if (rank < 2 || axes[rank - 2] != static_cast<int64_t>(rank - 1) ||
        axes[rank - 1] != static_cast<int64_t>(rank - 2))
      return false;
    for (std::size_t d = 0; d + 2 < rank; ++d)
      if (axes[d] != static_cast<int64_t>(d)) return false;
    return true;
  }
};
/// inputs: (x). Reverses each listed axis (distinct, < rank).
struct Flip {
  std::vector<int64_t> axes;
};
/// inputs: (x). Broadcasts to shape (same rank; a dim of 1 stretches, others must match).
struct Expand {
  Shape shape;
};
/// A normalized range of one dim: 0 <= start <= end <= size, step >= 1.
struct SliceRange {
  int64_t start;
  int64_t end;
  int64_t step = 1;
  friend bool operator==(const SliceRange&, const SliceRange&) = default;
};
/// inputs: (x). One range per dim (ranges.size() == rank). Output dim = ceil((end-start)/step).
struct Slice {
  std::vector<SliceRange> ranges;
};
/// inputs: (x, values). values' shape is the slice's; output: x with the slice replaced.
struct SliceAssign {
  std::vector<SliceRange> ranges;
};
/// inputs: N >= 1 tensors of one dtype and rank, equal except along dim.
struct Cat {
  int64_t dim;
};

// ---- indexing -----------------------------------------------------------------------------

/// How an indexed write combines with what is there.
enum class IndexUpdate : uint8_t { Add, Assign };
/// inputs: (x, indices: int rank 1). Output: x with dim's size = indices' length.
struct Select {
  int64_t dim;
};
/// inputs: (x, indices: int rank 1, values: x's shape with dim = indices' length).
struct SelectAssign {
  int64_t dim;
  IndexUpdate update = IndexUpdate::Add;
};
/// inputs: (x, indices: int, rank of x, dims <= x's except along dim). Output: indices' shape.
struct Gather {
  int64_t dim;
};
/// inputs: (x, indices: int, values: indices' shape). Output: x's shape.
struct Scatter {
  int64_t dim;
  IndexUpdate update = IndexUpdate::Add;
};

// ---- sort, cumulative ---------------------------------------------------------------------

/// inputs: (x). Outputs: (values, indices of index_dtype), sorted along dim, stable.
struct Sort {
  int64_t dim;
  bool descending = false;
  DType index_dtype = DType::I64;
};
enum class CumulativeOp : uint8_t { Sum, Prod, Max, Min };
/// inputs: (x) numeric. Running op along dim.
struct Cumulative {
  CumulativeOp op;
  int64_t dim;
};

// ---- neural-network activations ------------------------------------------------------------

/// The activations, in the op table's order.
enum class ActivationOp : uint8_t {
#define EMBER_ACTIVATION_OP(Enumerator, ...) Enumerator,
#include "ember/ops.def"
};
template <>
struct OpList<ActivationOp> {
  static constexpr ActivationOp all[] = {
#define EMBER_ACTIVATION_OP(Enumerator, ...) ActivationOp::Enumerator,
#include "ember/ops.def"
  };
};
/// inputs: (x) float. Output x's meta. alpha: LeakyRelu's negative slope, Elu's and Celu's
/// alpha; beta: Softplus's beta (linear above beta * x > 20, as PyTorch).
struct Activation {
  ActivationOp op;
  double alpha = 0.0;
  double beta = 1.0;
};
/// The one parameter activation's formula takes, as the op table's parameter column names it
/// (alpha or beta); 0 for the ops without one.
double parameter_of(const Activation& activation);
/// inputs: (x) float. Softmax (or log-softmax) along dim, computed stably (max subtracted).
struct Softmax {
  int64_t dim;
  bool log = false;
};
/// inputs: (y, grad_y) of a Softmax (y its output), one float dtype and shape. Output: x's
/// gradient along softmax.dim, y (grad_y - sum(grad_y y)), or for log-softmax grad_y - exp(y)
/// sum(grad_y). Emitted by the backward rule where Backend::runs_fused_rows says so (one pass
/// over y and grad_y), else the rule's composite runs.
struct SoftmaxGrad {
  Softmax softmax;
};

// ---- spatial: convolution, pooling, resampling ------------------------------------------------
// x is [N, C, *spatial] with 1 to 3 spatial dims; every per-dim vector below has exactly one entry
// per spatial dim (the Tensor API expands a single value to all of them).

/// The geometry of a convolution, shared by Conv and ConvWeightGrad.
struct ConvGeometry {
  std::vector<int64_t> stride;          ///< >= 1
  std::vector<int64_t> padding;         ///< >= 0, added on both sides
  std::vector<int64_t> dilation;        ///< >= 1
  std::vector<int64_t> output_padding;  ///< transposed only (else zeros): < stride or < dilation
  int64_t groups = 1;                   ///< >= 1, divides C_in and C_out
  bool transposed = false;
  friend bool operator==(const ConvGeometry&, const ConvGeometry&) = default;
};
/// inputs: (x, weight) or (x, weight, bias [C_out]), one float dtype. Not transposed: weight
/// [C_out, C_in / groups, *kernel], out = floor((in + 2p - d (k - 1) - 1) / s) + 1 (>= 1).
/// Transposed (the gradient of a convolution with respect to its input): weight
/// [C_in, C_out / groups, *kernel], out = (in - 1) s - 2p + d (k - 1) + output_padding + 1.
struct Conv {
  ConvGeometry geometry;
};
/// inputs: (x, grad_output) of a Conv with this geometry (transposed or not), one float dtype.
/// Output: the gradient of that Conv's weight, of shape weight_shape.
struct ConvWeightGrad {
  ConvGeometry geometry;
  Shape weight_shape;
};

enum class PoolOp : uint8_t { Max, Avg };
/// inputs: (x). Max: numeric x, outputs (values, indices of index_dtype): each index is the
/// position of the maximum in x's flattened spatial dims (PyTorch's return_indices; padding
/// never wins; NaN propagates). Avg: float x, output (values); the divisor is divisor_override
/// when set, else the window's size clipped to the padded input (count_include_pad) or to the
/// input. out = floor-or-ceil((in + 2p - d (k - 1) - 1) / s) + 1, where with ceil_mode a
/// window must start inside the input or its left padding (PyTorch's rule). p <= k / 2.
struct Pool {
  PoolOp op;
  std::vector<int64_t> kernel;    ///< >= 1
  std::vector<int64_t> stride;    ///< >= 1
  std::vector<int64_t> padding;   ///< >= 0
  std::vector<int64_t> dilation;  ///< >= 1 (Avg: all 1)
  bool ceil_mode = false;
  bool count_include_pad = true;                           ///< Avg only
  std::optional<int64_t> divisor_override = std::nullopt;  ///< Avg only; >= 1
  DType index_dtype = DType::I64;
};
/// inputs: (x). Output cell i of a dim covers input [floor(i in / out), ceil((i + 1) in / out)).
/// Outputs as Pool: Max (values, indices), Avg (values).
struct AdaptivePool {
  PoolOp op;
  std::vector<int64_t> output_size;  ///< >= 1
  DType index_dtype = DType::I64;
};
/// inputs: (grad_output) of an Avg Pool over an input of input_shape. Output: x's gradient.
struct AvgPoolGrad {
  Pool pool;
  Shape input_shape;
};
/// inputs: (grad_output) of an Avg AdaptivePool over an input of input_shape. Output: x's
/// gradient.
struct AdaptiveAvgPoolGrad {
  AdaptivePool pool;
  Shape input_shape;
};

enum class InterpolateMode : uint8_t {
  Nearest,  ///< PyTorch's "nearest": src = floor(dst * in / out)
  Linear,   ///< linear along every spatial dim (linear, bilinear, trilinear)
  Cubic,    ///< cubic convolution along every spatial dim, A = -0.75 (bicubic; 2 dims only)
};
/// inputs: (x) float. Output [N, C, *size]. Source coordinate of output index i: with
/// align_corners, i (in - 1) / (out - 1) (0 when out == 1); otherwise (i + 0.5) / scale - 0.5,
/// clamped at 0 for Linear (Nearest: floor(i / scale)), where scale is scales[d] when given and
/// out / in otherwise (PyTorch's rule with recompute_scale_factor unset).
struct Interpolate {
  InterpolateMode mode;
  std::vector<int64_t> size;   ///< >= 1
  bool align_corners = false;  ///< Linear and Cubic only
  std::vector<double> scales;  ///< empty, or one scale factor > 0 per spatial dim
};
/// inputs: (grad_output) of an Interpolate over an input of input_shape. Output: x's gradient.
struct InterpolateGrad {
  Interpolate interpolate;
  Shape input_shape;
};

// ---- attention ----------------------------------------------------------------------------

/// Scaled dot-product attention as one op, for a backend with a fused kernel (the public
/// scaled_dot_product_attention emits it only where Backend::runs_fused_attention says so; the
/// composite of matmul and softmax is its oracle). inputs: (q [..., L, E], k [..., S, E],
/// v [..., S, Ev]) of one float dtype and equal batch dims, then optionally a mask broadcastable
/// to [..., L, S] (rank <= q's): Bool (attend where true) or q's dtype (added to the scores).
/// Scores s = scale * q k^T (+ mask), keeping key j <= query i only when causal. Outputs: the
/// result softmax(s) v [..., L, Ev] in q's dtype, and each row's log-sum-exp log(sum_j exp(s))
/// [..., L] in f32 (f64 for f64 inputs), which the backward needs. A row with no key to attend is
/// NaN (lse -inf), as the composite's softmax gives.
struct Attention {
  double scale;
  bool causal = false;
};
/// inputs: (q, k, v[, mask], out, lse, grad_out) of an Attention (out and lse its outputs,
/// grad_out the gradient of out). Outputs: the gradients of q, k and v (the mask gets none).
struct AttentionGrad {
  Attention attention;
};

// ---- fused row ops: normalizations and cross-entropy ------------------------------------------
// Each is one op behind a public composite (layer_norm, rms_norm, cross_entropy), emitted only
// where Backend::runs_fused_rows says the backend has a kernel for it; the composite stays its
// oracle. Both work on rows: the last dim of x (the public function flattens the normalized
// dims, or moves the classes last). Their statistics are f32 (f64 for f64 inputs), so that the
// gradient ops keep the precision of the dtype they differentiate.

/// layer_norm (or rms_norm) of each row of x [..., N]: y = (x - mean) * rstd * weight + bias,
/// rstd = 1 / sqrt(biased var + eps); with rms, y = x * rstd * weight, rstd = 1 / sqrt(mean(x^2)
/// + eps) (no mean taken, no bias). inputs: (x[, weight [N]][, bias [N]]) of one float dtype, as
/// the flags say. Outputs: y (x's dtype and shape), then mean [...] unless rms, then rstd [...].
struct LayerNorm {
  double eps;
  bool rms = false;
  bool weight = false;  ///< a weight [N] follows x
  bool bias = false;    ///< a bias [N] follows (never with rms)
};
/// inputs: (x[, weight], mean (unless rms), rstd, grad_y) of a LayerNorm (mean and rstd its
/// outputs). Outputs: the gradient of x, then of weight and of bias where the LayerNorm has them.
struct LayerNormGrad {
  LayerNorm norm;
};

/// cross_entropy of each row of logits [M, C] against Int targets [M]: loss_i = (1 - s) w[t_i]
/// (lse_i - x[i, t_i]) + s / C sum_c w_c (lse_i - x[i, c]), lse_i = log sum_c exp(x[i, c]),
/// w the class weights (1 without them), s the label smoothing; 0 where t_i == ignore_index. A
/// target outside [0, C) that is not ignore_index is an InvalidArgument. inputs: (logits,
/// targets[, weight [C] of logits' dtype]). Outputs: loss [M] (logits' dtype), lse [M].
struct CrossEntropy {
  int64_t ignore_index = -100;
  double label_smoothing = 0.0;
  bool weight = false;  ///< class weights follow the targets
};
/// inputs: (logits, targets[, weight], lse, grad_loss [M]) of a CrossEntropy (lse its output).
/// Output: the gradient of logits.
struct CrossEntropyGrad {
  CrossEntropy loss;
};

// ---- creation (no inputs) -----------------------------------------------------------------

/// A tensor of shape filled with value.
struct Full {
  Shape shape;
  DType dtype;
  Scalar value;
};
/// start, start+step, ... < end (step > 0), or > end (step < 0). Output rank 1 of dtype (int).
struct Arange {
  int64_t start;
  int64_t end;
  int64_t step;
  DType dtype;
};
/// Random values. Element i is a pure function of (key, i) (see ir/random.h), so every backend
/// produces the same tensor for the same key.
struct Random {
  Shape shape;
  DType dtype;
  Distribution distribution;
  uint64_t key;
};

using Op =
    std::variant<Unary, Binary, BinaryScalar, Compare, CompareScalar, Where, MaskFill, Cast, Reduce,
                 Matmul, Reshape, Permute, Flip, Expand, Slice, SliceAssign, Cat, Select,
                 SelectAssign, Gather, Scatter, Sort, Cumulative, Full, Arange, Random, Activation,
                 Softmax, Conv, ConvWeightGrad, Pool, AdaptivePool, AvgPoolGrad,
                 AdaptiveAvgPoolGrad, Interpolate, InterpolateGrad, Attention, AttentionGrad,
                 LayerNorm, LayerNormGrad, CrossEntropy, CrossEntropyGrad, SoftmaxGrad>;

/// The op's user-facing name, used in error messages: "add", "exp", "sum_dim", "matmul", ...
std::string name(const Op& op);
/// Checks the inputs against the op's rule and returns the outputs' metadata. Throws
/// InvalidArgument "[name] ..." naming the offending shapes, dtypes or arguments.
OutputMetas infer(const Op& op, std::span<const TensorMeta> inputs);

/// NumPy broadcasting of two shapes; InvalidArgument "[op] ..." when incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& op);

}  // namespace ember::ir
