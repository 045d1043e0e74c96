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
#include "ir/random_polynomials.h"
#include "ir/scalar_math.h"

namespace ember::formula {
#include "ir/random_formulas-inl.h"
}  // namespace ember::formula

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

/// ln(x) for a positive normal float (random_formulas-inl.h's log_f32 on scalars).
inline float log_f32(float x) {
  return formula::log_f32(formula::ScalarMath<float>{}, x);
}

/// cos(2 pi u) for u in turns, |u| < 2^29 (random_formulas-inl.h's cos_turns_f32 on scalars).
inline float cos_turns_f32(float u) {
  return formula::cos_turns_f32(formula::ScalarMath<float>{}, u);
}

/// A standard normal by Box-Muller from u1 in (0, 1] (the radius) and u2 in [0, 1) (the angle).
/// The float one is the same on every device; the double one uses libm's log and cos, whose last
/// bit may differ between libraries.
inline float standard_normal(float u1, float u2) {
  return formula::standard_normal_f32(formula::ScalarMath<float>{}, u1, u2);
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
