// The module functions' gradients (composites: the tape records their ops) end to end through
// require_grad / backward, against central finite differences of sum(g * f(x)) in f64 on ndarray
// (the shared harness of gradcheck.h). Int and Bool inputs (targets, indices, masks) get no
// gradient. Inputs stay away from the kinks of |x| and huber's |d| = delta.
#include <gtest/gtest.h>

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ember/autodiff.h"
#include "ember/functional.h"
#include "gradcheck/gradcheck.h"
#include "support/op_table.h"

namespace ember::test {
namespace {

using module::Reduction;
using ops::Handles;

std::vector<GradCase> normalization_cases() {
  return {
      composite_case("linear", [](const Handles& x) { return ops::linear(x[0], x[1], x[2]); },
                     {reals("lin/x", {2, 3, 4}), reals("lin/w", {5, 4}), reals("lin/b", {5})}),
      composite_case("embedding", [](const Handles& x) { return ops::embedding(x[0], x[1]); },
                     {reals("emb/w", {5, 3}), i64({4, 0, 4, 2}, {2, 2})}),
      composite_case("layer_norm",
                     [](const Handles& x) {
                       return ops::layer_norm(x[0], {3, 4}, x[1], x[2], 1e-5);
                     },
                     {reals("ln/x", {2, 3, 4}), reals("ln/w", {3, 4}), reals("ln/b", {3, 4})}),
      composite_case("rms_norm",
                     [](const Handles& x) { return ops::rms_norm(x[0], {4}, x[1], 1e-6); },
                     {reals("rms/x", {3, 4}), reals("rms/w", {4})}),
      composite_case("group_norm",
                     [](const Handles& x) { return ops::group_norm(x[0], 2, x[1], x[2], 1e-5); },
                     {reals("gn/x", {2, 4, 3}), reals("gn/w", {4}), reals("gn/b", {4})}),
      composite_case("batch_norm/training",
                     [](const Handles& x) {
                       return ops::batch_norm(x[0], std::nullopt, std::nullopt, x[1], x[2], true,
                                              0.1, 1e-5)
                           .output;
                     },
                     {reals("bn/x", {3, 2, 2}), reals("bn/w", {2}), reals("bn/b", {2})}),
      composite_case(
          "batch_norm/inference",
          [](const Handles& x) {
            return ops::batch_norm(x[0], x[1], x[2], x[3], x[4], false, 0.1, 1e-5).output;
          },
          {reals("bni/x", {3, 2, 2}), reals("bni/m", {2}), positives("bni/v", {2}),
           reals("bni/w", {2}), reals("bni/b", {2})}),
  };
}

/// Pairs differing by at least 0.25 and not within 0.25 of huber's delta 1.
const std::vector<double> kInput = {0.5, -1, 2, 3.5, 0, -2.5};
const std::vector<double> kTarget = {1, 1, -0.5, 3, 0.75, 0.5};

std::vector<GradCase> loss_cases() {
  const Shape shape{2, 3};
  const std::vector<TensorData> pair = {f64(kInput, shape), f64(kTarget, shape)};
  return {
      composite_case(
          "mse_loss", [](const Handles& x) { return ops::mse_loss(x[0], x[1], Reduction::Mean); },
          pair),
      composite_case(
          "l1_loss", [](const Handles& x) { return ops::l1_loss(x[0], x[1], Reduction::Sum); },
          pair),
      composite_case(
          "huber_loss",
          [](const Handles& x) { return ops::huber_loss(x[0], x[1], Reduction::None, 1.0); }, pair),
      composite_case("bce_with_logits",
                     [](const Handles& x) {
                       return ops::binary_cross_entropy_with_logits(x[0], x[1], x[2],
                                                                    Reduction::Mean);
                     },
                     {f64({0.5, -2, 4, -3, 1.5, -0.25}, shape), reals("bce/y", shape, 0.0, 1.0),
                      positives("bce/pw", {3})}),
      composite_case(
          "nll_loss/weighted",
          [](const Handles& x) { return ops::nll_loss(x[0], x[1], x[2], Reduction::Mean); },
          {reals("nll/lp", {4, 3}), i64({1, 2, 0, 0}, {4}), positives("nll/w", {3})}),
      composite_case("cross_entropy/smoothing",
                     [](const Handles& x) {
                       return ops::cross_entropy(x[0], x[1], x[2], Reduction::Mean, 0.2);
                     },
                     {reals("ce/z", {4, 3}), i64({1, 2, 0, 0}, {4}), positives("ce/w", {3})}),
      composite_case("cross_entropy/probabilities",
                     [](const Handles& x) {
                       return ops::cross_entropy(x[0], x[1], std::nullopt, Reduction::None, 0.1);
                     },
                     {reals("cep/z", {4, 3}), reals("cep/y", {4, 3}, 0.0, 1.0)}),
      composite_case("kl_div",
                     [](const Handles& x) { return ops::kl_div(x[0], x[1], Reduction::Sum); },
                     {reals("kl/in", shape, -2.0, -0.1), positives("kl/t", shape)}),
      composite_case(
          "kl_div/batchmean_log_target",
          [](const Handles& x) { return ops::kl_div(x[0], x[1], Reduction::BatchMean, true); },
          {reals("klb/in", shape, -2.0, -0.1), reals("klb/t", shape, -2.0, -0.1)}),
      composite_case(
          "nll_loss/ignore_index",
          [](const Handles& x) { return ops::nll_loss(x[0], x[1], x[2], Reduction::Mean, 2); },
          {reals("nlli/lp", {4, 3}), i64({1, 2, 0, 2}, {4}), positives("nlli/w", {3})}),
      composite_case(
          "cross_entropy/spatial_ignore_index",
          [](const Handles& x) {
            return ops::cross_entropy(x[0], x[1], x[2], Reduction::Mean, 0.2, -1);
          },
          {reals("ces/z", {2, 3, 2}), i64({1, -1, 0, 2}, {2, 2}), positives("ces/w", {3})}),
  };
}

std::vector<GradCase> attention_cases() {
  const auto attend = [](bool causal) {
    return [causal](const Handles& x) {
      const std::optional<TensorHandle> mask =
          x.size() > 3 ? std::optional<TensorHandle>(x[3]) : std::nullopt;
      return ops::scaled_dot_product_attention(x[0], x[1], x[2], mask, causal, 0.0, std::nullopt);
    };
  };
  const std::vector<TensorData> qkv = {reals("att/q", {2, 3, 4}), reals("att/k", {2, 5, 4}),
                                       reals("att/v", {2, 5, 2})};
  std::vector<TensorData> with_bool = qkv;
  with_bool.push_back(mask({1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1}, {1, 3, 5}));
  std::vector<TensorData> with_float = qkv;
  with_float.push_back(reals("att/m", {1, 3, 5}));
  return {
      composite_case("attention", attend(false), qkv),
      composite_case("attention/causal", attend(true), qkv),
      composite_case("attention/bool_mask", attend(false), with_bool),
      composite_case("attention/float_mask", attend(false), with_float),
  };
}

const std::vector<GradCase>& module_cases() {
  static const std::vector<GradCase> cases =
      concat({normalization_cases(), loss_cases(), attention_cases()});
  return cases;
}

class ModuleGradcheck : public ::testing::TestWithParam<std::string> {};

TEST_P(ModuleGradcheck, MatchesFiniteDifferences) {
  const GradCase& c = find_case(GetParam(), module_cases());
  EXPECT_TRUE(api_gradient_matches(c));
}

INSTANTIATE_TEST_SUITE_P(Cases, ModuleGradcheck, ::testing::ValuesIn(case_names(module_cases())),
                         [](const auto& info) { return test_name(info.param); });

}  // namespace
}  // namespace ember::test
