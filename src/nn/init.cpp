#include "ember/nn/init.h"

#include <cmath>
#include <sstream>

#include "ember/error.h"

namespace ember::nn {
namespace {

[[noreturn]] void fail(const std::string& message) {
  throw InvalidArgument("[init] " + message);
}

TensorHandle symmetric_uniform(const Shape& shape, double bound,
                               const TensorCreationOptions& options) {
  return ops::random(shape, Distribution::uniform(-bound, bound), options, TensorKind::Float);
}
TensorHandle centered_normal(const Shape& shape, double std, const TensorCreationOptions& options) {
  return ops::random(shape, Distribution::normal(0.0, std), options, TensorKind::Float);
}

}  // namespace

Fans fans_of(const Shape& shape) {
  if (shape.rank() == 0) fail("a fan-based initializer needs a shape of rank >= 1");
  if (shape.rank() == 1) return {shape[0], shape[0]};
  int64_t receptive = 1;
  for (std::size_t i = 2; i < shape.rank(); ++i)
    receptive *= shape[i];
  return {shape[1] * receptive, shape[0] * receptive};
}

TensorHandle Initializer::make(const Shape& shape, const TensorCreationOptions& options) const {
  switch (kind) {
    case Kind::Constant:
      return ops::full(shape, Scalar(a), options, TensorKind::Float);
    case Kind::Uniform:
      if (!(a <= b)) {
        std::ostringstream m;
        m << "uniform low " << a << " is above high " << b;
        fail(m.str());
      }
      return ops::random(shape, Distribution::uniform(a, b), options, TensorKind::Float);
    case Kind::Normal:
      if (!(b >= 0)) fail("normal std " + std::to_string(b) + " is negative");
      return ops::random(shape, Distribution::normal(a, b), options, TensorKind::Float);
    default:
      break;
  }
  const Fans fans = fans_of(shape);
  if (fans.in <= 0 || fans.out <= 0) fail("a fan-based initializer needs non-empty dims");
  const double fan = static_cast<double>(mode == FanMode::FanIn ? fans.in : fans.out);
  const double fan_sum = static_cast<double>(fans.in + fans.out);
  switch (kind) {
    case Kind::KaimingUniform:
      return symmetric_uniform(shape, gain * std::sqrt(3.0 / fan), options);
    case Kind::KaimingNormal:
      return centered_normal(shape, gain / std::sqrt(fan), options);
    case Kind::XavierUniform:
      return symmetric_uniform(shape, gain * std::sqrt(6.0 / fan_sum), options);
    default:  // XavierNormal
      return centered_normal(shape, gain * std::sqrt(2.0 / fan_sum), options);
  }
}

Initializer default_bias_init(int64_t weight_fan_in) {
  const double bound =
      weight_fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(weight_fan_in)) : 0.0;
  return Initializer::uniform(-bound, bound);
}

}  // namespace ember::nn
