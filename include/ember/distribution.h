// Distributions for random tensors.
#pragma once

namespace ember {

struct Distribution {
  enum class Kind { Default, Uniform, Normal, Bernoulli };
  Kind kind = Kind::Default;
  double a = 0.0;  ///< Uniform low, Normal mean, Bernoulli probability.
  double b = 1.0;  ///< Uniform high, Normal standard deviation.

  /// Uniform on [0, 1).
  static const Distribution Default;
  /// Uniform on [low, high).
  static Distribution uniform(double low, double high) { return {Kind::Uniform, low, high}; }
  static Distribution normal(double mean, double std) { return {Kind::Normal, mean, std}; }
  /// 1 with probability p, else 0.
  static Distribution bernoulli(double p) { return {Kind::Bernoulli, p, 0.0}; }
  friend bool operator==(const Distribution&, const Distribution&) = default;
};

inline const Distribution Distribution::Default{};

}  // namespace ember
