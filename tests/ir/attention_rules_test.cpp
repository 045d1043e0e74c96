// Rules of the fused attention op and its gradient: the result takes v's last dim, the
// log-sum-exp is f32 over the rows, a mask broadcasts to the scores, and every mismatch of
// shapes or dtypes names the op and the shapes.
#include <vector>

#include "ir_test_support.h"

namespace ember::ir {
namespace {

using test::contains;
using test::infer_error;
using test::meta;

const Attention kAttention{0.5, false};

TEST(IrAttention, Names) {
  EXPECT_EQ(name(kAttention), "scaled_dot_product_attention");
  EXPECT_EQ(name(AttentionGrad{kAttention}), "scaled_dot_product_attention_backward");
}

TEST(IrAttention, ResultTakesVsLastDimAndTheLseIsOneValuePerRow) {
  const std::vector<TensorMeta> in{meta({2, 3, 5, 4}, DType::BF16), meta({2, 3, 7, 4}, DType::BF16),
                                   meta({2, 3, 7, 6}, DType::BF16)};
  const OutputMetas out = infer(kAttention, in);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], meta({2, 3, 5, 6}, DType::BF16));
  EXPECT_EQ(out[1], meta({2, 3, 5}, DType::F32));
  // f64's lse keeps f64's precision for the backward.
  const std::vector<TensorMeta> wide{meta({5, 4}, DType::F64), meta({7, 4}, DType::F64),
                                     meta({7, 6}, DType::F64)};
  EXPECT_EQ(infer(kAttention, wide)[1], meta({5}, DType::F64));
}

TEST(IrAttention, TakesMasksThatBroadcastToTheScores) {
  const std::vector<TensorMeta> qkv{meta({2, 5, 4}), meta({2, 7, 4}), meta({2, 7, 3})};
  for (const TensorMeta& mask :
       {meta({7}, DType::Bool), meta({5, 7}), meta({2, 1, 7}), meta({1, 5, 1}, DType::Bool)}) {
    std::vector<TensorMeta> in = qkv;
    in.push_back(mask);
    EXPECT_EQ(infer(kAttention, in)[0], meta({2, 5, 3})) << mask.shape;
  }
}

TEST(IrAttention, RefusesMismatchedShapesNamingThem) {
  EXPECT_EQ(infer_error(kAttention, {meta({2, 5, 4}), meta({2, 7, 3}), meta({2, 7, 3})}),
            "[scaled_dot_product_attention] q [2, 5, 4], k [2, 7, 3], v [2, 7, 3]: q and k need "
            "one last dim (E)");
  EXPECT_EQ(infer_error(kAttention, {meta({2, 5, 4}), meta({2, 7, 4}), meta({2, 6, 3})}),
            "[scaled_dot_product_attention] q [2, 5, 4], k [2, 7, 4], v [2, 6, 3]: k and v need "
            "one sequence length (S)");
  EXPECT_EQ(infer_error(kAttention, {meta({2, 5, 4}), meta({1, 7, 4}), meta({1, 7, 3})}),
            "[scaled_dot_product_attention] q [2, 5, 4], k [1, 7, 4], v [1, 7, 3]: batch dims "
            "differ");
  EXPECT_EQ(infer_error(kAttention, {meta({5, 4}), meta({2, 7, 4}), meta({2, 7, 3})}),
            "[scaled_dot_product_attention] q [5, 4], k [2, 7, 4], v [2, 7, 3]: expects one rank "
            ">= 2");
  EXPECT_EQ(infer_error(kAttention, {meta({2, 5, 4}), meta({2, 7, 4}), meta({2, 7, 3}),
                                     meta({3, 5, 7}, DType::Bool)}),
            "[scaled_dot_product_attention] mask [3, 5, 7] does not broadcast to the scores "
            "[2, 5, 7]");
  EXPECT_EQ(infer_error(kAttention, {meta({2, 5, 4}), meta({2, 7, 4}), meta({2, 7, 3}),
                                     meta({1, 2, 5, 7}, DType::Bool)}),
            "[scaled_dot_product_attention] mask [1, 2, 5, 7] does not broadcast to the scores "
            "[2, 5, 7]");
}

TEST(IrAttention, RefusesBadDTypesAndArity) {
  EXPECT_TRUE(contains(infer_error(kAttention, {meta({5, 4}, DType::I32), meta({7, 4}, DType::I32),
                                                meta({7, 3}, DType::I32)}),
                       "[scaled_dot_product_attention] q: expects a float dtype, got i32"));
  EXPECT_TRUE(
      contains(infer_error(kAttention, {meta({5, 4}), meta({7, 4}, DType::F16), meta({7, 3})}),
               "[scaled_dot_product_attention] q dtype f32 and k dtype f16 differ"));
  EXPECT_EQ(
      infer_error(kAttention, {meta({5, 4}), meta({7, 4}), meta({7, 3}), meta({5, 7}, DType::F16)}),
      "[scaled_dot_product_attention] mask dtype f16 must be bool or q's dtype f32");
  EXPECT_EQ(infer_error(kAttention, {meta({5, 4}), meta({7, 4})}),
            "[scaled_dot_product_attention] expects 3 inputs (q, k, v) or 4 (q, k, v, mask), got "
            "2");
}

TEST(IrAttentionGrad, GivesTheGradientsOfQKAndV) {
  const std::vector<TensorMeta> in{meta({2, 5, 4}),        meta({2, 7, 4}), meta({2, 7, 3}),
                                   meta({7}, DType::Bool), meta({2, 5, 3}), meta({2, 5}),
                                   meta({2, 5, 3})};
  const OutputMetas out = infer(AttentionGrad{kAttention}, in);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], in[0]);
  EXPECT_EQ(out[1], in[1]);
  EXPECT_EQ(out[2], in[2]);
}

TEST(IrAttentionGrad, ChecksTheForwardValuesItIsGiven) {
  const AttentionGrad grad{kAttention};
  EXPECT_EQ(infer_error(grad, {meta({2, 5, 4}), meta({2, 7, 4}), meta({2, 7, 3}), meta({2, 5, 4}),
                               meta({2, 5}), meta({2, 5, 3})}),
            "[scaled_dot_product_attention_backward] out shape [2, 5, 4] and forward output shape "
            "[2, 5, 3] differ");
  EXPECT_EQ(infer_error(grad, {meta({2, 5, 4}), meta({2, 7, 4}), meta({2, 7, 3}), meta({2, 5, 3}),
                               meta({2, 5}, DType::F16), meta({2, 5, 3})}),
            "[scaled_dot_product_attention_backward] lse dtype f16 and forward output dtype f32 "
            "differ");
  EXPECT_EQ(infer_error(grad, {meta({2, 5, 4}), meta({2, 7, 4}), meta({2, 7, 3}), meta({2, 5, 3}),
                               meta({2, 5})}),
            "[scaled_dot_product_attention_backward] expects 6 inputs (q, k, v, out, lse, "
            "grad_out) or 7 (with a mask after v), got 5");
}

}  // namespace
}  // namespace ember::ir
