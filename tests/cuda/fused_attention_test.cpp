// The cuda backend's fused attention: its kernel sources (scalar, and the tensor-core forward of
// f16 and bf16) compile with NVRTC to sm_90 machine code, attention_shape takes what the kernels
// hold (dtypes, head dims, masks whose batch dims reduce to two strides) and refuses the rest, and
// on a GPU the fused kernels (forward and backward, through autodiff) match the composite of matmul
// and softmax run on the same GPU in f32 from the same rounded inputs, in f32, f16 and bf16, causal
// and masked, across several key tiles and query blocks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/cuda/attention_kernels.h"
#include "cuda_test_util.h"
#include "gpu_device.h"
#include "support/attention_paths.h"

namespace ember::cuda {
namespace {

using test::expect_machine_code;

ir::TensorMeta meta(Shape shape, DType dtype = DType::F32) {
  return {std::move(shape), dtype};
}

std::vector<ir::TensorMeta> qkv(const Shape& batch, int64_t l, int64_t s, int64_t e, int64_t ev,
                                DType dtype = DType::F32) {
  const auto tail = [&](int64_t rows, int64_t cols) {
    std::vector<int64_t> dims = batch.dims();
    dims.push_back(rows);
    dims.push_back(cols);
    return meta(Shape(dims), dtype);
  };
  return {tail(l, e), tail(s, e), tail(s, ev)};
}

TEST(CudaAttentionKernels, CompileForEveryDtypeMaskAndHeadDim) {
  EMBER_SKIP_WITHOUT_NVRTC();
  struct Variant {
    int64_t e, ev;
    AttentionMask mask;
    bool causal;
  };
  for (const DType dtype : {DType::F32, DType::F16, DType::BF16}) {
    for (const Variant v :
         {Variant{64, 64, AttentionMask::None, false}, Variant{32, 48, AttentionMask::Bool, true},
          Variant{128, 128, AttentionMask::Float, true},
          Variant{3, 5, AttentionMask::Bool, false}}) {
      const AttentionShape shape{dtype, 1, v.e, v.ev, v.mask, v.causal, {}};
      const std::string what = std::string(dtype_name(dtype)) + " E " + std::to_string(v.e) +
                               " mask " + std::to_string(static_cast<int>(v.mask));
      expect_machine_code(attention_forward_source(shape), "forward " + what);
      expect_machine_code(attention_backward_source(shape), "backward " + what);
    }
  }
}

TEST(CudaAttentionShape, TakesHalfAndSingleFloatsUpToHeadDim128) {
  const ir::Attention op{0.125, true};
  const std::optional<AttentionShape> shape = attention_shape(op, qkv({8, 16}, 100, 70, 64, 32));
  ASSERT_TRUE(shape.has_value());
  EXPECT_EQ(shape->batches, 128);
  EXPECT_EQ(shape->e, 64);
  EXPECT_EQ(shape->ev, 32);
  EXPECT_EQ(shape->parameters.l, 100);
  EXPECT_EQ(shape->parameters.s, 70);
  EXPECT_EQ(shape->parameters.scale, 0.125);
  EXPECT_TRUE(shape->causal);
  EXPECT_EQ(shape->mask, AttentionMask::None);
  EXPECT_TRUE(attention_shape(op, qkv({2}, 5, 5, 128, 128, DType::BF16)).has_value());
  EXPECT_TRUE(attention_shape(op, qkv({}, 5, 5, 1, 1, DType::F16)).has_value());
  EXPECT_FALSE(attention_shape(op, qkv({2}, 5, 5, 129, 64)).has_value());
  EXPECT_FALSE(attention_shape(op, qkv({2}, 5, 5, 64, 130)).has_value());
  EXPECT_FALSE(attention_shape(op, qkv({2}, 5, 5, 64, 64, DType::F64)).has_value());
  EXPECT_FALSE(attention_shape(op, qkv({2}, 0, 5, 64, 64)).has_value());
  EXPECT_FALSE(attention_shape(op, qkv({0}, 5, 5, 64, 64)).has_value());
}

TEST(CudaAttentionShape, HalfFloatsWithHeadDimsOfWholeFragmentsRunOnTensorCores) {
  const ir::Attention op{0.125, false};
  const auto tensor_cores = [&](int64_t e, int64_t ev, DType dtype) {
    return uses_tensor_cores(*attention_shape(op, qkv({2}, 5, 5, e, ev, dtype)));
  };
  EXPECT_TRUE(tensor_cores(64, 64, DType::BF16));
  EXPECT_TRUE(tensor_cores(128, 16, DType::F16));
  EXPECT_FALSE(tensor_cores(64, 64, DType::F32));
  EXPECT_FALSE(tensor_cores(24, 64, DType::BF16));  // E not a multiple of 16
  EXPECT_FALSE(tensor_cores(64, 8, DType::F16));    // nor Ev
  // The backward's registers hold head dims up to 64.
  const auto backward = [&](int64_t e, int64_t ev) {
    return backward_uses_tensor_cores(*attention_shape(op, qkv({2}, 5, 5, e, ev, DType::BF16)));
  };
  EXPECT_TRUE(backward(64, 32));
  EXPECT_FALSE(backward(128, 64));
  EXPECT_FALSE(backward(64, 128));
  const AttentionShape half = *attention_shape(op, qkv({2}, 5, 5, 64, 64, DType::BF16));
  EXPECT_EQ(attention_forward_grid(half).rows, 128);
  EXPECT_EQ(attention_backward_grid(half).rows, 64);
  const AttentionShape single = *attention_shape(op, qkv({2}, 5, 5, 64, 64));
  EXPECT_EQ(attention_forward_grid(single).rows, 64);  // register tiles up to head dim 64
  EXPECT_EQ(attention_backward_grid(single).rows, kAttentionRows);
  const AttentionShape wide = *attention_shape(op, qkv({2}, 5, 5, 64, 128));
  EXPECT_EQ(attention_forward_grid(wide).rows, kAttentionRows);
}

/// The mask strides attention_shape finds for mask over q, k, v of batch [2, 3], L 4, S 5.
AttentionParameters mask_strides(const Shape& mask, DType dtype = DType::Bool) {
  std::vector<ir::TensorMeta> in = qkv({2, 3}, 4, 5, 8, 8);
  in.push_back(meta(mask, dtype));
  const std::optional<AttentionShape> shape = attention_shape({1.0, false}, in);
  EXPECT_TRUE(shape.has_value()) << mask;
  return shape ? shape->parameters : AttentionParameters{};
}

TEST(CudaAttentionShape, ReadsBroadcastMasksThroughTwoBatchStrides) {
  // [2, 3, 4, 5]: the batch dims merge, entry b at b * 20.
  AttentionParameters p = mask_strides({2, 3, 4, 5});
  EXPECT_EQ(p.mask_row_stride, 5);
  EXPECT_EQ(p.mask_col_stride, 1);
  EXPECT_EQ(p.mask_inner, 6);
  EXPECT_EQ(p.mask_inner_stride, 20);
  // Key padding [2, 1, 1, 5]: entry (n, h) at n * 5, whatever h.
  p = mask_strides({2, 1, 1, 5});
  EXPECT_EQ(p.mask_inner, 3);
  EXPECT_EQ(p.mask_outer_stride, 5);
  EXPECT_EQ(p.mask_inner_stride, 0);
  EXPECT_EQ(p.mask_row_stride, 0);
  EXPECT_EQ(p.mask_col_stride, 1);
  // [4, 5] and [1, 1, 4, 5]: every entry reads the same matrix.
  for (const Shape& shared : {Shape{4, 5}, Shape{1, 1, 4, 5}}) {
    p = mask_strides(shared, DType::F32);
    EXPECT_EQ(p.mask_outer_stride, 0) << shared;
    EXPECT_EQ(p.mask_inner_stride, 0) << shared;
    EXPECT_EQ(p.mask_row_stride, 5) << shared;
  }
  // [3, 1, 5]: one row per head h = b % 3.
  p = mask_strides({3, 1, 5});
  EXPECT_EQ(p.mask_inner, 3);
  EXPECT_EQ(p.mask_inner_stride, 5);
  EXPECT_EQ(p.mask_outer_stride, 0);
}

TEST(CudaAttentionShape, RefusesAMaskWhoseBatchDimsNeedThreeStrides) {
  // Batch [2, 4, 3] with a mask varying along dims 0 and 2 but not 1: no two merged runs.
  std::vector<ir::TensorMeta> in = qkv({2, 4, 3}, 4, 5, 8, 8);
  in.push_back(meta({2, 1, 3, 4, 5}, DType::Bool));
  EXPECT_FALSE(attention_shape({1.0, false}, in).has_value());
}

// ---- on a GPU -----------------------------------------------------------------------------

using ::ember::test::AttentionCase;
using ::ember::test::MaskKind;

/// The fused kernels' error bound in dtype against the f32 composite: f32 sums in another order;
/// f16 and bf16 round the result once (plus their inputs' rounding in the reference's f32
/// products, which both sides share).
Tolerance fused_tolerance(DType dtype) {
  switch (dtype) {
    case DType::F16:
      return {1e-2, 1e-2};
    case DType::BF16:
      return {3e-2, 3e-2};
    default:
      return {1e-3, 1e-4};
  }
}

class CudaAttention : public ::testing::TestWithParam<AttentionCase> {};

TEST_P(CudaAttention, FusedKernelsMatchTheCompositeOnTheGpu) {
  EMBER_SKIP_WITHOUT_GPU(gpu);
  const AttentionCase& c = GetParam();
  const char* parts[] = {"out", "dq", "dk", "dv"};
  for (const DType dtype : {DType::F32, DType::F16, DType::BF16}) {
    const std::vector<TensorData> reference =
        ::ember::test::attend(c, *gpu, dtype, DType::F32, tensor::FusedPath::Composite);
    const std::vector<TensorData> fused =
        ::ember::test::attend(c, *gpu, dtype, dtype, tensor::FusedPath::Fused);
    for (std::size_t i = 0; i < fused.size(); ++i) {
      std::string why;
      EXPECT_TRUE(fused[i].approx_equal(reference[i], fused_tolerance(dtype), &why))
          << dtype_name(dtype) << " " << parts[i] << ": " << why;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CudaAttention,
    ::testing::Values(
        AttentionCase{"small", {2, 3}, 5, 7, 4, 6},
        AttentionCase{"tiles_head64", {2, 2}, 100, 150, 64, 64},
        AttentionCase{"causal_head128", {1, 2}, 70, 70, 128, 128, true},
        AttentionCase{"causal_query_blocks", {2}, 300, 260, 64, 64, true},
        AttentionCase{"query_blocks_head48", {2}, 200, 330, 48, 80},
        AttentionCase{"causal_more_queries", {2}, 80, 33, 16, 24, true},
        AttentionCase{"key_padding", {2, 3}, 40, 50, 32, 32, false, MaskKind::Bool, {2, 1, 1, 50}},
        AttentionCase{"float_mask", {2, 3}, 40, 50, 32, 48, false, MaskKind::Float, {40, 50}},
        AttentionCase{"odd_head_dims", {3}, 33, 65, 3, 5, false, MaskKind::Bool, {3, 33, 65}}),
    [](const ::testing::TestParamInfo<AttentionCase>& info) { return info.param.name; });

}  // namespace
}  // namespace ember::cuda
