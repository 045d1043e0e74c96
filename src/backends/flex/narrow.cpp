#include "backends/flex/narrow.h"

namespace ember::flex {

void widen(DType dtype, const std::byte* src, float* dst, int64_t n) {
  if (dtype == DType::BF16) return simd::widen(reinterpret_cast<const BFloat16*>(src), dst, n);
  simd::widen(reinterpret_cast<const Half*>(src), dst, n);
}

void narrow(DType dtype, const float* src, std::byte* dst, int64_t n) {
  if (dtype == DType::BF16) return simd::narrow(src, reinterpret_cast<BFloat16*>(dst), n);
  simd::narrow(src, reinterpret_cast<Half*>(dst), n);
}

void round_to(DType dtype, float* x, int64_t n) {
  if (dtype == DType::BF16) return simd::round_to_bfloat16(x, n);
  simd::round_to_half(x, n);
}

}  // namespace ember::flex
