// Unary, binary and comparison ops on f32 / f64 through the SIMD loops of simd.h, over any
// views (elementwise_runs.h). Other dtypes and the variants simd.h does not cover fall back.
#include <algorithm>
#include <array>

#include "backends/flex/elementwise_runs.h"
#include "backends/flex/float_dispatch.h"
#include "backends/flex/kernels.h"
#include "backends/flex/simd.h"
#include "backends/ndarray/element.h"

namespace ember::flex {
namespace {

/// out = f(x) for f(x, out, n) working on contiguous arrays of T.
template <typename T, typename F>
View map_unary(const View& x, const ir::TensorMeta& meta, const F& f) {
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
  return out.view();
}

/// out = f(a, b) for f(a, a_step, b, b_step, out, n), Out being the output's element type.
template <typename T, typename Out, typename F>
View map_binary(const View& a, const View& b, const ir::TensorMeta& meta, const F& f) {
  const ElementwiseRuns<2> runs(meta.shape, {a, b});
  OutputTensor out(meta);
  const T* lhs = runs.input(0).data<T>();
  const T* rhs = runs.input(1).data<T>();
  Out* dst = out.data<Out>();
  runs.for_each_run([&](const auto& at, const std::array<int64_t, 2>& steps, int64_t count) {
    f(lhs + at[1], steps[0], rhs + at[2], steps[1], dst + at[0], count);
  });
  return out.view();
}

/// A one-element view holding value (the scalar operand of BinaryScalar and CompareScalar).
template <typename T>
View scalar_view(T value) {
  OutputTensor out({Shape{1}, dtype_of<T>()});
  *out.data<T>() = value;
  return out.view();
}

}  // namespace

std::optional<View> run(const ir::Unary& op, Views in, Outputs out) {
  if (!is_simd_float(in[0].dtype) || !simd::has_unary(op.op)) return std::nullopt;
  return visit_simd_float(in[0].dtype, [&]<typename T>() {
    return map_unary<T>(in[0], out[0],
                        [&](const T* x, T* y, int64_t n) { simd::unary(op.op, x, y, n); });
  });
}

std::optional<View> run(const ir::Binary& op, Views in, Outputs out) {
  if (!is_simd_float(in[0].dtype) || !simd::has_binary(op.op)) return std::nullopt;
  return visit_simd_float(in[0].dtype, [&]<typename T>() {
    return map_binary<T, T>(in[0], in[1], out[0],
                            [&](auto... args) { simd::binary(op.op, args...); });
  });
}

std::optional<View> run(const ir::BinaryScalar& op, Views in, Outputs out) {
  if (!is_simd_float(in[0].dtype) || !simd::has_binary(op.op)) return std::nullopt;
  return visit_simd_float(in[0].dtype, [&]<typename T>() {
    const View value = scalar_view(ndarray::scalar_as<T>(op.value));
    const View& lhs = op.scalar_lhs ? value : in[0];
    const View& rhs = op.scalar_lhs ? in[0] : value;
    return map_binary<T, T>(lhs, rhs, out[0], [&](auto... args) { simd::binary(op.op, args...); });
  });
}

std::optional<View> run(const ir::Compare& op, Views in, Outputs out) {
  if (!is_simd_float(in[0].dtype)) return std::nullopt;
  return visit_simd_float(in[0].dtype, [&]<typename T>() {
    return map_binary<T, bool>(in[0], in[1], out[0],
                               [&](auto... args) { simd::compare(op.op, args...); });
  });
}

std::optional<View> run(const ir::CompareScalar& op, Views in, Outputs out) {
  if (!is_simd_float(in[0].dtype)) return std::nullopt;
  return visit_simd_float(in[0].dtype, [&]<typename T>() {
    // A float tensor compares with the value rounded to its dtype, as ndarray's.
    const View value = scalar_view(ndarray::scalar_as<T>(op.value));
    return map_binary<T, bool>(in[0], value, out[0],
                               [&](auto... args) { simd::compare(op.op, args...); });
  });
}

}  // namespace ember::flex
