// The shader backends' random tensors (vulkan's and wgpu's random_kernel), written once: which
// ops the kernels take, their parameter words, and the parts of the kernel that come from
// ir/random.h (its polynomials' coefficients and constants, as exact literals of the language).
// Element i is ir::random_element<float>(distribution, key, i): Philox4x32-10 of the counter
// {i, 0, 0, 0} under the op's key, word 0's top 24 bits as u. Default draws are ir/random.h's
// bit for bit; Bernoulli compares u's 24 bits with the probability's threshold in integers,
// exactly as the double comparison; uniform draws are one fma, bit for bit where the device
// fuses it (lavapipe rounds the product and the sum apart: an ulp off); the normal's Box-Muller
// runs log_f32 and cos_turns_f32 of ir/random.h in fused multiply-adds, its square root the
// device's.
// Parameter words: n, key low, key high, kind (0 default, 1 uniform, 2 normal, 3 Bernoulli),
// scale and shift (f32 bits: uniform's high - low and low, normal's std and mean), threshold
// (Bernoulli: 1 where u < p, u = k 2^-24, that is where k < ceil(p 2^24)).
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <numbers>
#include <string>
#include <vector>

#include "codegen/shader_target.h"
#include "ir/ops.h"
#include "ir/random.h"

namespace ember::shader {

/// Whether the random kernels take op on a device whose kernels bind at most max_binding bytes:
/// f32, fewer than 2^31 elements (the counter's low word is the index), within one binding.
inline bool random_kernels_take(const ir::Random& op, uint64_t max_binding) {
  const auto n = static_cast<uint64_t>(op.shape.num_elements());
  return op.dtype == DType::F32 && n < (uint64_t{1} << 31) && n * 4 <= max_binding;
}

/// The kernels' parameter words for op (random_kernels_take holds).
inline std::vector<uint32_t> random_parameters(const ir::Random& op) {
  const Distribution& d = op.distribution;
  const auto bits = [](double v) { return std::bit_cast<uint32_t>(static_cast<float>(v)); };
  uint32_t kind = 0;
  uint32_t scale = 0;
  uint32_t shift = 0;
  uint32_t threshold = 0;
  switch (d.kind) {
    case Distribution::Kind::Default:
      break;
    case Distribution::Kind::Uniform:
      kind = 1;
      scale = bits(d.b - d.a);
      shift = bits(d.a);
      break;
    case Distribution::Kind::Normal:
      kind = 2;
      scale = bits(d.b);
      shift = bits(d.a);
      break;
    case Distribution::Kind::Bernoulli:
      kind = 3;
      threshold = static_cast<uint32_t>(std::clamp(std::ceil(d.a * 0x1p24), 0.0, 0x1p24));
      break;
  }
  return {static_cast<uint32_t>(op.shape.num_elements()),
          static_cast<uint32_t>(op.key),
          static_cast<uint32_t>(op.key >> 32),
          kind,
          scale,
          shift,
          threshold};
}

/// ir/random.h's constants and polynomials in a shading language whose f32 literal of bits is
/// literal(bits) (both spell fma alike): each polynomial by Horner's rule in fused multiply-adds
/// over the variable named, as ir::detail::polynomial computes it.
struct RandomFormulas {
  std::function<std::string(uint32_t)> literal;

  std::string constant(float v) const { return literal(std::bit_cast<uint32_t>(v)); }
  template <std::size_t N>
  std::string horner(const std::array<float, N>& c, const std::string& x) const {
    std::string text = constant(c[N - 1]);
    for (std::size_t k = N - 1; k-- > 0;)
      text = "fma(" + text + ", " + x + ", " + constant(c[k]) + ")";
    return text;
  }
  std::string sqrt_half() const { return constant(std::numbers::sqrt2_v<float> / 2); }
  std::string log_polynomial(const std::string& f) const {
    return horner(ir::detail::kLogCoefficients, f);
  }
  std::string cos_polynomial(const std::string& x) const {
    return horner(ir::detail::kCosTurnsCoefficients, x);
  }
  std::string sin_polynomial(const std::string& x) const {
    return horner(ir::detail::kSinTurnsCoefficients, x);
  }
  std::string ln2_high() const { return constant(ir::detail::kLn2High); }
  std::string ln2_low() const { return constant(ir::detail::kLn2Low); }
  std::string two_pi_high() const { return constant(ir::detail::kTwoPiHigh); }
  std::string two_pi_low() const { return constant(ir::detail::kTwoPiLow); }
};

}  // namespace ember::shader
