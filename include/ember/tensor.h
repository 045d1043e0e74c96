// Tensor<D, K>: a tensor of compile-time rank D and kind K (Float, Int or Bool). A thin typed
// wrapper over TensorHandle: every method forwards to ember::ops, so the rank and kind checks
// cost nothing at run time. Tensors are cheap handles sharing their device buffer; no method
// mutates its tensor unless its name says so.
#pragma once

#include <array>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <utility>
#include <vector>

#include "ember/autodiff.h"
#include "ember/tensor_ops.h"

namespace ember {

/// Tensor kinds.
struct Float {};
struct Int {};
struct Bool {};

template <typename K>
constexpr TensorKind kind_v = std::same_as<K, Float> ? TensorKind::Float
                              : std::same_as<K, Int> ? TensorKind::Int
                                                     : TensorKind::Bool;
template <typename K>
concept Numeric = std::same_as<K, Float> || std::same_as<K, Int>;

namespace detail {
// The op table's columns (ember/ops.def) as the typed API reads them: which kinds an op's method
// exists for (its dtypes column), and the kind of its result (its result column).
template <typename K>
inline constexpr bool kTakesFloat = std::same_as<K, Float>;
template <typename K>
inline constexpr bool kTakesFloatOrSigned = Numeric<K>;
template <typename K>
inline constexpr bool kTakesNumeric = Numeric<K>;
template <typename K>
inline constexpr bool kTakesBool = std::same_as<K, Bool>;
template <typename K>
inline constexpr bool kTakesAny = true;
template <typename K>
using SameResult = K;
template <typename K>
using BoolResult = Bool;
}  // namespace detail

namespace detail {
/// Checks that h has rank D and kind k; InvalidArgument "[op] ..." otherwise.
void check_typed(const TensorHandle& h, std::size_t rank, TensorKind kind, const char* op);
/// Throws InvalidArgument "[into_scalar] ..." naming the shape.
[[noreturn]] void fail_into_scalar(const Shape& shape);
/// Throws InvalidArgument "[cast] ..." naming the dtype and the tensor's kind.
[[noreturn]] void fail_cast_kind(DType dtype, TensorKind kind);
std::ostream& print_tensor(std::ostream& os, const TensorHandle& h);
template <std::size_t N>
Shape to_shape(const std::array<int64_t, N>& dims) {
  return Shape(std::vector<int64_t>(dims.begin(), dims.end()));
}
}  // namespace detail

template <std::size_t D, typename K = Float>
class Tensor {
  static_assert(D >= 1, "a Tensor has rank 1 or more");

 public:
  using Dims = std::array<int64_t, D>;

  /// An undefined tensor (no buffer); assign before use.
  Tensor() = default;
  /// Wraps an untyped handle; InvalidArgument unless it has rank D and kind K.
  explicit Tensor(TensorHandle h) : h_(std::move(h)) {
    detail::check_typed(h_, D, kind_v<K>, "Tensor");
  }

  // ---- creation ---------------------------------------------------------------------------
  static Tensor empty(const Dims& dims, const TensorCreationOptions& o) {
    return wrap(ops::empty(detail::to_shape(dims), o, kind_v<K>));
  }
  static Tensor zeros(const Dims& dims, const TensorCreationOptions& o) {
    return wrap(ops::zeros(detail::to_shape(dims), o, kind_v<K>));
  }
  static Tensor ones(const Dims& dims, const TensorCreationOptions& o) {
    return wrap(ops::ones(detail::to_shape(dims), o, kind_v<K>));
  }
  static Tensor full(const Dims& dims, Scalar value, const TensorCreationOptions& o) {
    return wrap(ops::full(detail::to_shape(dims), value, o, kind_v<K>));
  }
  /// data must have rank D; its values are converted to the kind's dtype when needed.
  static Tensor from_data(const TensorData& data, const TensorCreationOptions& o) {
    return wrap(ops::from_data(data, o, kind_v<K>));
  }
  static Tensor random(const Dims& dims, const Distribution& d, const TensorCreationOptions& o) {
    return wrap(ops::random(detail::to_shape(dims), d, o, kind_v<K>));
  }
  /// A rank-1 Float tensor of values.
  static Tensor from_floats(std::vector<double> values,
                            const TensorCreationOptions& o) requires(D == 1 &&
                                                                     std::same_as<K, Float>) {
    const auto n = static_cast<int64_t>(values.size());
    return from_data(TensorData(values, Shape{n}), o);
  }
  static Tensor from_ints(std::vector<int64_t> values,
                          const TensorCreationOptions& o) requires(D == 1 && std::same_as<K, Int>) {
    const auto n = static_cast<int64_t>(values.size());
    return from_data(TensorData(values, Shape{n}), o);
  }
  static Tensor from_bool(std::vector<bool> values,
                          const TensorCreationOptions& o) requires(D == 1 &&
                                                                   std::same_as<K, Bool>) {
    const auto n = static_cast<int64_t>(values.size());
    return from_data(TensorData(values, Shape{n}), o);
  }
  /// start, start + step, ... below end.
  static Tensor arange(int64_t start, int64_t end, const TensorCreationOptions& o,
                       int64_t step = 1) requires(D == 1 && std::same_as<K, Int>) {
    return wrap(ops::arange(start, end, step, o));
  }
  static Tensor eye(int64_t n, const TensorCreationOptions& o) requires(D == 2) {
    return wrap(ops::eye(n, o, kind_v<K>));
  }
  Tensor zeros_like() const { return wrap(ops::full_like(h_, Scalar(0))); }
  Tensor ones_like() const { return wrap(ops::full_like(h_, Scalar(1))); }
  Tensor full_like(Scalar value) const { return wrap(ops::full_like(h_, value)); }

  // ---- properties -------------------------------------------------------------------------
  const TensorHandle& handle() const { return h_; }
  const Shape& shape() const { return h_.shape(); }
  Dims dims() const {
    Dims d{};
    for (std::size_t i = 0; i < D; ++i)
      d[i] = h_.shape()[i];
    return d;
  }
  DType dtype() const { return h_.dtype(); }
  /// The device, with this tensor's autodiff flag.
  const Device& device() const { return h_.device(); }
  bool defined() const { return h_.defined(); }

  // ---- devices, data, dtypes ----------------------------------------------------------------
  Tensor to_device(const Device& d) const { return wrap(ops::to_device(h_, d)); }
  /// This tensor with autodiff on (it may then take part in a graph).
  Tensor autodiff() const { return wrap(ops::with_autodiff(h_, true)); }
  Tensor without_autodiff() const { return wrap(ops::with_autodiff(h_, false)); }
  /// The tensor's values, copied to the host (waits for the work that computes them).
  TensorData into_data() const { return ops::into_data(h_); }
  /// The single value of a one-element tensor; InvalidArgument otherwise.
  template <typename T>
  T into_scalar() const;
  /// Converts to another dtype of the same kind (InvalidArgument for another kind).
  Tensor cast(DTypeArg dtype) const;
  Tensor<D, Float> to_float() const { return Tensor<D, Float>(cast_to(TensorKind::Float)); }
  Tensor<D, Int> to_int() const { return Tensor<D, Int>(cast_to(TensorKind::Int)); }
  Tensor<D, Bool> to_bool() const { return Tensor<D, Bool>(cast_to(TensorKind::Bool)); }

  // ---- autodiff ----------------------------------------------------------------------------
  /// This tensor as a leaf that requires grad (its device must have autodiff on).
  Tensor require_grad() const requires std::same_as<K, Float> {
    return wrap(ops::require_grad(h_));
  }
  Tensor set_require_grad(bool on) const requires std::same_as<K, Float> {
    return wrap(ops::set_require_grad(h_, on));
  }
  bool is_require_grad() const { return ops::is_require_grad(h_); }
  /// The same values cut from the graph.
  Tensor detach() const { return wrap(ops::detach(h_)); }
  /// Backpropagates from this tensor (seeded with ones) and releases its graph.
  Gradients backward() const requires std::same_as<K, Float> { return ops::backward(h_); }
  /// This leaf's gradient in grads, if one reached it.
  std::optional<Tensor> grad(const Gradients& grads) const { return wrap_optional(grads.get(h_)); }
  /// Removes and returns this leaf's gradient.
  std::optional<Tensor> grad_remove(Gradients& grads) const {
    return wrap_optional(grads.remove(h_));
  }
  /// Replaces this leaf's gradient.
  void grad_replace(Gradients& grads, const Tensor& grad) const { grads.replace(h_, grad.h_); }

  // ---- arithmetic (Float and Int) -------------------------------------------------------------
  Tensor add(const Tensor& o) const requires Numeric<K> { return wrap(ops::add(h_, o.h_)); }
  Tensor sub(const Tensor& o) const requires Numeric<K> { return wrap(ops::sub(h_, o.h_)); }
  Tensor mul(const Tensor& o) const requires Numeric<K> { return wrap(ops::mul(h_, o.h_)); }
  Tensor div(const Tensor& o) const requires Numeric<K> { return wrap(ops::div(h_, o.h_)); }
  Tensor remainder(const Tensor& o) const requires Numeric<K> {
    return wrap(ops::remainder(h_, o.h_));
  }
  Tensor add_scalar(Scalar s) const requires Numeric<K> { return wrap(ops::add_scalar(h_, s)); }
  Tensor sub_scalar(Scalar s) const requires Numeric<K> { return wrap(ops::sub_scalar(h_, s)); }
  Tensor mul_scalar(Scalar s) const requires Numeric<K> { return wrap(ops::mul_scalar(h_, s)); }
  Tensor div_scalar(Scalar s) const requires Numeric<K> { return wrap(ops::div_scalar(h_, s)); }
  Tensor remainder_scalar(Scalar s) const requires Numeric<K> {
    return wrap(ops::remainder_scalar(h_, s));
  }
  Tensor powi_scalar(int64_t e) const requires Numeric<K> { return wrap(ops::powi_scalar(h_, e)); }
  Tensor clamp(Scalar lo, Scalar hi) const requires Numeric<K> {
    return wrap(ops::clamp(h_, lo, hi));
  }
  Tensor clamp_min(Scalar lo) const requires Numeric<K> { return wrap(ops::clamp_min(h_, lo)); }
  Tensor clamp_max(Scalar hi) const requires Numeric<K> { return wrap(ops::clamp_max(h_, hi)); }
  Tensor maximum(const Tensor& o) const requires Numeric<K> { return wrap(ops::maximum(h_, o.h_)); }
  Tensor minimum(const Tensor& o) const requires Numeric<K> { return wrap(ops::minimum(h_, o.h_)); }
  /// Batched matmul; batch dims broadcast.
  Tensor matmul(const Tensor& o) const requires(Numeric<K>&& D >= 2) {
    return wrap(ops::matmul(h_, o.h_));
  }

  // ---- one tensor: a method per unary op of the op table (ember/ops.def) ----------------------
  // neg, abs, sign (Float and Int), exp ... round, is_nan and is_inf (Float; the last two give
  // Bool tensors), bool_not (Bool).
#define EMBER_UNARY_OP(Enumerator, name, dtypes, result, ...)                            \
  Tensor<D, detail::result##Result<K>> name() const requires detail::kTakes##dtypes<K> { \
    return Tensor<D, detail::result##Result<K>>(ops::name(h_));                          \
  }
#include "ember/ops.def"

  // ---- float math ---------------------------------------------------------------------------
  Tensor powf(const Tensor& o) const requires std::same_as<K, Float> {
    return wrap(ops::powf(h_, o.h_));
  }
  Tensor powf_scalar(double e) const requires std::same_as<K, Float> {
    return wrap(ops::powf_scalar(h_, e));
  }

  // ---- bool ---------------------------------------------------------------------------------
  Tensor bool_and(const Tensor& o) const requires std::same_as<K, Bool> {
    return wrap(ops::bool_and(h_, o.h_));
  }
  Tensor bool_or(const Tensor& o) const requires std::same_as<K, Bool> {
    return wrap(ops::bool_or(h_, o.h_));
  }
  Tensor bool_xor(const Tensor& o) const requires std::same_as<K, Bool> {
    return wrap(ops::bool_xor(h_, o.h_));
  }

  // ---- comparisons: a pair per comparison of the op table (ember/ops.def) ------------------
#define EMBER_COMPARE_OP(Enumerator, name, scalar_name) \
  Tensor<D, Bool> name(const Tensor& o) const {         \
    return bool_of(ops::name(h_, o.h_));                \
  }                                                     \
  Tensor<D, Bool> scalar_name(Scalar s) const {         \
    return bool_of(ops::scalar_name(h_, s));            \
  }
#include "ember/ops.def"

  // ---- masking ------------------------------------------------------------------------------
  /// mask ? value : this.
  Tensor mask_where(const Tensor<D, Bool>& mask, const Tensor& value) const {
    return wrap(ops::mask_where(h_, mask.handle(), value.h_));
  }
  /// mask ? value : this.
  Tensor mask_fill(const Tensor<D, Bool>& mask, Scalar value) const {
    return wrap(ops::mask_fill(h_, mask.handle(), value));
  }

  // ---- reductions ---------------------------------------------------------------------------
  /// The sum of every element, as a one-element tensor.
  Tensor<1, K> sum() const requires Numeric<K> {
    return Tensor<1, K>(ops::sum(h_));
  }
  Tensor sum_dim(int64_t dim) const requires Numeric<K> {
    return wrap(ops::sum_dim(h_, dim));
  }
  Tensor<1, K> mean() const requires Numeric<K> {
    return Tensor<1, K>(ops::mean(h_));
  }
  Tensor mean_dim(int64_t dim) const requires Numeric<K> {
    return wrap(ops::mean_dim(h_, dim));
  }
  Tensor<1, K> prod() const requires Numeric<K> {
    return Tensor<1, K>(ops::prod(h_));
  }
  Tensor prod_dim(int64_t dim) const requires Numeric<K> {
    return wrap(ops::prod_dim(h_, dim));
  }
  Tensor<1, K> max() const {
    return Tensor<1, K>(ops::max(h_));
  }
  Tensor max_dim(int64_t dim) const {
    return wrap(ops::max_dim(h_, dim));
  }
  Tensor<1, K> min() const {
    return Tensor<1, K>(ops::min(h_));
  }
  Tensor min_dim(int64_t dim) const {
    return wrap(ops::min_dim(h_, dim));
  }
  Tensor<D, Int> argmax(int64_t dim) const requires Numeric<K> {
    return Tensor<D, Int>(ops::argmax(h_, dim));
  }
  Tensor<D, Int> argmin(int64_t dim) const requires Numeric<K> {
    return Tensor<D, Int>(ops::argmin(h_, dim));
  }
  /// Unbiased variance along dim (kept with size 1).
  Tensor var(int64_t dim) const requires std::same_as<K, Float> {
    return wrap(ops::var(h_, dim));
  }
  Tensor var_biased(int64_t dim) const requires std::same_as<K, Float> {
    return wrap(ops::var(h_, dim, 0));
  }
  Tensor<1, Bool> any() const {
    return Tensor<1, Bool>(ops::any(h_));
  }
  Tensor<D, Bool> any_dim(int64_t dim) const {
    return bool_of(ops::any_dim(h_, dim));
  }
  Tensor<1, Bool> all() const {
    return Tensor<1, Bool>(ops::all(h_));
  }
  Tensor<D, Bool> all_dim(int64_t dim) const {
    return bool_of(ops::all_dim(h_, dim));
  }

  // ---- layout -------------------------------------------------------------------------------
  /// New shape of rank D2 with the same element count; one dim may be -1.
  template <std::size_t D2>
  Tensor<D2, K> reshape(const std::array<int64_t, D2>& dims) const {
    return Tensor<D2, K>(ops::reshape(h_, ops::Dims(dims.begin(), dims.end())));
  }
  /// Swaps the last two dims.
  Tensor transpose() const {
    return wrap(ops::transpose(h_));
  }
  Tensor swap_dims(int64_t a, int64_t b) const {
    return wrap(ops::swap_dims(h_, a, b));
  }
  Tensor permute(const Dims& axes) const {
    return wrap(ops::permute(h_, ops::Dims(axes.begin(), axes.end())));
  }
  Tensor flip(const std::vector<int64_t>& axes) const {
    return wrap(ops::flip(h_, axes));
  }
  /// Broadcasts to dims (rank D2 >= D; -1 keeps a dim).
  template <std::size_t D2>
  Tensor<D2, K> expand(const std::array<int64_t, D2>& dims) const {
    return Tensor<D2, K>(ops::expand(h_, ops::Dims(dims.begin(), dims.end())));
  }
  Tensor slice(const std::vector<Slice>& slices) const {
    return wrap(ops::slice(h_, slices));
  }
  Tensor slice_assign(const std::vector<Slice>& slices, const Tensor& values) const {
    return wrap(ops::slice_assign(h_, slices, values.h_));
  }
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const {
    return wrap(ops::narrow(h_, dim, start, length));
  }
  /// Removes dim (size 1); D2 must be D - 1.
  template <std::size_t D2>
  Tensor<D2, K> squeeze(int64_t dim) const {
    static_assert(D2 + 1 == D, "squeeze removes one dim");
    return Tensor<D2, K>(ops::squeeze(h_, dim));
  }
  /// Adds leading size-1 dims up to rank D2.
  template <std::size_t D2>
  Tensor<D2, K> unsqueeze() const {
    static_assert(D2 >= D, "unsqueeze cannot lower the rank");
    return Tensor<D2, K>(ops::unsqueeze(h_, D2));
  }
  /// Inserts a size-1 dim at dim; D2 must be D + 1.
  template <std::size_t D2>
  Tensor<D2, K> unsqueeze_dim(int64_t dim) const {
    static_assert(D2 == D + 1, "unsqueeze_dim adds one dim");
    return Tensor<D2, K>(ops::unsqueeze_dim(h_, dim));
  }
  Tensor repeat_dim(int64_t dim, int64_t times) const {
    return wrap(ops::repeat_dim(h_, dim, times));
  }
  static Tensor cat(const std::vector<Tensor>& xs, int64_t dim) {
    return wrap(ops::cat(handles(xs), dim));
  }
  /// Stacks along a new dim; D2 must be D + 1.
  template <std::size_t D2>
  static Tensor<D2, K> stack(const std::vector<Tensor>& xs, int64_t dim) {
    static_assert(D2 == D + 1, "stack adds one dim");
    return Tensor<D2, K>(ops::stack(handles(xs), dim));
  }
  std::vector<Tensor> split(int64_t split_size, int64_t dim) const {
    return wrap_all(ops::split(h_, split_size, dim));
  }
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim) const {
    return wrap_all(ops::chunk(h_, chunks, dim));
  }

  // ---- indexing -----------------------------------------------------------------------------
  Tensor select(int64_t dim, const Tensor<1, Int>& indices) const {
    return wrap(ops::select(h_, dim, indices.handle()));
  }
  /// Adds values at indices along dim.
  Tensor select_assign(int64_t dim, const Tensor<1, Int>& indices, const Tensor& values) const {
    return wrap(ops::select_assign(h_, dim, indices.handle(), values.h_));
  }
  Tensor gather(int64_t dim, const Tensor<D, Int>& indices) const {
    return wrap(ops::gather(h_, dim, indices.handle()));
  }
  /// Adds values at indices along dim.
  Tensor scatter(int64_t dim, const Tensor<D, Int>& indices, const Tensor& values) const {
    return wrap(ops::scatter(h_, dim, indices.handle(), values.h_));
  }

  // ---- sort, cumulative -----------------------------------------------------------------------
  Tensor sort(int64_t dim) const requires Numeric<K> {
    return wrap(ops::sort(h_, dim));
  }
  Tensor sort_descending(int64_t dim) const requires Numeric<K> {
    return wrap(ops::sort(h_, dim, true));
  }
  std::pair<Tensor, Tensor<D, Int>> sort_with_indices(
      int64_t dim, bool descending = false) const requires Numeric<K> {
    auto [v, i] = ops::sort_with_indices(h_, dim, descending);
    return {wrap(std::move(v)), Tensor<D, Int>(std::move(i))};
  }
  Tensor<D, Int> argsort(int64_t dim, bool descending = false) const requires Numeric<K> {
    return Tensor<D, Int>(ops::argsort(h_, dim, descending));
  }
  Tensor topk(int64_t k, int64_t dim) const requires Numeric<K> {
    return wrap(ops::topk(h_, k, dim));
  }
  std::pair<Tensor, Tensor<D, Int>> topk_with_indices(int64_t k,
                                                      int64_t dim) const requires Numeric<K> {
    auto [v, i] = ops::topk_with_indices(h_, k, dim);
    return {wrap(std::move(v)), Tensor<D, Int>(std::move(i))};
  }
  Tensor cumsum(int64_t dim) const requires Numeric<K> {
    return wrap(ops::cumsum(h_, dim));
  }
  Tensor cumprod(int64_t dim) const requires Numeric<K> {
    return wrap(ops::cumprod(h_, dim));
  }
  Tensor cummax(int64_t dim) const requires Numeric<K> {
    return wrap(ops::cummax(h_, dim));
  }
  Tensor cummin(int64_t dim) const requires Numeric<K> {
    return wrap(ops::cummin(h_, dim));
  }
  /// One-hot encoding of class indices: shape + [num_classes], of kind K2.
  template <typename K2 = Float>
  Tensor<D + 1, K2> one_hot(int64_t num_classes) const requires std::same_as<K, Int> {
    return Tensor<D + 1, K2>(ops::one_hot(h_, num_classes, kind_v<K2>));
  }

 private:
  static Tensor wrap(TensorHandle h) {
    return Tensor(std::move(h));
  }
  static Tensor<D, Bool> bool_of(TensorHandle h) {
    return Tensor<D, Bool>(std::move(h));
  }
  static ops::Handles handles(const std::vector<Tensor>& xs) {
    ops::Handles hs;
    hs.reserve(xs.size());
    for (const auto& x : xs)
      hs.push_back(x.h_);
    return hs;
  }
  static std::vector<Tensor> wrap_all(ops::Handles hs) {
    std::vector<Tensor> out;
    out.reserve(hs.size());
    for (auto& h : hs)
      out.push_back(wrap(std::move(h)));
    return out;
  }
  TensorHandle cast_to(TensorKind kind) const;
  static std::optional<Tensor> wrap_optional(std::optional<TensorHandle> h) {
    if (!h) return std::nullopt;
    return wrap(std::move(*h));
  }

  TensorHandle h_;
};

template <std::size_t D, typename K>
template <typename T>
T Tensor<D, K>::into_scalar() const {
  const TensorData data = into_data();
  if (data.num_elements() != 1) detail::fail_into_scalar(data.shape());
  return data.template to_vector<T>().front();
}

template <std::size_t D, typename K>
Tensor<D, K> Tensor<D, K>::cast(DTypeArg dtype) const {
  if (kind_of(dtype) != kind_v<K>) detail::fail_cast_kind(dtype, kind_v<K>);
  return wrap(ops::cast(h_, dtype));
}

template <std::size_t D, typename K>
TensorHandle Tensor<D, K>::cast_to(TensorKind kind) const {
  if (kind == kind_v<K>) return h_;
  const DeviceSettings s = h_.device().settings();
  const DType target = kind == TensorKind::Float ? to_dtype(s.float_dtype)
                       : kind == TensorKind::Int ? to_dtype(s.int_dtype)
                                                 : DType::Bool;
  return ops::cast(h_, target);
}

// ---- operators ----------------------------------------------------------------------------------
template <std::size_t D, Numeric K>
Tensor<D, K> operator+(const Tensor<D, K>& a, const Tensor<D, K>& b) {
  return a.add(b);
}
template <std::size_t D, Numeric K>
Tensor<D, K> operator-(const Tensor<D, K>& a, const Tensor<D, K>& b) {
  return a.sub(b);
}
template <std::size_t D, Numeric K>
Tensor<D, K> operator*(const Tensor<D, K>& a, const Tensor<D, K>& b) {
  return a.mul(b);
}
template <std::size_t D, Numeric K>
Tensor<D, K> operator/(const Tensor<D, K>& a, const Tensor<D, K>& b) {
  return a.div(b);
}
template <std::size_t D, Numeric K>
Tensor<D, K> operator-(const Tensor<D, K>& a) {
  return a.neg();
}
template <std::size_t D, Numeric K>
Tensor<D, K> operator+(const Tensor<D, K>& a, Scalar s) {
  return a.add_scalar(s);
}
template <std::size_t D, Numeric K>
Tensor<D, K> operator-(const Tensor<D, K>& a, Scalar s) {
  return a.sub_scalar(s);
}
template <std::size_t D, Numeric K>
Tensor<D, K> operator*(const Tensor<D, K>& a, Scalar s) {
  return a.mul_scalar(s);
}
template <std::size_t D, Numeric K>
Tensor<D, K> operator/(const Tensor<D, K>& a, Scalar s) {
  return a.div_scalar(s);
}
template <std::size_t D, Numeric K>
Tensor<D, K> operator+(Scalar s, const Tensor<D, K>& a) {
  return a.add_scalar(s);
}
template <std::size_t D, Numeric K>
Tensor<D, K> operator*(Scalar s, const Tensor<D, K>& a) {
  return a.mul_scalar(s);
}
template <std::size_t D, Numeric K>
Tensor<D, K> operator-(Scalar s, const Tensor<D, K>& a) {
  return Tensor<D, K>(ops::rsub_scalar(a.handle(), s));
}
template <std::size_t D, Numeric K>
Tensor<D, K> operator/(Scalar s, const Tensor<D, K>& a) {
  return Tensor<D, K>(ops::rdiv_scalar(a.handle(), s));
}

/// cond ? a : b.
template <std::size_t D, typename K>
Tensor<D, K> where(const Tensor<D, Bool>& cond, const Tensor<D, K>& a, const Tensor<D, K>& b) {
  return Tensor<D, K>(ops::where(cond.handle(), a.handle(), b.handle()));
}

/// Prints shape, dtype, device and values (abbreviated like NumPy for large tensors).
template <std::size_t D, typename K>
std::ostream& operator<<(std::ostream& os, const Tensor<D, K>& t) {
  return detail::print_tensor(os, t.handle());
}

}  // namespace ember
