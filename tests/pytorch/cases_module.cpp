// Cases of the other neural-network functions (generate.py's module_cases): linear, embedding,
// layer_norm, batch_norm (training, with the running statistics it returns, and inference),
// group_norm, rms_norm and scaled_dot_product_attention (Float mask, Bool mask, causal, an
// explicit scale).
#include <optional>
#include <string>
#include <utility>

#include "pytorch/pytorch_cases.h"

namespace ember::test {
namespace {

/// A case of one output.
TorchCase single(std::string name, std::function<TensorHandle(const ops::Handles&)> f) {
  return {std::move(name),
          [f = std::move(f)](const ops::Handles& x) { return ops::Handles{f(x)}; }};
}

std::vector<TorchCase> linear_cases() {
  return {
      single("linear/bias",
             [](const ops::Handles& x) { return ops::linear(x[0], x[1], optional_input(x, 2)); }),
      single("linear/no_bias",
             [](const ops::Handles& x) { return ops::linear(x[0], x[1], optional_input(x, 2)); }),
      single("embedding/repeated_indices",
             [](const ops::Handles& x) { return ops::embedding(x[0], x[1]); }),
  };
}

std::vector<TorchCase> normalization_cases() {
  return {
      single("layer_norm/affine",
             [](const ops::Handles& x) { return ops::layer_norm(x[0], {4}, x[1], x[2], 1e-5); }),
      single("layer_norm/two_dims",
             [](const ops::Handles& x) {
               return ops::layer_norm(x[0], {3, 4}, std::nullopt, std::nullopt, 1e-3);
             }),
      {"batch_norm/training",
       [](const ops::Handles& x) {
         const ops::BatchNormResult r =
             ops::batch_norm(x[0], x[1], x[2], x[3], x[4], true, 0.1, 1e-5);
         return ops::Handles{r.output, r.running_mean.value(), r.running_var.value()};
       }},
      single("batch_norm/training_4d_no_stats",
             [](const ops::Handles& x) {
               return ops::batch_norm(x[0], std::nullopt, std::nullopt, x[1], x[2], true, 0.1, 1e-3)
                   .output;
             }),
      single("batch_norm/inference",
             [](const ops::Handles& x) {
               return ops::batch_norm(x[0], x[1], x[2], x[3], x[4], false, 0.1, 1e-5).output;
             }),
      single("group_norm/affine",
             [](const ops::Handles& x) { return ops::group_norm(x[0], 2, x[1], x[2], 1e-5); }),
      single("group_norm/4d",
             [](const ops::Handles& x) {
               return ops::group_norm(x[0], 3, std::nullopt, std::nullopt, 1e-5);
             }),
      single("rms_norm/weight",
             [](const ops::Handles& x) { return ops::rms_norm(x[0], {4}, x[1], 1e-6); }),
      single("rms_norm/two_dims_default_eps",
             [](const ops::Handles& x) {
               return ops::rms_norm(x[0], {3, 4}, std::nullopt, std::nullopt);
             }),
  };
}

/// Attention of q, k, v and (with a fourth input) a mask; no dropout.
TorchCase attention_case(std::string name, bool is_causal, std::optional<double> scale) {
  return single(std::move(name), [is_causal, scale](const ops::Handles& x) {
    return ops::scaled_dot_product_attention(x[0], x[1], x[2], optional_input(x, 3), is_causal, 0.0,
                                             scale);
  });
}

std::vector<TorchCase> attention_cases() {
  return {
      attention_case("attention/plain", false, std::nullopt),
      attention_case("attention/float_mask", false, std::nullopt),
      attention_case("attention/bool_mask", false, std::nullopt),
      attention_case("attention/causal", true, std::nullopt),
      attention_case("attention/4d_scale", false, 0.3),
  };
}

}  // namespace

std::vector<TorchCase> module_torch_cases() {
  return concat({linear_cases(), normalization_cases(), attention_cases()});
}

}  // namespace ember::test
