// The f32 normal of ir/random.h's stream (Box-Muller through log_f32 and cos_turns_f32) written
// once, over the targets of the formulas (ir/formulas.h): ir/random.h evaluates it on scalars
// (ScalarMath), flex's vector draws on Highway vectors (simd_random.cpp), and the CUDA backend
// writes it out as its random kernel's source (CudaC). Without includes or a namespace, as
// formulas-inl.h: ir/random.h includes it into ember::formula, and simd_random.cpp into a
// namespace of each instruction set. It needs <array>, <cstddef>, <numbers> and
// ir/random_polynomials.h, included before, and an enclosing namespace inside ember.
//
// The formulas use only correctly rounded f32 operations (add, sub, mul, mul_add, sqrt, floor,
// round to integer, frexp, comparisons and selects), never a math library's log or cos, whose
// last bits differ between libraries and GPUs: every IEEE-754 target with a fused multiply-add
// gives the same bits. Every product that is added to something is a mul_add or exact. Both sides
// of a select are computed (a vector computes both anyway): the scalar target gets the same bits
// as with a branch.
// NOLINTBEGIN(llvm-header-guard): included once per enclosing namespace, by design.

/// c[0] + x (c[1] + x (c[2] + ...)) by Horner's rule in fused multiply-adds.
template <class M, std::size_t N>
typename M::Value random_polynomial(const M& m, const typename M::Value& x,
                                    const std::array<float, N>& c) {
  auto sum = m.constant(c[N - 1]);
  for (std::size_t k = N - 1; k-- > 0;)
    sum = m.mul_add(sum, x, m.constant(c[k]));
  return sum;
}

/// ln(x) for a positive normal float. Max error 1 ulp (tests/ir/random_test.cpp).
template <class M>
typename M::Value log_f32(const M& m, const typename M::Value& x) {
  namespace p = ::ember::ir::random_polynomials;
  // x = fraction 2^exponent, fraction in [1/2, 1): exact. Below sqrt(1/2) the fraction doubles,
  // into [sqrt(1/2), sqrt(2)): the polynomial's range, where f = mantissa - 1 is exact (Sterbenz).
  auto fraction = m.frexp_fraction(x);
  auto exponent = m.frexp_exponent(x);
  auto below = m.lt(fraction, m.constant(std::numbers::sqrt2_v<float> / 2));
  auto mantissa = m.select(below, m.add(fraction, fraction), fraction);
  auto e = m.select(below, m.sub(exponent, m.constant(1)), exponent);
  auto f = m.sub(mantissa, m.constant(1));
  auto log_mantissa = m.mul_add(m.mul(f, f), random_polynomial(m, f, p::kLogCoefficients), f);
  return m.mul_add(e, m.constant(p::kLn2High), m.mul_add(e, m.constant(p::kLn2Low), log_mantissa));
}

/// cos(2 pi u) for u in turns, |u| < 2^29. Max error 1 ulp (tests/ir/random_test.cpp).
template <class M>
typename M::Value cos_turns_f32(const M& m, const typename M::Value& u) {
  namespace p = ::ember::ir::random_polynomials;
  // Turns reduce exactly, without pi: t = u minus the nearest quarter turn (ties to even).
  auto quarters = m.round(m.mul(m.constant(4), u));
  auto t = m.sub(u, m.mul(m.constant(0.25), quarters));  // exact, |t| <= 1/8
  auto x = m.mul(t, t);
  // The quadrant, quarters mod 4 in [0, 4): each step exact on integers below 2^31.
  auto quadrant = m.sub(quarters, m.mul(m.constant(4), m.floor(m.mul(m.constant(0.25), quarters))));
  auto cos = m.mul_add(x, random_polynomial(m, x, p::kCosTurnsCoefficients), m.constant(1));
  // sin(2 pi t) with 2 pi in two parts: its f32 rounding alone would be an error of 0.47 x 2^-24.
  auto tail =
      m.mul_add(x, random_polynomial(m, x, p::kSinTurnsCoefficients), m.constant(p::kTwoPiLow));
  auto sin = m.mul_add(t, m.constant(p::kTwoPiHigh), m.mul(t, tail));
  auto odd = m.mask_or(m.eq(quadrant, m.constant(1)), m.eq(quadrant, m.constant(3)));
  auto value = m.select(odd, sin, cos);
  auto negate = m.mask_or(m.eq(quadrant, m.constant(1)), m.eq(quadrant, m.constant(2)));
  return m.select(negate, m.neg(value), value);
}

/// A standard normal by Box-Muller from the radius in (0, 1] and the angle in [0, 1).
template <class M>
typename M::Value standard_normal_f32(const M& m, const typename M::Value& radius,
                                      const typename M::Value& angle) {
  return m.mul(m.sqrt(m.mul(m.constant(-2), log_f32(m, radius))), cos_turns_f32(m, angle));
}

// NOLINTEND(llvm-header-guard)
