#include "ember/nn/positional_encoding.h"

#include <cmath>

#include "config_checks.h"

namespace ember::nn {
namespace {

constexpr std::string_view kLayer = "PositionalEncoding";

/// 0, 1, ..., n - 1 as Float values of options' dtype.
Tensor<1> float_range(int64_t n, const TensorCreationOptions& options) {
  const Tensor<1> values = Tensor<1, Int>::arange(0, n, options.device).to_float();
  return options.dtype ? values.cast(*options.dtype) : values;
}

}  // namespace

Tensor<2> sinusoidal_table(int64_t length, int64_t d_model, const TensorCreationOptions& options) {
  detail::require_at_least(kLayer, "length", length, 0);
  detail::require_at_least(kLayer, "d_model", d_model, 1);
  const int64_t pairs = (d_model + 1) / 2;
  // 1 / 10000^(2i / d_model) = exp(2i * -ln(10000) / d_model).
  const Tensor<1> frequencies =
      (float_range(pairs, options) * (-2.0 * std::log(10000.0) / static_cast<double>(d_model)))
          .exp();
  const Tensor<2> angles =
      float_range(length, options).reshape<2>({length, 1}) * frequencies.reshape<2>({1, pairs});
  // Stacking sin and cos on a last dim of 2 interleaves them: columns 2i and 2i + 1.
  return Tensor<2>::stack<3>({angles.sin(), angles.cos()}, 2)
      .reshape<2>({length, 2 * pairs})
      .narrow(1, 0, d_model);
}

Tensor<3> PositionalEncoding::forward(const Tensor<3>& x) const {
  const int64_t length = x.dims()[1];
  if (x.dims()[2] != d_model) {
    detail::fail(kLayer, "x ", x.shape(), " must be [B, L, d_model = ", d_model, "]");
  }
  const Tensor<2> table =
      sinusoidal_table(length, d_model, TensorCreationOptions(x.device()).with_dtype(x.dtype()));
  return dropout.forward(x + table.unsqueeze<3>());
}

PositionalEncoding PositionalEncodingConfig::init(const Device& device) const {
  detail::require_at_least(kLayer, "d_model", d_model, 1);
  detail::require_probability(kLayer, "dropout", dropout);
  return PositionalEncoding{d_model, DropoutConfig{dropout}.init(device)};
}

}  // namespace ember::nn
