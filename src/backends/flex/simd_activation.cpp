// Highway kernels of simd.h: activations, in the element type, by their formulas (ir/formulas.h)
// on the Highway target (simd_math-inl.h); the lanes its primitives cannot compute (NaN,
// infinities, exp beyond 88, ...) by the reference formulas.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/flex/simd_activation.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "backends/flex/simd.h"
#include "backends/flex/simd_math-inl.h"
#include "ir/formulas.h"
#include "ir/scalar_math.h"

HWY_BEFORE_NAMESPACE();
namespace ember::flex::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// op by its formula on the Highway target; the lanes its primitives cannot compute, by the
/// reference formula.
template <typename T>
void Activation(const ir::Activation& op, const T* x, T* out, int64_t n) {
  const T parameter = static_cast<T>(ir::parameter_of(op));
  ir::visit_op(op.op, [&](auto kind) {
    constexpr ir::ActivationOp kOp = decltype(kind)::value;
    MapFormula(
        x, out, n,
        [parameter](const auto& m, auto v) HWY_ATTR {
          return formula::activation<kOp>(m, v, [&] { return m.constant(parameter); });
        },
        [parameter](T v) {
          const auto scalar_parameter = [parameter] { return parameter; };
          return ::ember::formula::activation<kOp>(::ember::formula::ScalarMath<T>{}, v,
                                                   scalar_parameter);
        });
  });
}

void ActivationF32(const ir::Activation& op, const float* x, float* out, int64_t n) {
  Activation(op, x, out, n);
}
void ActivationF64(const ir::Activation& op, const double* x, double* out, int64_t n) {
  Activation(op, x, out, n);
}

}  // namespace ember::flex::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ember::flex::simd {

HWY_EXPORT(ActivationF32);
HWY_EXPORT(ActivationF64);

void activation(const ir::Activation& op, const float* x, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ActivationF32)(op, x, out, n);
}
void activation(const ir::Activation& op, const double* x, double* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ActivationF64)(op, x, out, n);
}

}  // namespace ember::flex::simd
#endif  // HWY_ONCE
