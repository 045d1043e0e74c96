// bf16 and f16 in the f32 SIMD loops: a loop over f32 arrays becomes one over narrow arrays that
// widens its inputs a chunk at a time into buffers that stay in L1, runs the f32 loop there and
// narrows the results (round to nearest even, the Cast op's bits) straight into the output. Memory
// sees only the 16-bit values, half the traffic of converting whole tensors to f32 and back, and
// every f32 kernel serves the narrow dtypes unchanged.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "backends/flex/simd.h"
#include "ember/dtype.h"
#include "ember/float16.h"

namespace ember::flex {

template <typename T>
concept NarrowFloat = std::same_as<T, BFloat16> || std::same_as<T, Half>;

/// Elements per chunk: 2 KiB of f32 per buffer, so a loop's three buffers stay in L1 while each
/// call of the f32 loop still covers enough vectors to hide its dispatch.
inline constexpr int64_t kNarrowChunk = 512;

/// An operand of a chunk stepping by step (1, or 0 for one repeated value), as f32: widened into
/// buffer (one value when step is 0).
template <NarrowFloat T>
const float* widened(const T* x, int64_t step, int64_t count, float* buffer) {
  simd::widen(x, buffer, step == 0 ? 1 : count);
  return buffer;
}

/// f(x, y, n) of the f32 loop over arrays of T: f itself for f32 and f64, and for bf16 and f16,
/// f run chunk by chunk on the widened values.
template <typename T, typename F>
auto unary_in_f32(F f) {
  if constexpr (!NarrowFloat<T>) {
    return f;
  } else {
    return [f](const T* x, T* y, int64_t n) {
      float buffer[kNarrowChunk];
      for (int64_t i = 0; i < n; i += kNarrowChunk) {
        const int64_t count = std::min(kNarrowChunk, n - i);
        simd::widen(x + i, buffer, count);
        f(static_cast<const float*>(buffer), buffer, count);
        simd::narrow(buffer, y + i, count);
      }
    };
  }
}

/// f(a, a_step, b, b_step, out, n) of a binary f32 loop (steps 1, or 0 for a repeated value) over
/// arrays of T, as unary_in_f32; Out is T, or a type the loop writes directly (bool).
template <typename T, typename Out, typename F>
auto binary_in_f32(F f) {
  if constexpr (!NarrowFloat<T>) {
    return f;
  } else {
    return [f](const T* a, int64_t a_step, const T* b, int64_t b_step, Out* out, int64_t n) {
      float lhs[kNarrowChunk];
      float rhs[kNarrowChunk];
      float result[kNarrowChunk];
      for (int64_t i = 0; i < n; i += kNarrowChunk) {
        const int64_t count = std::min(kNarrowChunk, n - i);
        const float* x = widened(a + i * a_step, a_step, count, lhs);
        const float* y = widened(b + i * b_step, b_step, count, rhs);
        if constexpr (std::same_as<Out, T>) {
          f(x, a_step, y, b_step, result, count);
          simd::narrow(result, out + i, count);
        } else {
          f(x, a_step, y, b_step, out + i, count);
        }
      }
    };
  }
}

/// dst[i] = float(src[i]) for n elements of the narrow dtype at src (bf16 or f16).
void widen(DType dtype, const std::byte* src, float* dst, int64_t n);
/// dst[i] = src[i] narrowed to dtype (bf16 or f16), n elements.
void narrow(DType dtype, const float* src, std::byte* dst, int64_t n);
/// x[i] rounded to dtype (bf16 or f16) and widened back, in place: a value computed in f32 as a
/// narrow op gives it.
void round_to(DType dtype, float* x, int64_t n);

}  // namespace ember::flex
