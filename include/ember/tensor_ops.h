// The untyped op functions behind Tensor<D, K>. Each checks its arguments (InvalidArgument
// naming the op and values), promotes dtypes, builds ir ops and runs them on the tensor's
// device. Tensor<D, K> adds only compile-time rank and kind. Dims may be negative (counted from
// the end) wherever a dim is taken.
//
// Rules shared by every op:
// - Kinds: an op that needs a kind throws for another ("[exp] expects a Float tensor, got i64");
//   the kinds each op takes are those of its Tensor<D, K> method. Two tensors of one kind and
//   different dtypes are cast to promote_types of the two first (f16 + f32 → f32, i32 + i64 →
//   i64); tensors of different kinds are an InvalidArgument, never converted silently.
// - Scalars are converted to the tensor's dtype and must be exactly representable in it: with an
//   Int tensor a float scalar must be integral (x + 2.0 is fine, x + 2.5 throws "[add_scalar]
//   float scalar 2.5 with an Int tensor (i64)") and within the dtype's range (300 with i8
//   throws); a Bool tensor takes only 0, 1, true or false. A float dtype takes any scalar.
//   Comparisons with a scalar (equal_elem ...) take any scalar: see there.
// - Tensors have rank >= 1: creation and reshape refuse rank 0.
// - A result takes the Device value of the op's first tensor input, autodiff flag included.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "ember/distribution.h"
#include "ember/scalar.h"
#include "ember/slice.h"
#include "ember/tensor_data.h"
#include "ember/tensor_handle.h"
#include "ember/tensor_options.h"

namespace ember::ops {

using Dims = std::vector<int64_t>;
using Handles = std::vector<TensorHandle>;

// ---- creation ---------------------------------------------------------------------------------
// The dtype is options.dtype (which must belong to kind) or the device's default for kind;
// creating a tensor locks the device's settings.
TensorHandle full(const Shape& shape, Scalar value, const TensorCreationOptions& options,
                  TensorKind kind);
TensorHandle zeros(const Shape& shape, const TensorCreationOptions& options, TensorKind kind);
TensorHandle ones(const Shape& shape, const TensorCreationOptions& options, TensorKind kind);
/// Uninitialized in principle; zeros in practice (defined values are cheaper than a bug).
TensorHandle empty(const Shape& shape, const TensorCreationOptions& options, TensorKind kind);
/// data converted to options.dtype when given, else kept if it belongs to kind, else converted
/// to the default dtype of kind.
TensorHandle from_data(const TensorData& data, const TensorCreationOptions& options,
                       TensorKind kind);
TensorHandle random(const Shape& shape, const Distribution& distribution,
                    const TensorCreationOptions& options, TensorKind kind);
/// [start, end) by step (non-zero), an Int tensor of rank 1; every value must fit the dtype.
TensorHandle arange(int64_t start, int64_t end, int64_t step, const TensorCreationOptions& options);
/// n x n identity (n >= 0).
TensorHandle eye(int64_t n, const TensorCreationOptions& options, TensorKind kind);
/// A tensor shaped and typed like x, on x's device, filled with value.
TensorHandle full_like(const TensorHandle& x, Scalar value);

// ---- elementwise ------------------------------------------------------------------------------
// One tensor: neg, abs, sign, exp, log, log1p, sqrt, sin, cos, tan, tanh, erf, recip, floor,
// ceil, round (half to even), bool_not, is_nan, is_inf: one function per line of the op table
// (ember/ops.def), which says the dtypes each takes and whether its result is Bool.
#define EMBER_UNARY_OP(Enumerator, name, ...) TensorHandle name(const TensorHandle& x);
#include "ember/ops.def"

// Two tensors: broadcast, dtypes promoted (promote_types) within a kind; kinds must match.
TensorHandle add(const TensorHandle& a, const TensorHandle& b);
TensorHandle sub(const TensorHandle& a, const TensorHandle& b);
TensorHandle mul(const TensorHandle& a, const TensorHandle& b);
TensorHandle div(const TensorHandle& a, const TensorHandle& b);
/// Takes the divisor's sign, like Python's % and torch.remainder.
TensorHandle remainder(const TensorHandle& a, const TensorHandle& b);
/// Float tensors only (as Tensor::powf); powi_scalar also takes Int tensors.
TensorHandle powf(const TensorHandle& a, const TensorHandle& b);
TensorHandle maximum(const TensorHandle& a, const TensorHandle& b);
TensorHandle minimum(const TensorHandle& a, const TensorHandle& b);
TensorHandle bool_and(const TensorHandle& a, const TensorHandle& b);
TensorHandle bool_or(const TensorHandle& a, const TensorHandle& b);
TensorHandle bool_xor(const TensorHandle& a, const TensorHandle& b);

// Tensor and scalar: the scalar is converted to x's dtype.
TensorHandle add_scalar(const TensorHandle& x, Scalar s);
TensorHandle sub_scalar(const TensorHandle& x, Scalar s);
/// s - x
TensorHandle rsub_scalar(const TensorHandle& x, Scalar s);
TensorHandle mul_scalar(const TensorHandle& x, Scalar s);
TensorHandle div_scalar(const TensorHandle& x, Scalar s);
/// s / x
TensorHandle rdiv_scalar(const TensorHandle& x, Scalar s);
TensorHandle remainder_scalar(const TensorHandle& x, Scalar s);
TensorHandle powf_scalar(const TensorHandle& x, double exponent);
/// A negative exponent with an Int tensor is an InvalidArgument.
TensorHandle powi_scalar(const TensorHandle& x, int64_t exponent);
/// min > max is an InvalidArgument.
TensorHandle clamp(const TensorHandle& x, Scalar min, Scalar max);
TensorHandle clamp_min(const TensorHandle& x, Scalar min);
TensorHandle clamp_max(const TensorHandle& x, Scalar max);

// Comparisons → Bool tensors, one pair per comparison of the op table (ember/ops.def): a op b
// (equal ... lower_equal), a and b broadcast; and x op s (equal_elem ... lower_equal_elem) for
// any scalar s, even one x's dtype cannot hold: an Int or Bool tensor compares exactly (a u8 is
// always greater than -1, 2 is lower than 2.5, true equals 1 and not 2); a Float tensor compares
// with s rounded to its dtype (f32 0.1 equals the scalar 0.1).
#define EMBER_COMPARE_OP(Enumerator, name, scalar_name)            \
  TensorHandle name(const TensorHandle& a, const TensorHandle& b); \
  TensorHandle scalar_name(const TensorHandle& x, Scalar s);
#include "ember/ops.def"

/// mask ? value : x. mask and value broadcast to x's shape; the result keeps x's shape and dtype
/// (value is cast to it).
TensorHandle mask_where(const TensorHandle& x, const TensorHandle& mask, const TensorHandle& value);
/// mask ? value : x.
TensorHandle mask_fill(const TensorHandle& x, const TensorHandle& mask, Scalar value);
/// cond ? a : b, all three broadcast.
TensorHandle where(const TensorHandle& cond, const TensorHandle& a, const TensorHandle& b);
/// Converts to dtype (any kind; the result's kind follows dtype). x itself when already dtype.
TensorHandle cast(const TensorHandle& x, DType dtype);

// ---- reductions: whole tensor → shape [1]; _dim keeps the dim with size 1 ------------------
TensorHandle sum(const TensorHandle& x);
TensorHandle sum_dim(const TensorHandle& x, int64_t dim);
TensorHandle mean(const TensorHandle& x);
TensorHandle mean_dim(const TensorHandle& x, int64_t dim);
TensorHandle prod(const TensorHandle& x);
TensorHandle prod_dim(const TensorHandle& x, int64_t dim);
TensorHandle max(const TensorHandle& x);
TensorHandle max_dim(const TensorHandle& x, int64_t dim);
TensorHandle min(const TensorHandle& x);
TensorHandle min_dim(const TensorHandle& x, int64_t dim);
/// Index of the first maximum along dim (an Int tensor of the device's int dtype).
TensorHandle argmax(const TensorHandle& x, int64_t dim);
TensorHandle argmin(const TensorHandle& x, int64_t dim);
/// Variance along dim dividing by n - correction (1: unbiased, as Burn's var).
TensorHandle var(const TensorHandle& x, int64_t dim, int64_t correction = 1);
TensorHandle any(const TensorHandle& x);
TensorHandle any_dim(const TensorHandle& x, int64_t dim);
TensorHandle all(const TensorHandle& x);
TensorHandle all_dim(const TensorHandle& x, int64_t dim);

/// Batched matmul with broadcast batch dims; ranks must be equal and >= 2.
TensorHandle matmul(const TensorHandle& a, const TensorHandle& b);

// ---- layout -----------------------------------------------------------------------------------
/// One dim may be -1 (inferred); 0 is a real zero-size dim.
TensorHandle reshape(const TensorHandle& x, const Dims& dims);
TensorHandle permute(const TensorHandle& x, const Dims& axes);
/// Swaps the last two dims.
TensorHandle transpose(const TensorHandle& x);
TensorHandle swap_dims(const TensorHandle& x, int64_t a, int64_t b);
TensorHandle flip(const TensorHandle& x, const Dims& axes);
/// Broadcasts to dims (rank >= x's; leading dims are added; -1 keeps x's size).
TensorHandle expand(const TensorHandle& x, const Dims& dims);
/// One Slice per leading dim (fewer than rank: the rest are whole). Python semantics, negative
/// steps included (lowered to a positive-step slice and a flip).
TensorHandle slice(const TensorHandle& x, const std::vector<Slice>& slices);
/// x with the slice replaced by values (values' shape must equal the slice's; values are cast to
/// x's dtype).
TensorHandle slice_assign(const TensorHandle& x, const std::vector<Slice>& slices,
                          const TensorHandle& values);
TensorHandle narrow(const TensorHandle& x, int64_t dim, int64_t start, int64_t length);
/// Removes dim, which must have size 1.
TensorHandle squeeze(const TensorHandle& x, int64_t dim);
/// Removes every size-1 dim; a tensor of only size-1 dims becomes shape [1] (rank >= 1).
TensorHandle squeeze_all(const TensorHandle& x);
/// Inserts a size-1 dim at dim (a position in the output, -1 = last).
TensorHandle unsqueeze_dim(const TensorHandle& x, int64_t dim);
/// Adds leading size-1 dims up to rank.
TensorHandle unsqueeze(const TensorHandle& x, std::size_t rank);
/// Repeats the whole tensor times along dim (x.shape[dim] * times).
TensorHandle repeat_dim(const TensorHandle& x, int64_t dim, int64_t times);
TensorHandle cat(const Handles& xs, int64_t dim);
/// Stacks along a new dim.
TensorHandle stack(const Handles& xs, int64_t dim);
/// Pieces of split_size along dim (the last may be smaller).
Handles split(const TensorHandle& x, int64_t split_size, int64_t dim);
/// At most chunks pieces of equal size (the last may be smaller), as torch.chunk; an empty dim
/// gives one empty piece.
Handles chunk(const TensorHandle& x, int64_t chunks, int64_t dim);

// ---- indexing ---------------------------------------------------------------------------------
// Index values are used as they are: a negative index is NOT counted from the end. It is out of
// range, like one >= the dim's size, and the backend throws InvalidArgument for it. Written
// values are cast to x's dtype (same kind required).

/// Entries of x at indices (rank-1 Int tensor) along dim. Out-of-range indices: InvalidArgument.
TensorHandle select(const TensorHandle& x, int64_t dim, const TensorHandle& indices);
/// x with values added at indices along dim.
TensorHandle select_assign(const TensorHandle& x, int64_t dim, const TensorHandle& indices,
                           const TensorHandle& values);
TensorHandle gather(const TensorHandle& x, int64_t dim, const TensorHandle& indices);
/// x with values added at indices along dim (scatter_add).
TensorHandle scatter(const TensorHandle& x, int64_t dim, const TensorHandle& indices,
                     const TensorHandle& values);

// ---- sort, cumulative, misc -------------------------------------------------------------------
/// Stable sort along dim.
TensorHandle sort(const TensorHandle& x, int64_t dim, bool descending = false);
std::pair<TensorHandle, TensorHandle> sort_with_indices(const TensorHandle& x, int64_t dim,
                                                        bool descending = false);
TensorHandle argsort(const TensorHandle& x, int64_t dim, bool descending = false);
/// The k largest along dim (0 <= k <= size), largest first; ties in index order.
TensorHandle topk(const TensorHandle& x, int64_t k, int64_t dim);
std::pair<TensorHandle, TensorHandle> topk_with_indices(const TensorHandle& x, int64_t k,
                                                        int64_t dim);
TensorHandle cumsum(const TensorHandle& x, int64_t dim);
TensorHandle cumprod(const TensorHandle& x, int64_t dim);
TensorHandle cummax(const TensorHandle& x, int64_t dim);
TensorHandle cummin(const TensorHandle& x, int64_t dim);
/// Int x of values in [0, num_classes) → x's shape + [num_classes], of kind. Reads x's values to
/// check them: one outside the range is an InvalidArgument.
TensorHandle one_hot(const TensorHandle& x, int64_t num_classes, TensorKind kind);

// ---- activations -----------------------------------------------------------------------------
// Float tensors only; the result has x's shape and dtype unless said otherwise. Formulas and
// parameters are PyTorch's (torch.nn.functional), computed in numerically stable forms.
TensorHandle relu(const TensorHandle& x);
/// x for x > 0, else negative_slope * x.
TensorHandle leaky_relu(const TensorHandle& x, double negative_slope = 0.01);
/// x for x >= 0, else weight * x, with weight (rank 1, Float) of 1 element or one per channel
/// (x's dim 1; rank-1 x has one channel), broadcast along dim 1 and cast to x's dtype.
TensorHandle prelu(const TensorHandle& x, const TensorHandle& weight);
/// x * Phi(x), Phi the standard normal CDF (exact, with erf).
TensorHandle gelu(const TensorHandle& x);
/// GELU's tanh approximation: x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))).
TensorHandle gelu_tanh(const TensorHandle& x);
TensorHandle sigmoid(const TensorHandle& x);
/// log(sigmoid(x)) = -softplus(-x).
TensorHandle log_sigmoid(const TensorHandle& x);
/// x * sigmoid(x).
TensorHandle silu(const TensorHandle& x);
/// log(1 + exp(beta x)) / beta, and x where beta x > 20. beta must be finite and non-zero.
TensorHandle softplus(const TensorHandle& x, double beta = 1.0);
/// x * tanh(softplus(x)).
TensorHandle mish(const TensorHandle& x);
/// x for x > 0, else alpha * (exp(x) - 1).
TensorHandle elu(const TensorHandle& x, double alpha = 1.0);
/// scale * elu(x, alpha) with PyTorch's fixed alpha and scale.
TensorHandle selu(const TensorHandle& x);
/// x for x > 0, else alpha * (exp(x / alpha) - 1); alpha must be non-zero.
TensorHandle celu(const TensorHandle& x, double alpha = 1.0);
/// relu6(x + 3) / 6.
TensorHandle hard_sigmoid(const TensorHandle& x);
/// x * relu6(x + 3) / 6.
TensorHandle hard_swish(const TensorHandle& x);
/// a * sigmoid(b), a and b the two halves of x along dim (whose size must be even); the result
/// has half of x's size along dim.
TensorHandle glu(const TensorHandle& x, int64_t dim);
/// exp(x) / sum(exp(x)) along dim, computed with the maximum subtracted.
TensorHandle softmax(const TensorHandle& x, int64_t dim);
/// x - max - log(sum(exp(x - max))) along dim.
TensorHandle log_softmax(const TensorHandle& x, int64_t dim);

// ---- devices and data -------------------------------------------------------------------------
/// The same values and dtype on device (with device's autodiff flag). Between backends that keep
/// tensors in host memory (ndarray, flex, cpu; flex and cpu as the target) the result shares x's
/// memory; otherwise the values are copied through the host.
TensorHandle to_device(const TensorHandle& x, const Device& device);
/// The same tensor with autodiff on / off.
TensorHandle with_autodiff(const TensorHandle& x, bool autodiff);
/// Reads the values back to the host (waits for the device).
TensorData into_data(const TensorHandle& x);

}  // namespace ember::ops
