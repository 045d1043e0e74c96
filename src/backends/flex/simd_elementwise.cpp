// Highway kernels of simd.h: unary, binary and comparison loops, and the streaming copy.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/flex/simd_elementwise.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <hwy/contrib/math/math-inl.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "backends/flex/simd.h"
#include "backends/flex/simd_map-inl.h"
#include "backends/flex/simd_math-inl.h"
#include "ir/formulas.h"
#include "ir/scalar_math.h"

HWY_BEFORE_NAMESPACE();
namespace ember::flex::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using ir::BinaryOp;
using ir::CompareOp;
using ir::UnaryOp;

/// op by its formula on the Highway target; the lanes its primitives cannot compute, by the
/// reference formula.
template <typename T>
void Unary(UnaryOp op, const T* x, T* out, int64_t n) {
  ir::visit_op(op, [&](auto kind) {
    constexpr UnaryOp kOp = decltype(kind)::value;
    MapFormula(
        x, out, n, [](const auto& m, auto v) HWY_ATTR { return formula::unary<kOp>(m, v); },
        [](T v) { return ::ember::formula::unary<kOp>(::ember::formula::ScalarMath<T>{}, v); });
  });
}

/// op by its formula on the Highway target, a[i * a_step] op b[i * b_step]; the lanes its
/// primitives cannot compute, and the elements after the last whole vector, by the reference
/// formula.
template <typename T>
void Binary(BinaryOp op, const T* a, int64_t a_step, const T* b, int64_t b_step, T* out,
            int64_t n) {
  ir::visit_op(op, [&](auto kind) {
    constexpr BinaryOp kOp = decltype(kind)::value;
    if constexpr (formula::is_float_binary(kOp)) {
      const auto scalar = [&](int64_t i) {
        return ::ember::formula::binary<kOp>(::ember::formula::ScalarMath<T>{}, a[i * a_step],
                                             b[i * b_step]);
      };
      Zip(
          a, a_step, b, b_step, n,
          [&](auto d, int64_t i, auto va, auto vb) HWY_ATTR {
            const HwyMath<decltype(d)> m(d);
            hn::StoreU(formula::binary<kOp>(m, va, vb), d, out + i);
            if (hn::AllTrue(d, m.valid)) return;
            uint8_t valid[(HWY_MAX_BYTES / sizeof(T) + 7) / 8];
            hn::StoreMaskBits(d, m.valid, valid);
            for (std::size_t j = 0; j < hn::Lanes(d); ++j) {
              if (((valid[j / 8] >> (j % 8)) & 1) == 0)
                out[i + j] = scalar(i + static_cast<int64_t>(j));
            }
          },
          [&](int64_t i) { out[i] = scalar(i); });
    }
  });
}

/// a op b by formula::compare, vector by vector (HwyMath), the remainder by the reference.
template <typename T>
void Compare(CompareOp op, const T* a, int64_t a_step, const T* b, int64_t b_step, bool* out,
             int64_t n) {
  ir::visit_op(op, [&](auto kind) {
    constexpr CompareOp kOp = kind();
    Zip(
        a, a_step, b, b_step, n,
        [&](auto d, int64_t i, auto va, auto vb) HWY_ATTR {
          uint8_t bits[kMaxLanes<T> / 8 + 1];
          const size_t lanes = hn::Lanes(d);
          hn::StoreMaskBits(d, formula::compare<kOp>(HwyMath(d), va, vb), bits);
          for (size_t j = 0; j < lanes; ++j)
            out[i + static_cast<int64_t>(j)] = ((bits[j / 8] >> (j % 8)) & 1) != 0;
        },
        [&](int64_t i) {
          out[i] = ::ember::formula::compare<kOp>(::ember::formula::ScalarMath<T>{}, a[i * a_step],
                                                  b[i * b_step]);
        });
  });
}

void StreamCopy(const std::byte* src, std::byte* dst, int64_t bytes) {
  const hn::ScalableTag<uint8_t> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  // Streaming stores need vector-aligned addresses: the bytes before the first one, and after
  // the last whole vector, are copied plainly.
  const auto offset = static_cast<int64_t>(reinterpret_cast<uintptr_t>(dst) % lanes);
  int64_t i = std::min(bytes, offset == 0 ? 0 : lanes - offset);
  std::memcpy(dst, src, static_cast<std::size_t>(i));
  const auto* from = reinterpret_cast<const uint8_t*>(src);
  auto* to = reinterpret_cast<uint8_t*>(dst);
  for (; i + lanes <= bytes; i += lanes)
    hn::Stream(hn::LoadU(d, from + i), d, to + i);
  std::memcpy(dst + i, src + i, static_cast<std::size_t>(bytes - i));
}

void StreamFill(std::byte* dst, int64_t bytes, const std::byte* pattern) {
  const hn::ScalableTag<uint8_t> d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto* from = reinterpret_cast<const uint8_t*>(pattern);
  auto* to = reinterpret_cast<uint8_t*>(dst);
  // Byte i of dst is pattern's byte at dst + i's address modulo kFillPattern (a multiple of any
  // vector's bytes): a vector-aligned store takes the pattern's bytes from that offset on.
  const auto phase = [&](int64_t i) {
    return static_cast<int64_t>(reinterpret_cast<uintptr_t>(to + i) %
                                static_cast<uintptr_t>(simd::kFillPattern));
  };
  const auto offset = static_cast<int64_t>(reinterpret_cast<uintptr_t>(dst) % lanes);
  int64_t i = std::min(bytes, offset == 0 ? 0 : lanes - offset);
  for (int64_t k = 0; k < i; ++k)
    to[k] = from[phase(k)];
  for (; i + lanes <= bytes; i += lanes)
    hn::Stream(hn::LoadU(d, from + phase(i)), d, to + i);
  for (; i < bytes; ++i)
    to[i] = from[phase(i)];
}

bool FusedMultiplyAdd() {
  return HWY_NATIVE_FMA != 0;
}

void UnaryF32(UnaryOp op, const float* x, float* out, int64_t n) {
  Unary(op, x, out, n);
}
void UnaryF64(UnaryOp op, const double* x, double* out, int64_t n) {
  Unary(op, x, out, n);
}
void BinaryF32(BinaryOp op, const float* a, int64_t as, const float* b, int64_t bs, float* out,
               int64_t n) {
  Binary(op, a, as, b, bs, out, n);
}
void BinaryF64(BinaryOp op, const double* a, int64_t as, const double* b, int64_t bs, double* out,
               int64_t n) {
  Binary(op, a, as, b, bs, out, n);
}
void CompareF32(CompareOp op, const float* a, int64_t as, const float* b, int64_t bs, bool* out,
                int64_t n) {
  Compare(op, a, as, b, bs, out, n);
}
void CompareF64(CompareOp op, const double* a, int64_t as, const double* b, int64_t bs, bool* out,
                int64_t n) {
  Compare(op, a, as, b, bs, out, n);
}

}  // namespace ember::flex::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::flex::simd {

using ir::BinaryOp;
using ir::UnaryOp;

HWY_EXPORT(UnaryF32);
HWY_EXPORT(UnaryF64);
HWY_EXPORT(BinaryF32);
HWY_EXPORT(BinaryF64);
HWY_EXPORT(CompareF32);
HWY_EXPORT(CompareF64);
HWY_EXPORT(StreamCopy);
HWY_EXPORT(StreamFill);
HWY_EXPORT(FusedMultiplyAdd);

bool multiply_add_is_fused() {
  return HWY_DYNAMIC_DISPATCH(FusedMultiplyAdd)();
}

bool has_unary(ir::UnaryOp op) {
  return formula::is_float_unary(op);  // every primitive has a Highway form
}

void unary(ir::UnaryOp op, const float* x, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(UnaryF32)(op, x, out, n);
}
void unary(ir::UnaryOp op, const double* x, double* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(UnaryF64)(op, x, out, n);
}

bool has_binary(ir::BinaryOp op) {
  return formula::is_float_binary(op);  // every primitive has a Highway form
}

void binary(ir::BinaryOp op, const float* a, int64_t a_step, const float* b, int64_t b_step,
            float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(BinaryF32)(op, a, a_step, b, b_step, out, n);
}
void binary(ir::BinaryOp op, const double* a, int64_t a_step, const double* b, int64_t b_step,
            double* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(BinaryF64)(op, a, a_step, b, b_step, out, n);
}

void compare(ir::CompareOp op, const float* a, int64_t a_step, const float* b, int64_t b_step,
             bool* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(CompareF32)(op, a, a_step, b, b_step, out, n);
}
void compare(ir::CompareOp op, const double* a, int64_t a_step, const double* b, int64_t b_step,
             bool* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(CompareF64)(op, a, a_step, b, b_step, out, n);
}

void stream_copy(const std::byte* src, std::byte* dst, int64_t bytes) {
  HWY_DYNAMIC_DISPATCH(StreamCopy)(src, dst, bytes);
}
void stream_fill(std::byte* dst, int64_t bytes, const std::byte* pattern) {
  HWY_DYNAMIC_DISPATCH(StreamFill)(dst, bytes, pattern);
}

}  // namespace ember::flex::simd
#endif  // HWY_ONCE
