// Unary, binary and comparison ops on f32 / f64 through the SIMD loops of simd.h, and on bf16 /
// f16 through the same loops in f32 chunks (narrow.h), over any views (elementwise_runs.h). Other
// dtypes and the variants simd.h does not cover fall back. Inputs the loops can read as they are —
// row-major in the output's shape, or one value — skip the walk's setup: on tiny tensors that setup
// costs more than the op.
#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "backends/flex/elementwise_runs.h"
#include "backends/flex/float_dispatch.h"
#include "backends/flex/kernels.h"
#include "backends/flex/narrow.h"
#include "backends/flex/simd.h"
#include "backends/ndarray/element.h"

namespace ember::flex {
namespace {

/// Whether a and b are one shape. Note: a loop, not Shape's ==, whose call of memcmp costs more
/// on the few dims of a tiny tensor.
bool same_dims(const Shape& a, const Shape& b) {
  if (a.rank() != b.rank()) return false;
  for (std::size_t d = 0; d < a.rank(); ++d) {
    if (a[d] != b[d]) return false;
  }
  return true;
}

/// The step (1, or 0 for one repeated value) by which a loop writing shape row-major reads
/// input as it lies, if any.
std::optional<int64_t> direct_step(const View& input, const Shape& shape) {
  if (same_dims(input.shape, shape) && input.is_contiguous()) return 1;
  if (input.num_elements() == 1) return 0;
  return std::nullopt;
}

/// out = f(x) for f(x, out, n) working on contiguous arrays of T.
template <typename T, typename F>
View map_unary(const View& x, const ir::TensorMeta& meta, const F& f) {
  if (direct_step(x, meta.shape) == 1) {
    OutputTensor out(meta);
    const T* src = x.data<T>();
    T* dst = out.data<T>();
    parallel_for(meta.shape.num_elements(), kElementGrain,
                 [&](int64_t begin, int64_t end) { f(src + begin, dst + begin, end - begin); });
    return std::move(out).view();
  }
  const ElementwiseRuns<1> runs(meta.shape, {x});
  OutputTensor out(meta);
  const T* src = runs.input(0).data<T>();
  T* dst = out.data<T>();
  runs.for_each_run([&](const auto& at, const std::array<int64_t, 1>& steps, int64_t count) {
    if (steps[0] == 1) return f(src + at[1], dst + at[0], count);
    // A broadcast value: one result, repeated.
    f(src + at[1], dst + at[0], 1);
    std::fill(dst + at[0] + 1, dst + at[0] + count, dst[at[0]]);
  });
  return std::move(out).view();
}

/// out = f(a, b) over plain arrays read with steps 1 or 0, for f(a, a_step, b, b_step, out, n).
template <typename T, typename Out, typename F>
View map_direct(const T* a, int64_t a_step, const T* b, int64_t b_step, const ir::TensorMeta& meta,
                const F& f) {
  OutputTensor out(meta);
  Out* dst = out.data<Out>();
  parallel_for(meta.shape.num_elements(), kElementGrain, [&](int64_t begin, int64_t end) {
    f(a + begin * a_step, a_step, b + begin * b_step, b_step, dst + begin, end - begin);
  });
  return std::move(out).view();
}

/// out = f(a, b) for f(a, a_step, b, b_step, out, n), Out being the output's element type.
template <typename T, typename Out, typename F>
View map_binary(const View& a, const View& b, const ir::TensorMeta& meta, const F& f) {
  const std::optional<int64_t> a_step = direct_step(a, meta.shape);
  const std::optional<int64_t> b_step = direct_step(b, meta.shape);
  if (a_step && b_step)
    return map_direct<T, Out>(a.data<T>(), *a_step, b.data<T>(), *b_step, meta, f);
  const ElementwiseRuns<2> runs(meta.shape, {a, b});
  OutputTensor out(meta);
  const T* lhs = runs.input(0).data<T>();
  const T* rhs = runs.input(1).data<T>();
  Out* dst = out.data<Out>();
  runs.for_each_run([&](const auto& at, const std::array<int64_t, 2>& steps, int64_t count) {
    f(lhs + at[1], steps[0], rhs + at[2], steps[1], dst + at[0], count);
  });
  return std::move(out).view();
}

/// A one-element view holding value (the scalar operand of BinaryScalar and CompareScalar).
template <typename T>
View scalar_view(T value) {
  OutputTensor out({Shape{1}, dtype_of<T>()});
  *out.data<T>() = value;
  return std::move(out).view();
}

/// map_binary of x and the scalar value (the left operand when scalar_lhs). A directly readable x
/// reads value from here; otherwise value becomes a one-element tensor.
template <typename T, typename Out, typename F>
View map_scalar(const View& x, T value, bool scalar_lhs, const ir::TensorMeta& meta, const F& f) {
  if (const std::optional<int64_t> step = direct_step(x, meta.shape)) {
    if (scalar_lhs) return map_direct<T, Out>(&value, 0, x.data<T>(), *step, meta, f);
    return map_direct<T, Out>(x.data<T>(), *step, &value, 0, meta, f);
  }
  const View value_view = scalar_view(value);
  if (scalar_lhs) return map_binary<T, Out>(value_view, x, meta, f);
  return map_binary<T, Out>(x, value_view, meta, f);
}

}  // namespace

std::optional<View> run(const ir::Unary& op, Views in, Outputs out) {
  if (!is_kernel_float(in[0].dtype) || !simd::has_unary(op.op)) return std::nullopt;
  return visit_kernel_float(in[0].dtype, [&]<typename T>() {
    return map_unary<T>(in[0], out[0], unary_in_f32<T>([&](const auto* x, auto* y, int64_t n) {
                          simd::unary(op.op, x, y, n);
                        }));
  });
}

std::optional<View> run(const ir::Binary& op, Views in, Outputs out) {
  if (!is_kernel_float(in[0].dtype) || !simd::has_binary(op.op)) return std::nullopt;
  return visit_kernel_float(in[0].dtype, [&]<typename T>() {
    return map_binary<T, T>(in[0], in[1], out[0], binary_in_f32<T, T>([&](auto... args) {
                              simd::binary(op.op, args...);
                            }));
  });
}

std::optional<View> run(const ir::BinaryScalar& op, Views in, Outputs out) {
  if (!is_kernel_float(in[0].dtype) || !simd::has_binary(op.op)) return std::nullopt;
  return visit_kernel_float(in[0].dtype, [&]<typename T>() {
    // A float tensor's scalar operand is rounded to its dtype first, as ndarray's.
    return map_scalar<T, T>(
        in[0], ndarray::scalar_as<T>(op.value), op.scalar_lhs, out[0],
        binary_in_f32<T, T>([&](auto... args) { simd::binary(op.op, args...); }));
  });
}

std::optional<View> run(const ir::Compare& op, Views in, Outputs out) {
  if (!is_kernel_float(in[0].dtype)) return std::nullopt;
  return visit_kernel_float(in[0].dtype, [&]<typename T>() {
    return map_binary<T, bool>(in[0], in[1], out[0], binary_in_f32<T, bool>([&](auto... args) {
                                 simd::compare(op.op, args...);
                               }));
  });
}

std::optional<View> run(const ir::CompareScalar& op, Views in, Outputs out) {
  if (!is_kernel_float(in[0].dtype)) return std::nullopt;
  return visit_kernel_float(in[0].dtype, [&]<typename T>() {
    // A float tensor compares with the value rounded to its dtype, as ndarray's.
    return map_scalar<T, bool>(
        in[0], ndarray::scalar_as<T>(op.value), /*scalar_lhs=*/false, out[0],
        binary_in_f32<T, bool>([&](auto... args) { simd::compare(op.op, args...); }));
  });
}

}  // namespace ember::flex
