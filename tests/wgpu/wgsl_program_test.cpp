// The WGSL emitter (codegen/wgsl.h, wgsl_program.h): its constants are exact, its small integers
// wrap as the dtype does, it refuses what WGSL cannot compute (naming why), and every lone op it
// writes is a shader wgpu-native accepts (on the first adapter; skipped, saying why, without
// one). Also the context: an invalid command poisons the device, and every later call says why.
// The values the kernels compute are the conformance suite's (on lavapipe, against ndarray).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/wgpu/command_stream.h"
#include "backends/wgpu/kernel_cache.h"
#include "backends/wgpu/wgpu_context.h"
#include "codegen/glsl_program.h"
#include "codegen/wgsl.h"
#include "codegen/wgsl_program.h"
#include "ember/error.h"
#include "ir/ops.h"
#include "ir/program.h"
#include "support/lone_programs.h"

namespace ember::test {
namespace {

using codegen::Wgsl;

/// A context on the first adapter, or nullptr where there is none.
std::shared_ptr<wgpu::Context> first_context() {
  if (wgpu::adapters().empty()) return nullptr;
  return std::make_shared<wgpu::Context>(wgpu::adapters().front(), "wgpu:test");
}

TEST(WgslTarget, ConstantsAreWrittenFromTheirBits) {
  EXPECT_EQ(Wgsl(DType::F32).literal(0.1), "bitcast<f32>(0x3dcccccdu)");
  EXPECT_EQ(Wgsl(DType::F32).literal(-INFINITY), "bitcast<f32>(0xff800000u)");
  EXPECT_EQ(Wgsl(DType::F32).literal(1e-45), "bitcast<f32>(0x00000001u)");  // subnormal
  EXPECT_THROW(Wgsl(DType::F64), InvalidArgument);
  EXPECT_THROW(Wgsl(DType::I64), InvalidArgument);
}

TEST(WgslTarget, IntegersAreTheDTypesValuesAndWrapToItsWidth) {
  EXPECT_EQ(Wgsl(DType::U8).integer_literal(-1), "255u");
  EXPECT_EQ(Wgsl(DType::I8).integer_literal(200), "(-56i)");
  EXPECT_EQ(Wgsl(DType::I16).integer_literal(40000), "(-25536i)");
  EXPECT_EQ(Wgsl(DType::I32).integer_literal(INT32_MIN), "(-2147483647i - 1i)");
  EXPECT_EQ(Wgsl(DType::U32).integer_literal(-1), "4294967295u");
  const Wgsl i8(DType::I8);
  EXPECT_EQ(i8.add("a", "b"), "v0");
  EXPECT_NE(i8.statements().find("let v0 = extractBits(a + b, 0u, 8u);"), std::string::npos)
      << i8.statements();
  // WGSL has no ?:: a select, both sides evaluated.
  const Wgsl f32(DType::F32);
  f32.max("a", "b");
  EXPECT_NE(f32.statements().find("let v0 = select(a, b, a < b);"), std::string::npos)
      << f32.statements();
}

TEST(WgslProgram, RefusesWhatWgslCannotComputeNamingWhy) {
  const auto refusal = [](const ir::Op& op, std::vector<DType> dtypes) {
    return codegen::wgsl_program_refusal(lone_program(op, std::move(dtypes)));
  };
  EXPECT_EQ(refusal(ir::Unary{ir::UnaryOp::Exp}, {DType::F32}), "");
  EXPECT_EQ(refusal(ir::Binary{ir::BinaryOp::Mul}, {DType::I8, DType::I8}), "");
  EXPECT_EQ(refusal(ir::Unary{ir::UnaryOp::Not}, {DType::Bool}), "");
  EXPECT_EQ(refusal(ir::Unary{ir::UnaryOp::Neg}, {DType::F16}), "");
  EXPECT_NE(refusal(ir::Unary{ir::UnaryOp::Neg}, {DType::F64}).find("f64"), std::string::npos);
  EXPECT_NE(refusal(ir::Unary{ir::UnaryOp::Neg}, {DType::I64}).find("i64"), std::string::npos);
  EXPECT_NE(refusal(ir::Unary{ir::UnaryOp::Neg}, {DType::BF16}).find("bf16"), std::string::npos);
  // gelu's erfc and erf are formulas.h's approximations on f32.
  EXPECT_EQ(refusal(ir::Activation{ir::ActivationOp::Gelu}, {DType::F32}), "");
  EXPECT_EQ(refusal(ir::Unary{ir::UnaryOp::Erf}, {DType::F32}), "");
  EXPECT_THROW(
      codegen::wgsl_program_kernel(lone_program(ir::Unary{ir::UnaryOp::Neg}, {DType::F64})),
      InvalidArgument);
}

TEST(WgslProgram, EveryLoneOpItWritesIsAShaderWgpuNativeAccepts) {
  const std::shared_ptr<wgpu::Context> context = first_context();
  if (context == nullptr) GTEST_SKIP() << "no WebGPU adapter (install mesa-vulkan-drivers)";
  wgpu::KernelCache kernels(context);
  // The dtypes whose spelling differs most: f16's rounding, 8-bit wrapping, packed 16-bit words.
  const std::vector<ir::Program> programs = lone_programs({DType::F16, DType::I8, DType::U16});
  std::size_t written = 0;
  for (const ir::Program& program : programs) {
    if (!codegen::wgsl_program_refusal(program).empty()) continue;
    const std::string source = codegen::wgsl_program_kernel(program);
    EXPECT_NO_THROW(kernels.kernel(source)) << program.describe();
    ++written;
  }
  EXPECT_GT(written, 60u);
  EXPECT_FALSE(context->poisoned());
}

TEST(WgslProgram, EveryFlatKernelItWritesIsAShaderWgpuNativeAccepts) {
  const std::shared_ptr<wgpu::Context> context = first_context();
  if (context == nullptr) GTEST_SKIP() << "no WebGPU adapter (install mesa-vulkan-drivers)";
  wgpu::KernelCache kernels(context);
  std::size_t written = 0;
  // Every lone op whose tensors are all of 4 bytes (f16's is refused, naming why).
  for (const ir::Program& program : flat_lone_programs()) {
    if (!codegen::wgsl_program_refusal(program).empty()) continue;
    const std::string source = codegen::wgsl_flat_program_kernel(program);
    EXPECT_NE(source.find("array<vec4<"), std::string::npos) << source;
    EXPECT_NO_THROW(kernels.kernel(source)) << program.describe() << "\n" << source;
    ++written;
  }
  EXPECT_GT(written, 40u);
  EXPECT_THROW(
      codegen::wgsl_flat_program_kernel(lone_program(ir::Unary{ir::UnaryOp::Neg}, {DType::F16})),
      InvalidArgument);
  EXPECT_FALSE(context->poisoned());
}

TEST(WgpuContext, AnInvalidCommandPoisonsTheDeviceAndEveryLaterCallSaysWhy) {
  const std::shared_ptr<wgpu::Context> context = first_context();
  if (context == nullptr) GTEST_SKIP() << "no WebGPU adapter (install mesa-vulkan-drivers)";
  wgpu::CommandStream stream(context);
  WGPUBufferDescriptor descriptor = WGPU_BUFFER_DESCRIPTOR_INIT;
  descriptor.usage = WGPUBufferUsage_CopyDst;
  descriptor.size = 64;
  const WGPUBuffer buffer = wgpuDeviceCreateBuffer(context->device(), &descriptor);
  // Zeroing past the buffer's end: WebGPU's validation fails the command.
  stream.fill_zero({buffer, 0, 4096});
  EXPECT_THROW(stream.sync(), ExecutionError);
  EXPECT_TRUE(context->poisoned());
  try {
    context->check_usable();
    FAIL() << "a poisoned device was usable";
  } catch (const ExecutionError& e) {
    EXPECT_NE(std::string(e.what()).find("wgpu:test"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("unusable"), std::string::npos) << e.what();
  }
  wgpuBufferRelease(buffer);
}

}  // namespace
}  // namespace ember::test
