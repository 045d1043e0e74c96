// How a param is first filled (torch.nn.init's formulas), drawn from the device's random stream,
// so Device::seed makes a model's initial weights reproducible.
#pragma once

#include <cstdint>
#include <vector>

#include "ember/tensor.h"

namespace ember::nn {

/// Which fan Kaiming initialization preserves the variance of.
enum class FanMode { FanIn, FanOut };

/// A rule to fill a new param. fan_in and fan_out follow PyTorch: for a weight [out, in, *k],
/// fan_in = in * prod(k), fan_out = out * prod(k); a rank-1 tensor has fan_in = fan_out = size.
struct Initializer {
  enum class Kind {
    Constant,
    Uniform,
    Normal,
    KaimingUniform,
    KaimingNormal,
    XavierUniform,
    XavierNormal
  };
  Kind kind = Kind::Constant;
  double a = 0.0;                 ///< Constant: the value; Uniform: low; Normal: mean
  double b = 0.0;                 ///< Uniform: high; Normal: standard deviation
  double gain = 1.0;              ///< Kaiming and Xavier
  FanMode mode = FanMode::FanIn;  ///< Kaiming

  static Initializer constant(double value) { return {Kind::Constant, value}; }
  static Initializer zeros() { return constant(0.0); }
  static Initializer ones() { return constant(1.0); }
  static Initializer uniform(double low, double high) { return {Kind::Uniform, low, high}; }
  static Initializer normal(double mean, double std) { return {Kind::Normal, mean, std}; }
  /// U(-bound, bound), bound = gain * sqrt(3 / fan). gain sqrt(2) suits ReLU; PyTorch's default
  /// for Linear and Conv weights is gain sqrt(1/3) (a = sqrt(5)), i.e. bound 1 / sqrt(fan_in).
  static Initializer kaiming_uniform(double gain = 1.4142135623730951,
                                     FanMode mode = FanMode::FanIn) {
    return {Kind::KaimingUniform, 0.0, 0.0, gain, mode};
  }
  /// N(0, std), std = gain / sqrt(fan).
  static Initializer kaiming_normal(double gain = 1.4142135623730951,
                                    FanMode mode = FanMode::FanIn) {
    return {Kind::KaimingNormal, 0.0, 0.0, gain, mode};
  }
  /// U(-bound, bound), bound = gain * sqrt(6 / (fan_in + fan_out)).
  static Initializer xavier_uniform(double gain = 1.0) {
    return {Kind::XavierUniform, 0.0, 0.0, gain};
  }
  /// N(0, std), std = gain * sqrt(2 / (fan_in + fan_out)).
  static Initializer xavier_normal(double gain = 1.0) {
    return {Kind::XavierNormal, 0.0, 0.0, gain};
  }

  /// A new Float tensor of shape on options' device (its default float dtype unless options
  /// say otherwise). InvalidArgument "[init] ..." for an empty shape with a fan-based kind, or
  /// for Uniform with low > high / Normal with std < 0.
  TensorHandle make(const Shape& shape, const TensorCreationOptions& options) const;
  template <std::size_t D>
  Tensor<D> make(const typename Tensor<D>::Dims& dims, const TensorCreationOptions& options) const {
    return Tensor<D>(make(Shape(std::vector<int64_t>(dims.begin(), dims.end())), options));
  }
};

/// fan_in and fan_out of a weight of shape, as PyTorch computes them.
struct Fans {
  int64_t in;
  int64_t out;
};
Fans fans_of(const Shape& shape);

/// PyTorch's default for Linear/Conv weights: kaiming_uniform with a = sqrt(5).
inline Initializer default_weight_init() {
  return Initializer::kaiming_uniform(0.5773502691896258);
}
/// PyTorch's default for Linear/Conv biases: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) of the weight.
Initializer default_bias_init(int64_t weight_fan_in);

}  // namespace ember::nn
