// Distributions for random tensors. Element i of a random tensor is a pure function of the op's
// key (drawn from the device's seed, Device::seed) and i, by Philox4x32-10: the same seed gives
// the same tensor on every device (docs/random.md defines the stream). f32, f16 and bf16 tensors
// are drawn in f32 (f16 and bf16 then round to nearest), f64 tensors in f64; integer and bool
// tensors take the floor of an f64 draw (uniform(0, 10) gives 0..9 equally often).
#pragma once

namespace ember {

struct Distribution {
  enum class Kind { Default, Uniform, Normal, Bernoulli };
  Kind kind = Kind::Default;
  double a = 0.0;  ///< Uniform low, Normal mean, Bernoulli probability.
  double b = 1.0;  ///< Uniform high, Normal standard deviation.

  /// Uniform on [0, 1): 24 random bits in f32, 53 in f64.
  static const Distribution Default;
  /// Uniform on [low, high): low + (high - low) u, rounded once (which can reach high when high
  /// is large next to high - low, see docs/random.md).
  static Distribution uniform(double low, double high) { return {Kind::Uniform, low, high}; }
  /// Normal by Box-Muller: within 5.77 std of the mean in f32, 8.57 std in f64.
  static Distribution normal(double mean, double std) { return {Kind::Normal, mean, std}; }
  /// 1 with probability p, else 0.
  static Distribution bernoulli(double p) { return {Kind::Bernoulli, p, 0.0}; }
  friend bool operator==(const Distribution&, const Distribution&) = default;
};

inline const Distribution Distribution::Default{};

}  // namespace ember
