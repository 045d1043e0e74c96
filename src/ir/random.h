// Counter-based random numbers: element i of a random tensor is a pure function of the op's
// key and i. Every backend evaluates the same functions, so the same seed gives the same
// tensor on every device, and generation parallelizes without shared state.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>

#include "ember/distribution.h"

namespace ember::ir {

/// SplitMix64 finalizer: a bijective mix of 64 bits.
constexpr uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// 64 random bits for element index of the stream key.
constexpr uint64_t random_bits(uint64_t key, uint64_t index) {
  return mix64(key ^ mix64(index));
}

/// Uniform on [0, 1) with 53 random bits.
inline double uniform01(uint64_t key, uint64_t index) {
  return static_cast<double>(random_bits(key, index) >> 11) * 0x1.0p-53;
}

/// Element index of a tensor drawn from d with stream key.
inline double random_value(const Distribution& d, uint64_t key, uint64_t index) {
  switch (d.kind) {
    case Distribution::Kind::Default:
      return uniform01(key, index);
    case Distribution::Kind::Uniform:
      return d.a + (d.b - d.a) * uniform01(key, index);
    case Distribution::Kind::Normal: {
      // Box-Muller on two draws of their own sub-streams; 1 - u keeps the log finite.
      const double u1 = 1.0 - uniform01(key, 2 * index);
      const double u2 = uniform01(key, 2 * index + 1);
      return d.a + d.b * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
    }
    case Distribution::Kind::Bernoulli:
      return uniform01(key, index) < d.a ? 1.0 : 0.0;
  }
  return 0.0;
}

}  // namespace ember::ir
