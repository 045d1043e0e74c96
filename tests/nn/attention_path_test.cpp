// The two paths of scaled_dot_product_attention agree through the layers built on it: the fused
// op (ir::Attention, forced) and the composite of matmul and softmax give MultiHeadAttention and
// module::scaled_dot_product_attention the same outputs and parameter gradients on the suite's
// device (ndarray's reference kernel, or cuda's fused kernel with EMBER_TEST_DEVICE=cuda:0).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/autodiff.h"
#include "ember/functional.h"
#include "ember/nn/attention.h"
#include "support/attention_paths.h"
#include "support/suite_device.h"

namespace ember::nn {
namespace {

using tensor::FusedPath;
using tensor::FusedPathScope;

/// Deterministic values in [-1, 1], in f32.
Tensor<3> wavy3(const Shape& shape, double seed, const Device& device) {
  return Tensor<3>::from_data(ember::test::wavy_values(shape, seed).convert(DType::F32), {device});
}

/// The output and every parameter's gradient of sum(forward(...)^2), in order, as f64 data.
std::vector<TensorData> outcome(const MultiHeadAttention& m, const Tensor<3>& x,
                                const AttentionMasks& masks, FusedPath path) {
  const FusedPathScope scope(path);
  const Tensor<3> out = m.forward(x, x, x, masks);
  const Gradients grads = ops::backward((out * out).sum().handle());
  std::vector<TensorData> all{out.into_data()};
  for (const NamedTensor& p : named_parameters(m))
    all.push_back(ops::into_data(*grads.get(p.tensor)));
  return all;
}

void expect_same(const std::vector<TensorData>& fused, const std::vector<TensorData>& composite) {
  ASSERT_EQ(fused.size(), composite.size());
  for (std::size_t i = 0; i < fused.size(); ++i) {
    std::string why;
    EXPECT_TRUE(fused[i].approx_equal(composite[i], Tolerance{1e-4, 1e-5}, &why))
        << "output " << i << ": " << why;
  }
}

TEST(AttentionPath, MultiHeadAttentionIsTheSameFusedOrComposite) {
  const Device device = ember::test::suite_device().autodiff();
  const MultiHeadAttention m = MultiHeadAttentionConfig{8, 2}.init(device);
  const Tensor<3> x = wavy3({2, 5, 8}, 0.3, device);
  AttentionMasks masks;
  masks.key_padding_mask =
      Tensor<1, Bool>::from_bool(
          {false, false, true, false, true, false, false, false, false, true}, {device})
          .reshape<2>({2, 5});
  masks.is_causal = true;
  expect_same(outcome(m, x, masks, FusedPath::Fused), outcome(m, x, masks, FusedPath::Composite));
  expect_same(outcome(m, x, {}, FusedPath::Fused), outcome(m, x, {}, FusedPath::Composite));
}

TEST(AttentionPath, ModuleFunctionIsTheSameFusedOrComposite) {
  const Device device = ember::test::suite_device();
  const auto q = wavy3({3, 4, 6}, 0.1, device).reshape<4>({1, 3, 4, 6});
  const auto k = wavy3({3, 7, 6}, 0.5, device).reshape<4>({1, 3, 7, 6});
  const auto v = wavy3({3, 7, 5}, 0.9, device).reshape<4>({1, 3, 7, 5});
  for (const bool causal : {false, true}) {
    TensorData fused;
    {
      const FusedPathScope scope(FusedPath::Fused);
      fused = module::scaled_dot_product_attention(q, k, v, std::nullopt, causal).into_data();
    }
    const FusedPathScope scope(FusedPath::Composite);
    const TensorData composite =
        module::scaled_dot_product_attention(q, k, v, std::nullopt, causal).into_data();
    std::string why;
    EXPECT_TRUE(fused.approx_equal(composite, Tolerance{1e-4, 1e-5}, &why)) << causal << why;
  }
}

}  // namespace
}  // namespace ember::nn
