// The cuda backend's cumulative, arange and sort kernels (scan_sort_kernels.h) compile with NVRTC
// to sm_90 machine code (so ptxas checks their registers and shared memory too), in every variant
// the backend asks for, on any machine with the toolkit. Their values are checked on the GPU by
// the conformance suite.
#include <gtest/gtest.h>

#include <string>

#include "backends/cuda/scan_sort_kernels.h"
#include "cuda_test_util.h"
#include "ir/ops.h"

namespace ember::cuda {
namespace {

using test::expect_machine_code;

TEST(CudaScanSortKernels, CumulativeCompilesForEveryOpAndNumericDtype) {
  EMBER_SKIP_WITHOUT_NVRTC();
  for (const ir::CumulativeOp op : {ir::CumulativeOp::Sum, ir::CumulativeOp::Prod,
                                    ir::CumulativeOp::Max, ir::CumulativeOp::Min}) {
    for (const DType dtype : kAllDTypes) {
      if (dtype == DType::Bool) continue;
      expect_machine_code(cumulative_source(op, dtype), "cumulative " +
                                                            std::to_string(static_cast<int>(op)) +
                                                            " " + std::string(dtype_name(dtype)));
    }
  }
}

TEST(CudaScanSortKernels, ArangeCompilesForEveryIntegerDtype) {
  EMBER_SKIP_WITHOUT_NVRTC();
  for (const DType dtype : kAllDTypes) {
    if (is_int(dtype)) expect_machine_code(arange_source(dtype), std::string(dtype_name(dtype)));
  }
}

TEST(CudaScanSortKernels, SortCompilesForEveryDtypeAndCapacity) {
  EMBER_SKIP_WITHOUT_NVRTC();
  for (const DType dtype : kAllDTypes) {
    for (const int64_t capacity : {int64_t{32}, kSortMaxLine}) {
      for (const bool descending : {false, true})
        expect_machine_code(
            sort_source(dtype, DType::I64, descending, capacity),
            "sort " + std::string(dtype_name(dtype)) + " capacity " + std::to_string(capacity));
    }
  }
  for (const DType index : {DType::I32, DType::U8})
    expect_machine_code(sort_source(DType::F32, index, false, 256),
                        "sort by " + std::string(dtype_name(index)));
}

TEST(CudaScanSortKernels, SortCapacityIsThePowerOfTwoThatHoldsTheLine) {
  EXPECT_EQ(sort_capacity(1), 32);
  EXPECT_EQ(sort_capacity(33), 64);
  EXPECT_EQ(sort_capacity(1024), 1024);
  EXPECT_EQ(sort_capacity(kSortMaxLine), kSortMaxLine);
  EXPECT_EQ(sort_threads(32), 32u);
  EXPECT_EQ(sort_threads(kSortMaxLine), 1024u);
}

}  // namespace
}  // namespace ember::cuda
