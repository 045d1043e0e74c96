// Highway kernels of simd.h: activations, in the element type, by their formulas (ir/formulas.h)
// on the Highway target (simd_math-inl.h). NaN and infinite lanes take the reference kernel.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "backends/flex/simd_activation.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "backends/flex/reference.h"
#include "backends/flex/simd.h"
#include "backends/flex/simd_map-inl.h"
#include "backends/flex/simd_math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace ember::flex::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using ir::ActivationOp;

/// Beyond this magnitude x^3 could overflow in GELU's tanh form: such lanes take the reference.
template <typename T>
constexpr T kCubeSafe = sizeof(T) == 4 ? T(simd::kGeluTanhCubeSafe) : T(1e100);

template <typename T>
void Activation(const ir::Activation& op, const T* x, T* out, int64_t n) {
  const T parameter = static_cast<T>(ir::parameter_of(op));
  const auto reference = [&](T v) { return reference_activation(op, v); };
  // GELU's tanh form cubes x: beyond kCubeSafe the lanes take the reference.
  const T bound = op.op == ActivationOp::GeluTanh ? kCubeSafe<T> : hwy::HighestValue<T>();
  ir::visit_op(op.op, [&](auto kind) {
    const auto vec = [&](auto d, auto v) HWY_ATTR {
      const HwyMath<decltype(d)> m{d};
      return formula::activation<kind()>(m, v, [&] { return m.constant(parameter); });
    };
    MapChecked(x, out, n, -bound, bound, vec, reference);
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

bool has_activation(const ir::Activation& op, bool /*is_f64*/) {
  // Every enumerator, no default: a new activation does not compile until it says.
  switch (op.op) {
    case ir::ActivationOp::Celu:
      return op.alpha != 0.0;  // alpha 0 divides by zero: left to the reference
    case ir::ActivationOp::Gelu:
    case ir::ActivationOp::Relu:
    case ir::ActivationOp::LeakyRelu:
    case ir::ActivationOp::GeluTanh:
    case ir::ActivationOp::Sigmoid:
    case ir::ActivationOp::LogSigmoid:
    case ir::ActivationOp::Silu:
    case ir::ActivationOp::Softplus:
    case ir::ActivationOp::Mish:
    case ir::ActivationOp::Elu:
    case ir::ActivationOp::Selu:
    case ir::ActivationOp::HardSigmoid:
    case ir::ActivationOp::HardSwish:
      return true;
  }
  return false;  // not an enumerator
}

void activation(const ir::Activation& op, const float* x, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ActivationF32)(op, x, out, n);
}
void activation(const ir::Activation& op, const double* x, double* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ActivationF64)(op, x, out, n);
}

}  // namespace ember::flex::simd
#endif  // HWY_ONCE
