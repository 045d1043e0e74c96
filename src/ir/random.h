// Random tensors from a counter-based generator: element i of a random op is a pure function of
// the op's key and i, computed by the functions below on every backend, so the same seed gives
// the same tensor on every device and generation parallelizes without shared state.
// docs/random.md defines the stream, for a backend that implements it in a kernel of its own.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <type_traits>

#include "ember/distribution.h"
#include "ir/philox.h"

namespace ember::ir {

/// SplitMix64 finalizer: a bijective mix of 64 bits. DeviceContext derives op keys with it.
constexpr uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// The 128 random bits of element index of the stream key: Philox4x32-10 of the counter
/// {low32(index), high32(index), 0, 0} under the key {low32(key), high32(key)}.
inline std::array<uint32_t, 4> random_words(uint64_t key, uint64_t index) {
  const auto low = [](uint64_t x) { return static_cast<uint32_t>(x); };
  const auto high = [](uint64_t x) { return static_cast<uint32_t>(x >> 32); };
  return philox4x32_10({low(index), high(index), 0, 0}, {low(key), high(key)});
}

/// Uniform on [0, 1) from two words: a float takes the top 24 bits of hi, a double all of hi and
/// the top 21 bits of lo, so a float draw is the double draw of the same words truncated.
template <typename T>
T uniform01(uint32_t hi, uint32_t lo) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  if constexpr (std::is_same_v<T, float>) {
    return static_cast<float>(hi >> 8) * 0x1p-24f;
  } else {
    return static_cast<double>((uint64_t{hi} << 21) | (lo >> 11)) * 0x1p-53;
  }
}

namespace detail {

// The f32 polynomials of log_f32 and cos_turns_f32, fitted by tools/fit_random_polynomials.py
// (minimax relative error, coefficients rounded to f32). Their own relative errors: 0.10 x 2^-24
// (log), 0.18 x 2^-24 (cos), 0.12 x 2^-24 (sin).

/// ln(1 + f) = f + f^2 (c0 + c1 f + ... + c8 f^8) for 1 + f in [sqrt(1/2), sqrt(2)).
inline constexpr std::array<float, 9> kLogCoefficients{
    -0x1.fffff8p-2f, 0x1.55555p-2f,   -0x1.000426p-2f, 0x1.99a3fap-3f, -0x1.54275cp-3f,
    0x1.22712p-3f,   -0x1.0f375ep-3f, 0x1.084b12p-3f,  -0x1.38368ep-4f};
/// cos(2 pi t) = 1 + x (c0 + c1 x + c2 x^2 + c3 x^3) for x = t^2, |t| <= 1/8.
inline constexpr std::array<float, 4> kCosTurnsCoefficients{-0x1.3bd3ccp+4f, 0x1.03c1dep+6f,
                                                            -0x1.55c5ep+6f, 0x1.d9d57ep+5f};
/// sin(2 pi t) = 2 pi t + t x (c0 + c1 x + c2 x^2) for x = t^2, |t| <= 1/8.
inline constexpr std::array<float, 3> kSinTurnsCoefficients{-0x1.4abbbep+5f, 0x1.466004p+6f,
                                                            -0x1.2dc84cp+6f};
// ln 2 and 2 pi as sums of two floats, to twice f32's precision.
inline constexpr float kLn2High = 0x1.62e43p-1f;
inline constexpr float kLn2Low = -0x1.05c61p-29f;
inline constexpr float kTwoPiHigh = 0x1.921fb6p+2f;
inline constexpr float kTwoPiLow = -0x1.777a5cp-23f;

/// c[0] + x (c[1] + x (c[2] + ...)) by Horner's rule in fused multiply-adds.
template <std::size_t N>
float polynomial(float x, const std::array<float, N>& c) {
  float sum = c[N - 1];
  for (std::size_t k = N - 1; k-- > 0;)
    sum = std::fma(sum, x, c[k]);
  return sum;
}

/// sin(2 pi t) for |t| <= 1/8 and x = t^2, with 2 pi in two parts: its f32 rounding alone would
/// be an error of 0.47 x 2^-24.
inline float sin_turns_f32(float t, float x) {
  const float tail = std::fma(x, polynomial(x, kSinTurnsCoefficients), kTwoPiLow);
  return std::fma(t, kTwoPiHigh, t * tail);
}

}  // namespace detail

// log_f32 and cos_turns_f32 use only correctly rounded f32 operations (+, -, *, sqrt, fma,
// frexp, round to integer), never libm's log or cos, whose last bits differ between libraries
// and GPUs: every IEEE-754 target with FMA gives the same bits. Every product that is added to
// something is an explicit fma or exact, so contracting a * b + c (nvcc does) changes nothing.

/// ln(x) for a positive normal float. Max error 1 ulp (tests/ir/random_test.cpp).
inline float log_f32(float x) {
  int exponent = 0;
  float m = std::frexp(x, &exponent);  // x = m 2^exponent, m in [1/2, 1): exact
  if (m < std::numbers::sqrt2_v<float> / 2) {
    m *= 2;
    --exponent;
  }
  // m in [sqrt(1/2), sqrt(2)): the polynomial's range, and f = m - 1 is exact (Sterbenz).
  const float f = m - 1.0f;
  const float log_m = std::fma(f * f, detail::polynomial(f, detail::kLogCoefficients), f);
  const auto e = static_cast<float>(exponent);
  return std::fma(e, detail::kLn2High, std::fma(e, detail::kLn2Low, log_m));
}

/// cos(2 pi u) for u in turns, |u| < 2^29. Max error 1 ulp (tests/ir/random_test.cpp).
inline float cos_turns_f32(float u) {
  // Turns reduce exactly, without pi: t = u minus the nearest quarter turn (ties to even).
  const float quarters = std::nearbyint(4.0f * u);
  const float t = u - 0.25f * quarters;  // exact, |t| <= 1/8
  const float x = t * t;
  const int quadrant = static_cast<int>(quarters) & 3;
  const float value = quadrant % 2 == 0
                          ? std::fma(x, detail::polynomial(x, detail::kCosTurnsCoefficients), 1.0f)
                          : detail::sin_turns_f32(t, x);
  return quadrant == 1 || quadrant == 2 ? -value : value;
}

/// A standard normal by Box-Muller from u1 in (0, 1] (the radius) and u2 in [0, 1) (the angle).
/// The float one is the same on every device; the double one uses libm's log and cos, whose last
/// bit may differ between libraries.
inline float standard_normal(float u1, float u2) {
  return std::sqrt(-2.0f * log_f32(u1)) * cos_turns_f32(u2);
}
inline double standard_normal(double u1, double u2) {
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

/// fma(scale, x, offset): a uniform draw from x = u, a normal one from x = z, with the
/// distribution's parameters rounded to T once (high - low taken in double).
template <typename T>
struct AffineDraw {
  T scale;
  T offset;
};
template <typename T>
AffineDraw<T> affine_draw(const Distribution& d) {
  if (d.kind == Distribution::Kind::Normal) return {static_cast<T>(d.b), static_cast<T>(d.a)};
  return {static_cast<T>(d.b - d.a), static_cast<T>(d.a)};
}

/// Bernoulli(p) in f32 without doubles, for a kernel: uniform01<float>(hi, lo) < p exactly when
/// (hi >> 8) < bernoulli_threshold_f32(p), since u = k 2^-24 < p for the integer k exactly when
/// k < ceil(p 2^24) (the product is exact). 0 for p <= 0 or NaN, 2^24 (always) for p >= 1.
inline uint32_t bernoulli_threshold_f32(double p) {
  return p > 0 ? static_cast<uint32_t>(std::min(std::ceil(p * 0x1p24), 0x1p24)) : 0;
}

/// Element index of a tensor drawn from d with the stream key, computed in T (float or double).
/// Uniform draws and the normal's radius use words 0 and 1, the normal's angle words 2 and 3.
template <typename T>
T random_value(const Distribution& d, uint64_t key, uint64_t index) {
  const std::array<uint32_t, 4> words = random_words(key, index);
  const T u = uniform01<T>(words[0], words[1]);
  switch (d.kind) {
    case Distribution::Kind::Default:
      return u;
    case Distribution::Kind::Uniform: {
      const AffineDraw<T> affine = affine_draw<T>(d);
      return std::fma(affine.scale, u, affine.offset);
    }
    case Distribution::Kind::Normal: {
      // 1 - u is exact and in (0, 1]: the log is finite.
      const T z = standard_normal(T{1} - u, uniform01<T>(words[2], words[3]));
      const AffineDraw<T> affine = affine_draw<T>(d);
      return std::fma(affine.scale, z, affine.offset);
    }
    case Distribution::Kind::Bernoulli:
      return u < d.a ? T{1} : T{0};
  }
  return T{0};
}

/// The precision a tensor of element type E is drawn in: float for f32, f16 and bf16 (native on
/// every GPU), double for f64 and for the integer and bool dtypes (whose values need more bits).
template <typename E>
using random_compute_t =
    std::conditional_t<std::is_same_v<E, double> || std::is_integral_v<E>, double, float>;

/// Element index of a random tensor of element type E, before conversion to E. Integer and bool
/// dtypes take the floor: uniform on [0, 10) gives 0..9 equally often, Bernoulli's 0 and 1 stay.
template <typename E>
random_compute_t<E> random_element(const Distribution& d, uint64_t key, uint64_t index) {
  const auto value = random_value<random_compute_t<E>>(d, key, index);
  return std::is_integral_v<E> ? std::floor(value) : value;
}

}  // namespace ember::ir
