#include "support/shader_attention_checks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "backends/shader/host_runs.h"
#include "core/device_context.h"
#include "ember/functional.h"
#include "ir/ops.h"
#include "support/attention_paths.h"
#include "tensor/dispatch.h"

namespace ember::test {
namespace {

/// How often the fused attention ops went to the host so far.
uint64_t attention_host_runs() {
  const std::map<std::string, uint64_t> counts = shader::HostRuns::counts_so_far();
  uint64_t runs = 0;
  for (const char* name : {"scaled_dot_product_attention", "scaled_dot_product_attention_backward"})
    if (const auto it = counts.find(name); it != counts.end()) runs += it->second;
  return runs;
}

/// q [*batch, l, e], k [*batch, s, e], v [*batch, s, ev] of dtype.
std::vector<ir::TensorMeta> qkv(const Shape& batch, int64_t l, int64_t s, int64_t e, int64_t ev,
                                DType dtype = DType::F32) {
  return {{with_tail(batch, {l, e}), dtype},
          {with_tail(batch, {s, e}), dtype},
          {with_tail(batch, {s, ev}), dtype}};
}

/// The f32 kernels' distance from the f32 composite: sums and exponentials in another order.
constexpr Tolerance kFusedTolerance{1e-4, 1e-5};

}  // namespace

void expect_attention_runs_on_the_device(const Device& device) {
  const backend::Backend& backend = detail::DeviceContext::of(device.as_dispatch())->backend();
  const ir::Attention plain{0.5, false};
  EXPECT_TRUE(backend.runs_fused_attention(plain, qkv({2, 3}, 5, 7, 4, 6)));
  std::vector<ir::TensorMeta> masked = qkv({2, 3}, 5, 7, 4, 6);
  masked.push_back({Shape{2, 1, 1, 7}, DType::Bool});
  EXPECT_TRUE(backend.runs_fused_attention({0.5, true}, masked));
  EXPECT_FALSE(backend.runs_fused_attention(plain, qkv({2}, 5, 7, 129, 6)));
  EXPECT_FALSE(backend.runs_fused_attention(plain, qkv({2}, 5, 7, 4, 129)));
  EXPECT_FALSE(backend.runs_fused_attention(plain, qkv({2}, 5, 7, 4, 6, DType::F64)));

  const uint64_t before = attention_host_runs();
  const char* parts[] = {"out", "dq", "dk", "dv"};
  for (const AttentionCase& c : {
           AttentionCase{"batch_dims", {2, 3}, 5, 7, 4, 6},
           AttentionCase{"causal_tiles", {2}, 70, 40, 16, 24, true},
           AttentionCase{"causal_more_keys", {1, 2}, 20, 37, 8, 8, true},
           AttentionCase{"key_padding", {2, 3}, 40, 50, 8, 8, false, MaskKind::Bool, {2, 1, 1, 50}},
           AttentionCase{"float_mask", {2, 3}, 40, 50, 8, 12, false, MaskKind::Float, {40, 50}},
           AttentionCase{"head_dim_128", {1}, 3, 20, 128, 128},
           // Past the kernels' head dims: the composite, on the device's matmul and softmax.
           AttentionCase{"head_dim_129", {2}, 3, 5, 129, 4},
       }) {
    const std::vector<TensorData> reference =
        attend(c, Device::ndarray(), DType::F32, DType::F32, tensor::FusedPath::Composite);
    const std::vector<TensorData> fused =
        attend(c, device, DType::F32, DType::F32, tensor::FusedPath::Backend);
    for (std::size_t i = 0; i < fused.size(); ++i) {
      std::string why;
      EXPECT_TRUE(fused[i].approx_equal(reference[i], kFusedTolerance, &why))
          << c.name << " " << parts[i] << ": " << why;
    }
  }
  EXPECT_EQ(attention_host_runs(), before);
}

void expect_masked_out_row_matches_the_host(const Device& device) {
  // Query 1 of each batch entry attends no key; the others some.
  const Shape mask_shape{3, 4};
  const std::vector<double> keep = {1, 0, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0};
  const auto run = [&](const Device& on) {
    ops::Handles in;
    in.push_back(
        ops::from_data(wavy_values({2, 3, 5}, 0.1).convert(DType::F32), on, TensorKind::Float));
    in.push_back(
        ops::from_data(wavy_values({2, 4, 5}, 0.7).convert(DType::F32), on, TensorKind::Float));
    in.push_back(
        ops::from_data(wavy_values({2, 4, 6}, 1.3).convert(DType::F32), on, TensorKind::Float));
    in.push_back(ops::from_data(TensorData(keep, mask_shape, DType::Bool), on, TensorKind::Bool));
    return tensor::run(ir::Attention{0.5, false}, in);
  };
  const ops::Handles expected = run(Device::ndarray());
  const uint64_t before = attention_host_runs();
  const ops::Handles actual = run(device);
  for (std::size_t i = 0; i < 2; ++i) {
    std::string why;
    EXPECT_TRUE(
        ops::into_data(actual[i]).approx_equal(ops::into_data(expected[i]), kFusedTolerance, &why))
        << (i == 0 ? "out: " : "lse: ") << why;
  }
  const std::vector<float> lse = ops::into_data(actual[1]).to_vector<float>();
  EXPECT_TRUE(std::isinf(lse[1]) && lse[1] < 0) << lse[1];
  EXPECT_TRUE(std::isnan(ops::into_data(actual[0]).to_vector<float>()[6]));
  EXPECT_EQ(attention_host_runs(), before);
}

}  // namespace ember::test
