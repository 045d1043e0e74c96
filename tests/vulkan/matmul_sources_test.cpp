// The vulkan matmul kernels' GLSL (backends/vulkan/matmul_sources.h) compiles with shaderc,
// without a device: the tiled kernel on every dtype it takes, and the cooperative-matrix kernel
// (its operands read element by element, and 16 bytes at a time) on the shapes NVIDIA's driver
// reports (lavapipe has no cooperative matrices, so only a GPU runs it: vulkan_device_test's
// CooperativeF16Matmul).
#include <gtest/gtest.h>

#include "backends/vulkan/matmul_sources.h"
#include "ember/error.h"
#include "vulkan/shaderc_compile.h"

namespace ember::test {
namespace {

TEST(VulkanMatmulSources, TiledKernelCompilesOnEveryDtypeItTakes) {
  for (const DType dtype : {DType::F32, DType::F64, DType::F16}) {
    const std::string source = vulkan::tiled_matmul_source(dtype);
    EXPECT_EQ(compile_errors(source), "") << dtype << "\n" << source;
  }
}

TEST(VulkanMatmulSources, TiledKernelRefusesOtherDtypes) {
  EXPECT_THROW(vulkan::tiled_matmul_source(DType::BF16), InvalidArgument);
  EXPECT_THROW(vulkan::tiled_matmul_source(DType::I32), InvalidArgument);
}

TEST(VulkanMatmulSources, CooperativeKernelCompilesOnTheDriversShapes) {
  // NVIDIA's driver reports 16 x 16 x 16 and 16 x 8 x 16 (f16 operands, f32 accumulators) in
  // subgroups of 32.
  for (const vulkan::CooperativeShape shape :
       {vulkan::CooperativeShape{16, 16, 16, 32}, vulkan::CooperativeShape{16, 8, 16, 32}}) {
    for (const bool aligned : {false, true}) {
      const std::string source = vulkan::cooperative_matmul_source(shape, aligned);
      EXPECT_EQ(compile_errors(source), "")
          << shape.m << "x" << shape.n << "x" << shape.k << (aligned ? " aligned" : "") << "\n"
          << source;
    }
  }
}

}  // namespace
}  // namespace ember::test
