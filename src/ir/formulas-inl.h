// The formulas of formulas.h (read it first), without includes or a namespace: formulas.h includes
// this file into ember::formula, and a target compiled once per instruction set includes it into a
// namespace of each set (backends/flex/simd_math-inl.h), so that the formulas are compiled with
// that set's instructions. It needs <numbers>, <utility>, ember/error.h, ir/activation_constants.h
// and ir/ops.h, included before, and an enclosing namespace inside ember.
//
// A value made inside a formula is moved at its last use (never in a call where another argument
// names it: the order in which arguments are evaluated is unspecified), so that a target whose
// values hold registers (the x86 compiler's) frees them at once.
// NOLINTBEGIN(llvm-header-guard): included once per enclosing namespace, by design.

template <class M>
using Value = typename M::Value;
template <class M>
using Mask = typename M::Mask;

/// 1 / (1 + e) where x >= 0, else e / (1 + e), with e = exp(-|x|): no exp of a positive value.
template <class M>
Value<M> sigmoid(const M& m, Value<M> x) {
  auto e = m.exp(m.neg(m.abs(x)));
  auto sum = m.add(m.constant(1), e);
  auto positive = m.div(m.constant(1), sum);
  auto negative = m.div(std::move(e), std::move(sum));
  return m.select(m.ge(x, m.constant(0)), std::move(positive), std::move(negative));
}

/// log1p(exp(beta x)) / beta, or x where beta x exceeds the threshold (PyTorch's softplus). exp's
/// argument is clamped into [lowest, threshold], where it neither overflows nor leaves a SIMD
/// target's range, on the lanes whose value is not used. beta x is written twice rather than kept
/// (a compiler computes it once where that is cheaper).
template <class M>
Value<M> softplus(const M& m, Value<M> x, Value<M> beta) {
  const auto threshold = m.constant(ir::kSoftplusThreshold);
  auto bounded = m.max(m.min(m.mul(beta, x), threshold), m.lowest());
  auto soft = m.div(m.log1p(m.exp(std::move(bounded))), beta);
  return m.select(m.gt(m.mul(beta, x), threshold), x, std::move(soft));
}

/// x where x > 0, else alpha expm1(argument): ELU and SELU (argument x), CELU (x / alpha).
template <class M>
Value<M> exponential_unit(const M& m, Value<M> x, Value<M> alpha, Value<M> argument) {
  return m.select(m.gt(x, m.constant(0)), x, m.mul(std::move(alpha), m.expm1(std::move(argument))));
}

/// relu6(x + 3) / 6, written so that NaN propagates: 0 up to -3, 1 from 3, x / 6 + 1/2 between.
template <class M>
Value<M> hard_sigmoid(const M& m, Value<M> x) {
  auto linear = m.add(m.div(x, m.constant(6)), m.constant(0.5));
  return m.select(m.le(x, m.constant(-3)), m.constant(0),
                  m.select(m.ge(x, m.constant(3)), m.constant(1), std::move(linear)));
}

/// x / 2 (1 + tanh(sqrt(2 / pi) (x + c x^3))).
template <class M>
Value<M> gelu_tanh(const M& m, Value<M> x) {
  auto cube = m.mul(m.mul(m.mul(m.constant(ir::kGeluTanhCubic), x), x), x);
  auto t = m.tanh(m.mul(m.constant(ir::kSqrtTwoOverPi), m.add(x, std::move(cube))));
  return m.mul(m.mul(m.constant(0.5), x), m.add(m.constant(1), std::move(t)));
}

/// x / 2 (1 + erf(x / sqrt 2)), written x / 2 erfc(-x / sqrt 2) so that the tiny outputs of large
/// negative x keep their precision.
template <class M>
Value<M> gelu(const M& m, Value<M> x) {
  auto z = m.mul(x, m.constant(-std::numbers::sqrt2 / 2));
  return m.mul(m.mul(m.constant(0.5), x), m.erfc(std::move(z)));
}

/// The coefficients of erfc_rational, as floats: the approximation is fit for f32 only.
struct ErfcRational {
  /// From w = kMaxW on, exp(poly(t) - w^2) is of less than -104 (poly(t) is about -1.2): erfc is
  /// 0, as erfc(w) rounds to 0 in f32 from w = 10.05 on.
  static constexpr float kMaxW = 11.0f;
  /// poly(t) by Horner's scheme: kPolyStart, then poly = poly t + c for each of kPoly in order.
  static constexpr float kPolyStart = 0.17087277f;
  static constexpr float kPoly[9] = {-0.82215223f, 1.48851587f,  -1.13520398f,
                                     0.27886807f,  -0.18628806f, 0.09678418f,
                                     0.37409196f,  1.00002368f,  -1.26551223f};
};

/// erfc(z) by Numerical Recipes' erfcc, for targets without an erfc of their own (relative error
/// below 1.2e-7 everywhere, so fit for f32 only): with w = |z|, erfc(w) = t exp(poly(t) - w^2),
/// t = 1 / (1 + w / 2), and erfc(-w) = 2 - erfc(w). From w = kMaxW on (infinity included) the exp
/// is of less than -104, exactly 0 on every target (Highway's Exp and the JIT's flush it).
template <class M>
Value<M> erfc_rational(const M& m, Value<M> z) {
  using C = ErfcRational;
  auto w = m.abs(z);
  w = m.select(m.gt(w, m.constant(C::kMaxW)), m.constant(C::kMaxW), w);
  auto t = m.div(m.constant(1), m.mul_add(m.constant(0.5), w, m.constant(1)));
  auto poly = m.constant(C::kPolyStart);
  for (const float c : C::kPoly)
    poly = m.mul_add(std::move(poly), t, m.constant(c));
  auto w_squared = m.mul(w, w);
  w = m.constant(0);  // dead: its registers go
  auto erfc_w = m.mul(std::move(t), m.exp(m.sub(std::move(poly), std::move(w_squared))));
  auto erfc_z = m.select(m.lt(z, m.constant(0)), m.sub(m.constant(2), erfc_w), erfc_w);
  // NaN comes out NaN on every target: a GPU compiler may assume no NaN and take the clamp above
  // for min, whose NaN operand NVIDIA's drops (erf(NaN) was 1 through vulkan and wgpu on an
  // H100, select and all); is_nan reads the bits where a compiler could fold x != x.
  return m.select(m.is_nan(z), z, std::move(erfc_z));
}

/// erf(x) for targets without an erf of their own, from erfc_rational (so fit for f32 only):
/// below |x| = kErfSeriesEnd its Taylor series, 2 / sqrt(pi) (x - x^3 / 3 + x^5 / 10 - ...) to
/// the x^11 term (what it leaves is below 3e-8 of erf there), where 1 - erfc(x) would lose
/// erf's relative precision near 0; 1 - erfc_rational(x) from there on (erfc of at most 0.48
/// there: relative error below 2.5e-7), which also gives erf(-w) = -erf(w), erf(+-inf) = +-1 and
/// NaN for NaN.
struct ErfSeries {
  static constexpr double kEnd = 0.5;
  /// The coefficients of x^11, x^9, ..., x: 2 / sqrt(pi) (-1)^n / (n! (2n + 1)), by Horner's
  /// scheme in x^2 from kStart on.
  static constexpr double kStart = -2 * std::numbers::inv_sqrtpi / 1320;
  static constexpr double kTerms[5] = {
      2 * std::numbers::inv_sqrtpi / 216, -2 * std::numbers::inv_sqrtpi / 42,
      2 * std::numbers::inv_sqrtpi / 10, -2 * std::numbers::inv_sqrtpi / 3,
      2 * std::numbers::inv_sqrtpi};
};

template <class M>
Value<M> erf_from_erfc(const M& m, Value<M> x) {
  auto x_squared = m.mul(x, x);
  auto series = m.constant(ErfSeries::kStart);
  for (const double c : ErfSeries::kTerms)
    series = m.mul_add(std::move(series), x_squared, m.constant(c));
  series = m.mul(std::move(series), x);
  auto far = m.sub(m.constant(1), erfc_rational(m, x));
  return m.select(m.lt(m.abs(x), m.constant(ErfSeries::kEnd)), std::move(series), std::move(far));
}

/// Whether integral v is odd: half of it (exact) is not integral.
template <class M>
Mask<M> is_odd_integral(const M& m, const Value<M>& v) {
  auto half = m.mul(v, m.constant(0.5));
  return m.ne(m.floor(half), half);
}

/// x rounded half to even from floor and ceil, for targets whose own rounding cannot be trusted
/// (lavapipe's roundEven of a double truncates halves on an AVX2 host: -1.5 gave -1). A positive
/// x rounds up from floor(x) where the fraction is over 1/2, or 1/2 with floor(x) odd; a negative
/// x down from ceil(x) alike. A zero result is floor's or ceil's own, never computed: it keeps x's
/// sign (round(-0.4) is -0) where a select on "result == 0" would not survive a compiler free to
/// ignore signed zeros (llvmpipe's). NaN stays NaN and an infinity itself (its fraction is NaN).
template <class M>
Value<M> round_half_even_from_floor(const M& m, Value<M> x) {
  auto below = m.floor(x);
  auto up_fraction = m.sub(x, below);
  auto up = m.mask_or(m.gt(up_fraction, m.constant(0.5)),
                      m.mask_and(m.eq(up_fraction, m.constant(0.5)), is_odd_integral(m, below)));
  auto positive = m.select(std::move(up), m.add(below, m.constant(1)), below);
  auto above = m.ceil(x);
  auto down_fraction = m.sub(above, x);
  auto down =
      m.mask_or(m.gt(down_fraction, m.constant(0.5)),
                m.mask_and(m.eq(down_fraction, m.constant(0.5)), is_odd_integral(m, above)));
  auto negative = m.select(std::move(down), m.sub(above, m.constant(1)), above);
  return m.select(m.lt(x, m.constant(0)), std::move(negative), std::move(positive));
}

/// Activation kOp of x. parameter() gives the op's parameter as a value (alpha, or Softplus's
/// beta: the op table's parameter column); it is called only by the ops that have one. A loop over
/// many elements takes this form, the op fixed at compile time (ir::visit_op).
template <ir::ActivationOp kOp, class M, class Parameter>
Value<M> activation(const M& m, Value<M> x, const Parameter& parameter) {
  using ir::ActivationOp;
  switch (kOp) {
    case ActivationOp::Relu:
      return m.select(m.lt(x, m.constant(0)), m.constant(0), x);  // NaN and -0 kept
    case ActivationOp::LeakyRelu:
      return m.select(m.gt(x, m.constant(0)), x, m.mul(parameter(), x));
    case ActivationOp::Gelu:
      return gelu(m, x);
    case ActivationOp::GeluTanh:
      return gelu_tanh(m, x);
    case ActivationOp::Sigmoid:
      return sigmoid(m, x);
    case ActivationOp::LogSigmoid:
      return m.neg(softplus(m, m.neg(x), m.constant(1)));
    case ActivationOp::Silu:
      return m.mul(x, sigmoid(m, x));
    case ActivationOp::Softplus:
      return softplus(m, x, parameter());
    case ActivationOp::Mish:
      return m.mul(x, m.tanh(softplus(m, x, m.constant(1))));
    case ActivationOp::Elu:
      return exponential_unit(m, x, parameter(), x);
    case ActivationOp::Selu:
      return m.mul(m.constant(ir::kSeluScale),
                   exponential_unit(m, x, m.constant(ir::kSeluAlpha), x));
    case ActivationOp::Celu: {
      const auto alpha = parameter();
      auto argument = m.max(m.div(x, alpha), m.lowest());
      return exponential_unit(m, x, alpha, std::move(argument));
    }
    case ActivationOp::HardSigmoid:
      return hard_sigmoid(m, x);
    case ActivationOp::HardSwish:
      return m.mul(x, hard_sigmoid(m, x));
  }
  __builtin_unreachable();  // every enumerator returns above
}

/// Activation op of x, the op chosen at run time; op is an enumerator (ir::infer checks that of
/// every op it admits).
template <class M, class Parameter>
Value<M> activation(const M& m, ir::ActivationOp op, Value<M> x, const Parameter& parameter) {
  return ir::visit_op(op, [&](auto kind) { return activation<kind()>(m, x, parameter); });
}

/// Whether op maps a float to a float of its dtype (the others give Bool, or take Bool).
constexpr bool is_float_unary(ir::UnaryOp op) {
  return op != ir::UnaryOp::Not && op != ir::UnaryOp::IsNan && op != ir::UnaryOp::IsInf;
}

/// -1, 0 or 1 as x is negative, zero or positive; NaN stays NaN.
template <class M>
Value<M> sign(const M& m, Value<M> x) {
  const auto zero = m.constant(0);
  auto sign = m.select(m.gt(x, zero), m.constant(1), m.select(m.lt(x, zero), m.constant(-1), zero));
  return m.select(m.is_nan(x), x, std::move(sign));
}

/// Float unary op kOp of x; kOp is_float_unary. A loop over many elements takes this form, the op
/// fixed at compile time (ir::visit_op).
template <ir::UnaryOp kOp, class M>
Value<M> unary(const M& m, Value<M> x) {
  using ir::UnaryOp;
  switch (kOp) {
    case UnaryOp::Neg:
      return m.neg(x);
    case UnaryOp::Abs:
      return m.abs(x);
    case UnaryOp::Sign:
      return sign(m, x);
    case UnaryOp::Exp:
      return m.exp(x);
    case UnaryOp::Log:
      return m.log(x);
    case UnaryOp::Log1p:
      return m.log1p(x);
    case UnaryOp::Sqrt:
      return m.sqrt(x);
    case UnaryOp::Sin:
      return m.sin(x);
    case UnaryOp::Cos:
      return m.cos(x);
    case UnaryOp::Tan:
      return m.tan(x);
    case UnaryOp::Tanh:
      return m.tanh(x);
    case UnaryOp::Erf:
      return m.erf(x);
    case UnaryOp::Logit:
      return m.log(m.div(x, m.sub(m.constant(1), x)));
    case UnaryOp::Recip:
      return m.div(m.constant(1), x);
    case UnaryOp::Floor:
      return m.floor(x);
    case UnaryOp::Ceil:
      return m.ceil(x);
    case UnaryOp::Round:
      return m.round(x);
    case UnaryOp::Not:
    case UnaryOp::IsNan:
    case UnaryOp::IsInf:
      break;
  }
  throw InvalidArgument("[" + ir::name(ir::Op{ir::Unary{kOp}}) + "] is not a float op");
}

/// Float unary op of x, the op chosen at run time.
template <class M>
Value<M> unary(const M& m, ir::UnaryOp op, Value<M> x) {
  return ir::visit_op(op, [&](auto kind) { return unary<kind()>(m, std::move(x)); });
}

/// The float remainder with the divisor's sign (Python's %, torch.remainder): fmod, exact, moved
/// into the divisor's range.
template <class M>
Value<M> remainder(const M& m, Value<M> a, Value<M> b) {
  const auto zero = m.constant(0);
  auto r = m.fmod(a, b);
  auto moved = m.add(r, b);
  auto below = m.select(m.gt(b, zero), moved, r);             // r < 0 < b
  auto above = m.select(m.lt(b, zero), std::move(moved), r);  // b < 0 < r
  return m.select(m.lt(r, zero), std::move(below), m.select(m.gt(r, zero), std::move(above), r));
}

/// The larger (smaller) of a and b, NaN on either side winning, a's first.
template <class M>
Value<M> extreme(const M& m, Value<M> a, Value<M> b, bool maximum) {
  auto best = maximum ? m.max(a, b) : m.min(a, b);
  return m.select(m.is_nan(a), a, m.select(m.is_nan(b), b, std::move(best)));
}

/// Whether op maps two floats to a float of their dtype (And, Or and Xor take Bool).
constexpr bool is_float_binary(ir::BinaryOp op) {
  return op != ir::BinaryOp::And && op != ir::BinaryOp::Or && op != ir::BinaryOp::Xor;
}

/// Float binary op kOp of a and b; kOp is_float_binary. A loop over many elements takes this
/// form, the op fixed at compile time (ir::visit_op).
template <ir::BinaryOp kOp, class M>
Value<M> binary(const M& m, Value<M> a, Value<M> b) {
  using ir::BinaryOp;
  switch (kOp) {
    case BinaryOp::Add:
      return m.add(a, b);
    case BinaryOp::Sub:
      return m.sub(a, b);
    case BinaryOp::Mul:
      return m.mul(a, b);
    case BinaryOp::Div:
      return m.div(a, b);
    case BinaryOp::Rem:
      return remainder(m, a, b);
    case BinaryOp::Pow:
      return m.pow(a, b);
    case BinaryOp::Maximum:
      return extreme(m, a, b, true);
    case BinaryOp::Minimum:
      return extreme(m, a, b, false);
    case BinaryOp::And:
    case BinaryOp::Or:
    case BinaryOp::Xor:
      break;
  }
  throw InvalidArgument("[" + ir::name(ir::Op{ir::Binary{kOp}}) + "] is not a float op");
}

/// Float binary op of a and b, the op chosen at run time.
template <class M>
Value<M> binary(const M& m, ir::BinaryOp op, Value<M> a, Value<M> b) {
  return ir::visit_op(op, [&](auto kind) { return binary<kind()>(m, std::move(a), std::move(b)); });
}

// ---- predicates: ops whose results (or arguments) are Bool ----------------------------------
// A Bool tensor is a target's Mask: a comparison gives one, where and mask_fill take one. A
// target stores and loads masks in its Bool dtype's layout (a byte 0 / 1 in memory).

/// Comparison kOp of a and b: C++'s, NaN unequal to everything (NotEqual true where either is NaN).
/// a and b may be of two types where the target compares such pairs (ndarray: an integer tensor
/// with a scalar).
template <ir::CompareOp kOp, class M, class A, class B>
auto compare(const M& m, A a, B b) {
  using ir::CompareOp;
  if constexpr (kOp == CompareOp::Equal) {
    return m.eq(std::move(a), std::move(b));
  } else if constexpr (kOp == CompareOp::NotEqual) {
    return m.ne(std::move(a), std::move(b));
  } else if constexpr (kOp == CompareOp::Greater) {
    return m.gt(std::move(a), std::move(b));
  } else if constexpr (kOp == CompareOp::GreaterEqual) {
    return m.ge(std::move(a), std::move(b));
  } else if constexpr (kOp == CompareOp::Lower) {
    return m.lt(std::move(a), std::move(b));
  } else {
    static_assert(kOp == CompareOp::LowerEqual, "a comparison of the op table has no formula");
    return m.le(std::move(a), std::move(b));
  }
}

/// Comparison op of a and b, the op chosen at run time.
template <class M, class A, class B>
auto compare(const M& m, ir::CompareOp op, A a, B b) {
  return ir::visit_op(op,
                      [&](auto kind) { return compare<kind()>(m, std::move(a), std::move(b)); });
}

/// The Bool result of unary op kOp on a float x (IsNan, IsInf); !is_float_unary(kOp), kOp != Not.
template <ir::UnaryOp kOp, class M>
Mask<M> float_predicate(const M& m, Value<M> x) {
  if constexpr (kOp == ir::UnaryOp::IsNan) {
    return m.is_nan(x);
  } else if constexpr (kOp == ir::UnaryOp::IsInf) {
    return m.eq(m.abs(std::move(x)), m.constant(std::numeric_limits<double>::infinity()));
  } else {
    throw InvalidArgument("[" + ir::name(ir::Op{ir::Unary{kOp}}) + "] is not a float predicate");
  }
}

/// Float predicate op of x (IsNan, IsInf), the op chosen at run time.
template <class M>
Mask<M> float_predicate(const M& m, ir::UnaryOp op, Value<M> x) {
  return ir::visit_op(op, [&](auto kind) { return float_predicate<kind()>(m, std::move(x)); });
}

/// Logical op kOp of two Bool values: And, Or, Xor (!is_float_binary(kOp)).
template <ir::BinaryOp kOp, class M>
Mask<M> logical(const M& m, Mask<M> a, Mask<M> b) {
  if constexpr (kOp == ir::BinaryOp::And) {
    return m.mask_and(std::move(a), std::move(b));
  } else if constexpr (kOp == ir::BinaryOp::Or) {
    return m.mask_or(std::move(a), std::move(b));
  } else if constexpr (kOp == ir::BinaryOp::Xor) {
    return m.mask_xor(std::move(a), std::move(b));
  } else {
    throw InvalidArgument("[" + ir::name(ir::Op{ir::Binary{kOp}}) + "] is not a Bool op");
  }
}

/// Logical op of a and b, the op chosen at run time.
template <class M>
Mask<M> logical(const M& m, ir::BinaryOp op, Mask<M> a, Mask<M> b) {
  return ir::visit_op(op,
                      [&](auto kind) { return logical<kind()>(m, std::move(a), std::move(b)); });
}

/// bool_not(a): the Bool op Not.
template <class M>
Mask<M> bool_not(const M& m, Mask<M> a) {
  return m.mask_not(std::move(a));
}

/// where(condition, a, b): a where condition holds, else b.
template <class M>
Value<M> where(const M& m, Mask<M> condition, Value<M> a, Value<M> b) {
  return m.select(std::move(condition), std::move(a), std::move(b));
}

/// mask_fill(x, mask, value): value where mask holds, else x.
template <class M>
Value<M> mask_fill(const M& m, Value<M> x, Mask<M> mask, Value<M> value) {
  return m.select(std::move(mask), std::move(value), std::move(x));
}

/// A float cast to Bool: true where x != 0, NaN included (C++'s bool(x)).
template <class M>
Mask<M> to_bool(const M& m, Value<M> x) {
  return m.ne(std::move(x), m.constant(0));
}

/// A Bool cast to a float: 1 or 0.
template <class M>
Value<M> from_bool(const M& m, Mask<M> b) {
  return m.select(std::move(b), m.constant(1), m.constant(0));
}

// NOLINTEND(llvm-header-guard)
