// nn::TransformerEncoderLayer and nn::TransformerEncoder against torch.nn's (goldens of
// generate_sequence.py: outputs and gradients, post-norm ReLU and pre-norm GELU), causality,
// dropout, PyTorch's names, and the config errors.
#include "ember/nn/transformer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sequence_support.h"
#include "support/suite_device.h"

namespace ember::nn {
namespace {

namespace golden = sequence_golden;
using golden::json;

TransformerEncoderConfig config_of(const json& c) {
  const TransformerActivation activation = c.at("activation").get<std::string>() == "gelu"
                                               ? TransformerActivation::Gelu
                                               : TransformerActivation::Relu;
  return {{c.at("d_model").get<int64_t>(), c.at("nhead").get<int64_t>(),
           c.at("dim_feedforward").get<int64_t>(), 0.0, activation, 1e-5,
           c.at("norm_first").get<bool>()},
          c.at("num_layers").get<int64_t>(),
          c.at("final_norm").get<bool>()};
}

void expect_encoder_matches_pytorch(const std::string& name) {
  const json& c = golden::sequence_case(name);
  const Device device = ember::test::suite_device().autodiff();
  TransformerEncoder encoder = config_of(c).init(device);
  golden::load_state(encoder, c.at("state"), device);
  eval(encoder);
  const Tensor<3> x = golden::tensor<3>(c.at("x"), device).require_grad();
  AttentionMasks masks;
  masks.key_padding_mask = golden::mask<2>(c.at("key_padding_mask"), device);
  const Tensor<3> output = encoder.forward(x, masks);
  golden::expect_near(output, c.at("output"), "output");

  json param_grads = c.at("grads");
  const json x_grad = param_grads.at("x");
  param_grads.erase("x");
  const Gradients grads = golden::probed_loss(output, c.at("probe")).backward();
  golden::expect_near(*x.grad(grads), x_grad, "x gradient");
  layer_golden::expect_param_grads(named_parameters(encoder), grads, param_grads);
}

TEST(TransformerEncoder, PostNormReluWithFinalNormMatchesPyTorch) {
  expect_encoder_matches_pytorch("encoder_relu_post_norm");
}

TEST(TransformerEncoder, PreNormGeluMatchesPyTorch) {
  expect_encoder_matches_pytorch("encoder_gelu_pre_norm");
}

TEST(TransformerEncoder, ParamsHavePyTorchNames) {
  const TransformerEncoder encoder =
      TransformerEncoderConfig{{4, 2, 8}, 2, true}.init(ember::test::suite_device());
  std::vector<std::string> names;
  for (const NamedTensor& p : named_parameters(encoder))
    names.push_back(p.name);
  ASSERT_EQ(names.size(), 2 * 12 + 2);
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 12),
            (std::vector<std::string>{
                "layers.0.self_attn.in_proj_weight", "layers.0.self_attn.in_proj_bias",
                "layers.0.self_attn.out_proj.weight", "layers.0.self_attn.out_proj.bias",
                "layers.0.linear1.weight", "layers.0.linear1.bias", "layers.0.linear2.weight",
                "layers.0.linear2.bias", "layers.0.norm1.weight", "layers.0.norm1.bias",
                "layers.0.norm2.weight", "layers.0.norm2.bias"}));
  EXPECT_EQ(names.back(), "norm.bias");
  EXPECT_EQ(encoder.layers[1].linear1.weight->shape(), Shape({8, 4}));
  // Independent draws: the layers do not start equal.
  EXPECT_NE(encoder.layers[0].linear1.weight->into_data().to_vector<double>(),
            encoder.layers[1].linear1.weight->into_data().to_vector<double>());
}

TEST(TransformerEncoder, CausalOutputsIgnoreLaterPositions) {
  const Device device = ember::test::suite_device();
  TransformerEncoder encoder = TransformerEncoderConfig{{4, 2, 8}, 2}.init(device);
  eval(encoder);
  const Tensor<3> x = Tensor<3>::random({2, 4, 4}, Distribution::normal(0.0, 1.0), device);
  const Tensor<3> later =
      x.slice_assign({Slice(), Slice::from(2), Slice()}, Tensor<3>::full({2, 2, 4}, 5.0, device));
  AttentionMasks causal;
  causal.is_causal = true;
  const std::vector<Slice> first_two{Slice(), Slice::to(2), Slice()};
  EXPECT_EQ(encoder.forward(x, causal).slice(first_two).into_data().to_vector<double>(),
            encoder.forward(later, causal).slice(first_two).into_data().to_vector<double>());
  EXPECT_NE(encoder.forward(x).slice(first_two).into_data().to_vector<double>(),
            encoder.forward(later).slice(first_two).into_data().to_vector<double>());
}

TEST(TransformerEncoder, DropoutActsInTrainingOnly) {
  const Device device = ember::test::suite_device();
  TransformerEncoderLayer layer = TransformerEncoderLayerConfig{4, 2, 8, 0.5}.init(device);
  const Tensor<3> x = Tensor<3>::random({2, 3, 4}, Distribution::normal(0.0, 1.0), device);
  const std::vector<double> trained = layer.forward(x).into_data().to_vector<double>();
  eval(layer);
  const std::vector<double> evaluated = layer.forward(x).into_data().to_vector<double>();
  EXPECT_NE(trained, evaluated);
  EXPECT_EQ(evaluated, layer.forward(x).into_data().to_vector<double>());
  EXPECT_FALSE(layer.self_attn.training);
  EXPECT_FALSE(layer.dropout2.training);
}

TEST(TransformerEncoder, ErrorsNameTheValues) {
  const Device device = ember::test::suite_device();
  using layer_golden::expect_invalid;
  expect_invalid(
      [&] {
        TransformerEncoderLayerConfig{0, 1}.init(device);
      },
      {"[TransformerEncoderLayer] ", "d_model 0"});
  expect_invalid(
      [&] {
        TransformerEncoderLayerConfig{4, 0}.init(device);
      },
      {"[TransformerEncoderLayer] ", "nhead 0"});
  expect_invalid(
      [&] {
        TransformerEncoderLayerConfig{6, 4}.init(device);
      },
      {"[TransformerEncoderLayer] ", "d_model 6", "nhead 4"});
  expect_invalid(
      [&] {
        TransformerEncoderLayerConfig{4, 2, 0}.init(device);
      },
      {"[TransformerEncoderLayer] ", "dim_feedforward 0"});
  expect_invalid(
      [&] {
        TransformerEncoderLayerConfig{4, 2, 8, 1.0}.init(device);
      },
      {"[TransformerEncoderLayer] ", "dropout 1"});
  expect_invalid(
      [&] {
        TransformerEncoderLayerConfig{4, 2, 8, 0.1, TransformerActivation::Relu, -1.0}.init(device);
      },
      {"[TransformerEncoderLayer] ", "layer_norm_eps -1"});
  expect_invalid(
      [&] {
        TransformerEncoderConfig{{4, 2}, 0}.init(device);
      },
      {"[TransformerEncoder] ", "num_layers 0"});
  const TransformerEncoder encoder = TransformerEncoderConfig{{4, 2, 8}, 1}.init(device);
  expect_invalid(
      [&] {
        encoder.forward(Tensor<3>::zeros({1, 2, 3}, device));
      },
      {"[TransformerEncoderLayer] ", "[1, 2, 3]", "d_model = 4"});
}

}  // namespace
}  // namespace ember::nn
