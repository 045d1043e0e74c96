// ndarray's fused attention kernels (ir::Attention, ir::AttentionGrad), the oracle of the GPU
// kernels: one row computed by hand, then the values and the gradients of q, k and v against the
// composite of matmul, softmax and the mask ops (the public function with each path forced on
// the ndarray device, through autodiff) in f64 and f32, with and without causal masking, Bool
// and Float masks, L != S and Ev != E.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ndarray_test_util.h"
#include "support/attention_paths.h"

namespace ember::ndarray::test {
namespace {

TEST(NdArrayAttention, OneRowByHand) {
  // Scores [1, 0]: weights e / (e + 1) and 1 / (e + 1) of v's two rows.
  const double e = std::exp(1.0);
  const std::vector<TensorData> out = run_all(
      ir::Attention{1.0, false}, {values_of({1, 0}, {1, 2}), values_of({1, 0, 0, 1}, {2, 2}),
                                  values_of({1, 2, 3, 4}, {2, 2})});
  ASSERT_EQ(out.size(), 2u);
  const std::vector<double> result = out[0].to_vector<double>();
  EXPECT_NEAR(result[0], (e * 1 + 3) / (e + 1), 1e-14);
  EXPECT_NEAR(result[1], (e * 2 + 4) / (e + 1), 1e-14);
  EXPECT_EQ(out[1].dtype(), DType::F64);
  EXPECT_NEAR(out[1].to_vector<double>()[0], std::log(e + 1), 1e-14);
}

TEST(NdArrayAttention, ARowWithNothingToAttendIsNaNWithLseMinusInfinity) {
  const std::vector<TensorData> out =
      run_all(ir::Attention{1.0, false},
              {values_of({1, 0}, {1, 2}), values_of({1, 0, 0, 1}, {2, 2}),
               values_of({1, 2, 3, 4}, {2, 2}), values_of({0, 0}, {1, 2}, DType::Bool)});
  EXPECT_TRUE(std::isnan(out[0].to_vector<double>()[0]));
  EXPECT_EQ(out[1].to_vector<double>()[0], -kInf);
}

using ember::test::AttentionCase;
using ember::test::MaskKind;

class NdArrayAttentionPath : public ::testing::TestWithParam<AttentionCase> {};

TEST_P(NdArrayAttentionPath, FusedOpMatchesTheComposite) {
  const AttentionCase& c = GetParam();
  const char* parts[] = {"result", "dq", "dk", "dv"};
  // f32: the composite rounds each op to f32, the fused op only its results.
  for (const auto& [dtype, tol] : {std::pair{DType::F64, Tolerance{1e-10, 1e-12}},
                                   std::pair{DType::F32, Tolerance{1e-4, 1e-5}}}) {
    const Device device = Device::ndarray();
    const std::vector<TensorData> fused =
        ember::test::attend(c, device, dtype, dtype, tensor::FusedPath::Fused);
    const std::vector<TensorData> composite =
        ember::test::attend(c, device, dtype, dtype, tensor::FusedPath::Composite);
    for (std::size_t i = 0; i < fused.size(); ++i) {
      std::string why;
      EXPECT_TRUE(fused[i].approx_equal(composite[i], tol, &why))
          << dtype_name(dtype) << " " << parts[i] << ": " << why;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, NdArrayAttentionPath,
    ::testing::Values(
        AttentionCase{"plain", {2, 3}, 5, 7, 4, 6}, AttentionCase{"no_batch", {}, 4, 5, 3, 3},
        AttentionCase{"causal_more_queries", {2}, 6, 4, 3, 5, true},
        AttentionCase{"causal_more_keys", {2}, 3, 6, 4, 2, true},
        AttentionCase{"bool_mask", {2, 2}, 5, 7, 4, 3, false, MaskKind::Bool, {1, 1, 5, 7}},
        AttentionCase{"key_padding", {2, 2}, 5, 7, 4, 3, false, MaskKind::Bool, {2, 1, 1, 7}},
        AttentionCase{"float_mask", {2, 2}, 5, 7, 4, 3, false, MaskKind::Float, {5, 7}},
        AttentionCase{"float_mask_per_batch", {2}, 3, 4, 2, 5, false, MaskKind::Float, {2, 3, 4}}),
    [](const ::testing::TestParamInfo<AttentionCase>& info) { return info.param.name; });

TEST(NdArrayAttentionPath, NdArrayRunsTheCompositeUnlessForced) {
  const ir::TensorMeta meta{Shape{1, 4, 8}, DType::F32};
  const std::vector<ir::TensorMeta> metas{meta, meta, meta};
  EXPECT_FALSE(NdArrayBackend().runs_fused_attention(ir::Attention{0.5, false}, metas));
}

}  // namespace
}  // namespace ember::ndarray::test
