// nn::MultiHeadAttention against torch.nn.MultiheadAttention (goldens of generate_sequence.py:
// outputs, averaged weights, gradients), the masks' meaning checked on the weights, dropout, and
// the errors of the config and of forward.
#include "ember/nn/attention.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sequence_support.h"
#include "support/suite_device.h"

namespace ember::nn {
namespace {

namespace golden = sequence_golden;
using golden::json;

Device autodiff_device() {
  return ember::test::suite_device().autodiff();
}

MultiHeadAttention golden_attention(const json& c, const Device& device) {
  MultiHeadAttention m =
      MultiHeadAttentionConfig{c.at("embed_dim").get<int64_t>(), c.at("num_heads").get<int64_t>(),
                               0.0, c.at("bias").get<bool>()}
          .init(device);
  golden::load_state(m, c.at("state"), device);
  return m;
}

AttentionMasks golden_masks(const json& c, const Device& device) {
  AttentionMasks masks;
  if (c.contains("key_padding_mask"))
    masks.key_padding_mask = golden::mask<2>(c.at("key_padding_mask"), device);
  if (c.contains("attn_mask")) masks.attn_mask = golden::mask<2>(c.at("attn_mask"), device);
  masks.is_causal = c.at("is_causal").get<bool>();
  return masks;
}

/// The query, key and value of a golden case.
struct Inputs {
  Tensor<3> query;
  Tensor<3> key;
  Tensor<3> value;
};
Inputs golden_inputs(const json& c, const Device& device) {
  return {golden::tensor<3>(c.at("query"), device), golden::tensor<3>(c.at("key"), device),
          golden::tensor<3>(c.at("value"), device)};
}

void expect_matches_pytorch(const std::string& name) {
  const json& c = golden::sequence_case(name);
  const Device device = autodiff_device();
  const MultiHeadAttention m = golden_attention(c, device);
  Inputs in = golden_inputs(c, device);
  in.query = in.query.require_grad();
  const AttentionMasks masks = golden_masks(c, device);
  const AttentionOutput out = m.forward_with_weights(in.query, in.key, in.value, masks);
  golden::expect_near(out.output, c.at("output"), "output");
  golden::expect_near(out.weights, c.at("weights"), "weights");
  golden::expect_near(m.forward(in.query, in.key, in.value, masks), c.at("output"),
                      "forward without weights");

  const Gradients grads = golden::probed_loss(out.output, c.at("probe")).backward();
  golden::expect_near(*in.query.grad(grads), c.at("grads").at("query"), "query gradient");
  golden::expect_near(*m.in_proj_weight.grad(grads), c.at("grads").at("in_proj_weight"),
                      "in_proj_weight gradient");
}

TEST(MultiHeadAttention, SelfAttentionMatchesPyTorch) {
  expect_matches_pytorch("mha_self");
}

TEST(MultiHeadAttention, CrossAttentionWithPaddingAndAttnMaskMatchesPyTorch) {
  expect_matches_pytorch("mha_cross_masked");
}

TEST(MultiHeadAttention, CausalWithPaddingAndNoBiasMatchesPyTorch) {
  expect_matches_pytorch("mha_causal_padded");
}

TEST(MultiHeadAttention, MaskedKeysGetZeroWeightAndRowsSumToOne) {
  const json& c = golden::sequence_case("mha_causal_padded");
  const Device device = ember::test::suite_device();
  const Inputs in = golden_inputs(c, device);
  const AttentionOutput out = golden_attention(c, device).forward_with_weights(
      in.query, in.key, in.value, golden_masks(c, device));
  // [B = 2, L = 4, S = 4]; batch 0 pads key 3, and the mask is causal.
  const std::vector<double> w = out.weights.into_data().to_vector<double>();
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t i = 0; i < 4; ++i) {
      double row = 0.0;
      for (int64_t j = 0; j < 4; ++j) {
        const double weight = w[static_cast<std::size_t>((b * 4 + i) * 4 + j)];
        const bool masked = j > i || (b == 0 && j == 3);
        if (masked) {
          EXPECT_EQ(weight, 0.0) << b << ' ' << i << ' ' << j;
        } else {
          EXPECT_GT(weight, 0.0) << b << ' ' << i << ' ' << j;
        }
        row += weight;
      }
      EXPECT_NEAR(row, 1.0, 1e-12);
    }
  }
}

TEST(MultiHeadAttention, APaddedKeyDoesNotChangeTheOutput) {
  const json& c = golden::sequence_case("mha_cross_masked");
  const Device device = ember::test::suite_device();
  const MultiHeadAttention m = golden_attention(c, device);
  const Inputs in = golden_inputs(c, device);
  const AttentionMasks masks = golden_masks(c, device);
  // Key 3 of batch 0 is padding: overwrite its key and value.
  const std::vector<Slice> padded{Slice(0), Slice(3), Slice()};
  const Tensor<3> noise =
      Tensor<3>::full({1, 1, 6}, 100.0, TensorCreationOptions(device).with_dtype(DType::F64));
  const Tensor<3> before = m.forward(in.query, in.key, in.value, masks);
  const Tensor<3> after = m.forward(in.query, in.key.slice_assign(padded, noise),
                                    in.value.slice_assign(padded, noise), masks);
  EXPECT_EQ(before.into_data().to_vector<double>(), after.into_data().to_vector<double>());
}

TEST(MultiHeadAttention, DropoutDropsWeightsAndTheOutputUsesTheSameDraw) {
  const json& c = golden::sequence_case("mha_causal_padded");  // one head, no bias
  const Device device = ember::test::suite_device();
  MultiHeadAttention m = golden_attention(c, device);
  const Inputs in = golden_inputs(c, device);
  const AttentionMasks masks = golden_masks(c, device);
  eval(m);
  const std::vector<double> kept = m.forward_with_weights(in.query, in.key, in.value, masks)
                                       .weights.into_data()
                                       .to_vector<double>();
  m.dropout = 0.5;
  train(m);
  const AttentionOutput out = m.forward_with_weights(in.query, in.key, in.value, masks);
  const std::vector<double> dropped = out.weights.into_data().to_vector<double>();
  int zeroed = 0;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (dropped[i] == 0.0 && kept[i] != 0.0) ++zeroed;
    if (dropped[i] != 0.0) {
      EXPECT_NEAR(dropped[i], 2.0 * kept[i], 1e-12) << i;
    }
  }
  EXPECT_GT(zeroed, 0);
  // One head without biases: output = out_proj(weights (value W_v^T)).
  const Tensor<2> w_v = m.in_proj_weight->narrow(0, 8, 4);
  const Tensor<3> expected = m.out_proj.forward(out.weights.matmul(module::linear(in.value, w_v)));
  golden::expect_near(out.output, expected, "output from the weights");
}

TEST(MultiHeadAttention, InitHasPyTorchShapesAndInitialization) {
  const MultiHeadAttention m = MultiHeadAttentionConfig{8, 2}.init(ember::test::suite_device());
  EXPECT_EQ(m.in_proj_weight->shape(), Shape({24, 8}));
  EXPECT_EQ(m.out_proj.weight->shape(), Shape({8, 8}));
  // Xavier-uniform over [3E, E]: bound sqrt(6 / (E + 3E)).
  const double bound = std::sqrt(6.0 / 32.0);
  for (double v : m.in_proj_weight->into_data().to_vector<double>())
    EXPECT_LE(std::abs(v), bound);
  EXPECT_EQ(m.in_proj_bias->value().into_data().to_vector<double>(), std::vector<double>(24, 0.0));
  EXPECT_EQ(m.out_proj.bias->value().into_data().to_vector<double>(), std::vector<double>(8, 0.0));
  EXPECT_EQ(
      num_parameters(MultiHeadAttentionConfig{8, 2, 0.0, false}.init(ember::test::suite_device())),
      24 * 8 + 8 * 8);
}

TEST(MultiHeadAttention, ConfigErrorsNameTheValues) {
  const Device device = ember::test::suite_device();
  layer_golden::expect_invalid(
      [&] {
        MultiHeadAttentionConfig{0, 1}.init(device);
      },
      {"[MultiHeadAttention] ", "embed_dim 0"});
  layer_golden::expect_invalid(
      [&] {
        MultiHeadAttentionConfig{4, 0}.init(device);
      },
      {"[MultiHeadAttention] ", "num_heads 0"});
  layer_golden::expect_invalid(
      [&] {
        MultiHeadAttentionConfig{6, 4}.init(device);
      },
      {"[MultiHeadAttention] ", "6", "num_heads 4"});
  layer_golden::expect_invalid(
      [&] {
        MultiHeadAttentionConfig{4, 2, 1.0}.init(device);
      },
      {"[MultiHeadAttention] ", "dropout 1"});
}

TEST(MultiHeadAttention, ForwardErrorsNameTheShapes) {
  const Device device = ember::test::suite_device();
  const MultiHeadAttention m = MultiHeadAttentionConfig{4, 2}.init(device);
  const Tensor<3> x = Tensor<3>::zeros({2, 3, 4}, device);
  const Tensor<3> other_batch = Tensor<3>::zeros({1, 3, 4}, device);
  layer_golden::expect_invalid(
      [&] {
        m.forward(Tensor<3>::zeros({2, 3, 5}, device), x, x);
      },
      {"[MultiHeadAttention] ", "[2, 3, 5]"});
  layer_golden::expect_invalid([&] { m.forward(x, other_batch, other_batch); },
                               {"[MultiHeadAttention] ", "[1, 3, 4]"});
  layer_golden::expect_invalid(
      [&] {
        m.forward(x, x, Tensor<3>::zeros({2, 2, 4}, device));
      },
      {"[MultiHeadAttention] ", "[2, 2, 4]"});
  AttentionMasks padding{Tensor<2, Bool>::zeros({2, 4}, device)};
  layer_golden::expect_invalid([&] { m.forward(x, x, x, padding); },
                               {"[MultiHeadAttention] ", "key_padding_mask [2, 4]", "[2, 3]"});
  AttentionMasks attn{std::nullopt, Tensor<2, Bool>::zeros({3, 2}, device)};
  layer_golden::expect_invalid([&] { m.forward(x, x, x, attn); },
                               {"[MultiHeadAttention] ", "attn_mask [3, 2]", "[3, 3]"});
}

}  // namespace
}  // namespace ember::nn
