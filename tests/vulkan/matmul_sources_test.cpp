// The vulkan matmul kernels' GLSL (backends/vulkan/matmul_sources.h) compiles with shaderc,
// without a device: the tiled kernel on every dtype it takes, and the cooperative-matrix kernel
// (its operands read element by element, and 16 bytes at a time) on the shapes NVIDIA's driver
// reports (lavapipe has no cooperative matrices, so only a GPU runs it: vulkan_device_test's
// CooperativeF16Matmul).
#include <gtest/gtest.h>

#include "backends/vulkan/cooperative_matrix.h"
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

TEST(VulkanMatmulSources, CooperativeKernelCompilesInEveryLayoutTheSweepTries) {
  // bench/results/gpu_backends.md's sweep: more subgroups, deeper or shallower k steps, one
  // shared buffer, smaller tiles. Each layout's shared memory holds its operands' stages, and
  // every subgroup's accumulator after the last step.
  for (const char* text :
       {"2,2,4,4,2,2", "2,4,4,2,2,2", "4,2,2,4,2,2", "2,2,4,4,4,1", "2,4,4,2,4,1", "4,4,2,2,2,2",
        "2,2,2,2,2,2", "2,2,4,4,1,2", "4,4,2,2,4,1"}) {
    const vulkan::CooperativeShape shape{16, 16, 16, 32, vulkan::parse_cooperative_layout(text)};
    const uint64_t tile = vulkan::cooperative_tile_rows(shape);
    EXPECT_EQ(vulkan::cooperative_tile_cols(shape), tile) << text;
    const uint64_t stages = (tile + tile) * shape.layout.k_steps * 16 * 2 *
                            shape.layout.shared_buffers;  // unpadded bytes of f16
    EXPECT_GE(vulkan::cooperative_shared_bytes(shape), stages) << text;
    const uint64_t results =
        uint64_t{shape.layout.subgroup_rows} * shape.layout.subgroup_cols * shape.m * shape.n * 4;
    EXPECT_GE(vulkan::cooperative_shared_bytes(shape), results) << text;
    for (const bool aligned : {false, true}) {
      const std::string source = vulkan::cooperative_matmul_source(shape, aligned);
      EXPECT_EQ(compile_errors(source), "") << text << (aligned ? " aligned" : "") << "\n"
                                            << source;
    }
  }
}

TEST(VulkanMatmulSources, CooperativeLayoutParsesSixNumbersAndRefusesTheRest) {
  const vulkan::CooperativeLayout layout = vulkan::parse_cooperative_layout("2,4,4,2,1,2");
  EXPECT_EQ(layout.subgroup_rows, 2u);
  EXPECT_EQ(layout.subgroup_cols, 4u);
  EXPECT_EQ(layout.tile_rows, 4u);
  EXPECT_EQ(layout.tile_cols, 2u);
  EXPECT_EQ(layout.k_steps, 1u);
  EXPECT_EQ(layout.shared_buffers, 2u);
  for (const char* text :
       {"", "2,2,4,4,2", "2,2,4,4,2,2,", "2,2,4,4,2,2,1", "2,2,4,4,0,2", "2,2,4,4,17,2",
        "2,2,4,4,2,3", "2,2,4,2,2,2", "2;2;4;4;2;2", "-2,2,4,4,2,2", "2,2,4,4,2,x"}) {
    try {
      vulkan::parse_cooperative_layout(text);
      ADD_FAILURE() << "accepted \"" << text << "\"";
    } catch (const ConfigError& error) {
      EXPECT_NE(std::string(error.what()).find(vulkan::kCooperativeLayoutVariable),
                std::string::npos)
          << error.what();
      EXPECT_NE(std::string(error.what()).find(std::string("\"") + text + "\""), std::string::npos)
          << error.what();
    }
  }
}

}  // namespace
}  // namespace ember::test
