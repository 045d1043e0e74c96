// The cuda backend's interpolation and average pooling gradient kernels (resample_kernels.h):
// their sources compile with NVRTC to sm_90 machine code for every float dtype, and the tables
// they read list what reaches each destination element in the order ndarray's loops add it (the
// values themselves are checked on the GPU by the conformance suite).
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/cuda/resample_kernels.h"
#include "cuda_test_util.h"

namespace ember::cuda {
namespace {

constexpr DType kFloatDTypes[] = {DType::F64, DType::F32, DType::F16, DType::BF16};

using test::expect_machine_code;

TEST(CudaResampleKernels, CompileForEveryFloatDtype) {
  EMBER_SKIP_WITHOUT_NVRTC();
  for (const DType dtype : kFloatDTypes) {
    expect_machine_code(resample_source(dtype), "resample " + std::string(dtype_name(dtype)));
    expect_machine_code(avg_pool_grad_source(dtype),
                        "avg_pool_grad " + std::string(dtype_name(dtype)));
  }
}

/// Two outputs over three inputs: output 0 reads inputs 0 and 1, output 1 inputs 1 and 2.
ndarray::interpolate::DimPlan two_taps_plan() {
  ndarray::interpolate::DimPlan plan{3, 2, {}};
  plan.taps.resize(2);
  plan.taps[0].add(0, 0.25);
  plan.taps[0].add(1, 0.75);
  plan.taps[1].add(1, 0.5);
  plan.taps[1].add(2, 0.5);
  return plan;
}

std::vector<int64_t> bits(std::vector<double> weights) {
  std::vector<int64_t> out;
  for (const double w : weights)
    out.push_back(std::bit_cast<int64_t>(w));
  return out;
}

TEST(CudaResampleKernels, ForwardTableListsEachOutputsTaps) {
  std::vector<int64_t> expected = {0, 2, 4, 0, 1, 1, 2};
  const std::vector<int64_t> weights = bits({0.25, 0.75, 0.5, 0.5});
  expected.insert(expected.end(), weights.begin(), weights.end());
  EXPECT_EQ(resample_table(two_taps_plan(), false), expected);
}

TEST(CudaResampleKernels, TransposedTableListsEachInputsOutputsInScatterOrder) {
  // Input 1 is reached by output 0 (weight 0.75), then output 1 (0.5): the order ndarray adds.
  std::vector<int64_t> expected = {0, 1, 3, 4, 0, 0, 1, 1};
  const std::vector<int64_t> weights = bits({0.25, 0.75, 0.5, 0.5});
  expected.insert(expected.end(), weights.begin(), weights.end());
  EXPECT_EQ(resample_table(two_taps_plan(), true), expected);
}

TEST(CudaResampleKernels, PoolGradCoversListEachInputsWindowsAscending) {
  // A 1-d pool of kernel 3, stride 2, padding 1 over 6 inputs: windows [-1, 1], [1, 3], [3, 5]
  // clipped to the input.
  const ir::Pool pool{ir::PoolOp::Avg, {3}, {2}, {1}, {1}};
  const ndarray::pool::Windows windows =
      ndarray::pool::pool_windows(pool, Shape{1, 1, 6}, Shape{1, 1, 3});
  const PoolGradTables tables = pool_grad_tables(windows);
  // The two front axes: one window {0, 1, 1} over one input, covered by it.
  EXPECT_EQ(tables.windows_at[0], 0u);
  const std::vector<int64_t> front = {0, 1, 1, 0, 1, 0};
  EXPECT_EQ(std::vector<int64_t>(tables.table.begin(), tables.table.begin() + 6), front);
  const std::size_t at = tables.covers_at[2];
  const std::vector<int64_t> covers(tables.table.begin() + static_cast<std::ptrdiff_t>(at),
                                    tables.table.end());
  // Inputs 0..5 are held by windows {0}, {0, 1}, {1}, {1, 2}, {2}, {2}.
  const std::vector<int64_t> expected = {0, 1, 3, 4, 6, 7, 8, 0, 0, 1, 1, 1, 2, 2, 2};
  EXPECT_EQ(covers, expected);
}

}  // namespace
}  // namespace ember::cuda
