// The cuda backend's own kernels (kernel_sources.h) compile with NVRTC for sm_90, in every
// variant the backend asks for, on any machine with the toolkit: a GPU is not needed to keep them
// from rotting. Their values are checked on the GPU by the conformance suite.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "../codegen/codegen_test_util.h"
#include "backends/cuda/kernel_sources.h"
#include "ember/error.h"
#include "ir/ops.h"

namespace ember::cuda {
namespace {

using codegen::test::compile;

void expect_compiles(const std::string& source, const std::string& what) {
#ifdef EMBER_WITH_NVRTC
  const codegen::test::Compiled compiled = compile(source, "kernel", "compute_90");
  EXPECT_TRUE(compiled.ok) << what << "\n" << compiled.log << "\n" << source;
  EXPECT_FALSE(compiled.uses_local_memory()) << what << " keeps values in local memory:\n"
                                             << compiled.ptx;
#else
  (void)source;
  (void)what;
#endif
}

constexpr DType kFloats[] = {DType::F64, DType::F32, DType::F16, DType::BF16};

TEST(CudaKernelSources, CopiesCompileForEveryElementSize) {
  EMBER_SKIP_WITHOUT_NVRTC();
  for (const std::size_t size : {1, 2, 4, 8})
    expect_compiles(copy_source(size), "copy of " + std::to_string(size) + "-byte elements");
}

TEST(CudaKernelSources, CastsCompileBetweenEveryPairOfFloatDtypes) {
  EMBER_SKIP_WITHOUT_NVRTC();
  for (const DType from : kFloats) {
    for (const DType to : kFloats)
      expect_compiles(cast_source(from, to), "cast " + std::string(dtype_name(from)) + " to " +
                                                 std::string(dtype_name(to)));
  }
}

TEST(CudaKernelSources, ReductionsCompileForEveryOpAndDtype) {
  EMBER_SKIP_WITHOUT_NVRTC();
  for (const ir::ReduceOp op : ir::OpList<ir::ReduceOp>::all) {
    for (const DType dtype : kAllDTypes) {
      const ir::Reduce reduce{op, 0};
      const ir::TensorMeta x{Shape{2, 3}, dtype};
      // Every dtype ir::infer accepts has a kernel (the others never reach the backend).
      DType out = dtype;
      try {
        out = ir::infer(ir::Op(reduce), {&x, 1})[0].dtype;
      } catch (const InvalidArgument&) {
        continue;
      }
      ASSERT_TRUE(has_reduce_kernel(op, dtype))
          << ir::name(ir::Op(reduce)) << " " << dtype_name(dtype);
      expect_compiles(reduce_source(reduce, dtype, out),
                      ir::name(ir::Op(reduce)) + " " + std::string(dtype_name(dtype)));
    }
  }
}

TEST(CudaKernelSources, SoftmaxCompilesForEveryFloatDtype) {
  EMBER_SKIP_WITHOUT_NVRTC();
  for (const bool log : {false, true}) {
    for (const DType dtype : kFloats) {
      const int whole = static_cast<int>(16 / dtype_size(dtype));  // the backend's 16-byte loads
      for (const auto& [per_lane, vector] :
           {std::pair{1, 1}, std::pair{32, 1}, std::pair{32, whole}})
        expect_compiles(softmax_source(ir::Softmax{0, log}, dtype, per_lane, vector),
                        std::string(log ? "log_softmax " : "softmax ") +
                            std::string(dtype_name(dtype)) + " per lane " +
                            std::to_string(per_lane) + " vector " + std::to_string(vector));
    }
  }
}

TEST(CudaKernelSources, RandomCompilesForEveryDistributionAndDrawnDtype) {
  EMBER_SKIP_WITHOUT_NVRTC();
  for (const auto kind : {Distribution::Kind::Default, Distribution::Kind::Uniform,
                          Distribution::Kind::Normal, Distribution::Kind::Bernoulli}) {
    for (const DType dtype : {DType::F32, DType::F16, DType::BF16})
      expect_compiles(random_source(kind, dtype), "random " + std::string(dtype_name(dtype)));
  }
}

TEST(CudaKernelSources, ColumnsCompileForEveryFloatDtype) {
  EMBER_SKIP_WITHOUT_NVRTC();
  for (const DType dtype : kFloats)
    expect_compiles(columns_source(dtype), "im2col/col2im " + std::string(dtype_name(dtype)));
}

TEST(CudaKernelSources, PoolingCompilesForEveryFloatDtype) {
  EMBER_SKIP_WITHOUT_NVRTC();
  for (const DType dtype : kFloats) {
    for (const DType index : {DType::I64, DType::I32})
      expect_compiles(pool_source(dtype, index), "pool " + std::string(dtype_name(dtype)));
  }
}

constexpr DType kIntegers[] = {DType::I64, DType::I32, DType::I16, DType::I8,
                               DType::U64, DType::U32, DType::U16, DType::U8};

TEST(CudaKernelSources, IndexingCompilesForEveryIndexDtype) {
  EMBER_SKIP_WITHOUT_NVRTC();
  for (const DType index : kIntegers) {
    const std::string name(dtype_name(index));
    expect_compiles(check_indices_source(index), "check_indices " + name);
    for (const std::size_t size : {1, 2, 4, 8})
      expect_compiles(gather_source(size, index), "gather " + name);
    for (const DType dtype : kAllDTypes) {
      if (adds_atomically(dtype))
        expect_compiles(scatter_add_source(dtype, index),
                        "scatter_add " + std::string(dtype_name(dtype)) + " by " + name);
    }
    for (const std::size_t size : {1, 2, 4, 8}) {
      for (const bool wide : {false, true})
        expect_compiles(scatter_assign_source(size, index, wide),
                        "scatter_assign of " + std::to_string(size) + "-byte elements by " + name +
                            (wide ? ", 64-bit positions" : ""));
    }
  }
}

}  // namespace
}  // namespace ember::cuda
