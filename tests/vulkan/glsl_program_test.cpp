// The GLSL emitter (codegen/glsl.h, glsl_program.h), without a device: its constants are exact,
// its integers wrap as the dtype does, it writes the ops GLSL computes well on what the device
// holds and refuses the others naming why, every lone op it writes compiles with shaderc, and the
// parameter block holds what the kernel reads. The values the kernels compute are the
// conformance suite's (on lavapipe, against ndarray).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "codegen/glsl.h"
#include "codegen/glsl_program.h"
#include "codegen/kernel_dims.h"
#include "ember/error.h"
#include "ir/ops.h"
#include "ir/program.h"
#include "support/lone_programs.h"
#include "vulkan/shaderc_compile.h"

namespace ember::test {
namespace {

using codegen::Glsl;
using codegen::GlslFeatures;

constexpr GlslFeatures kEverything{true, true, true, true};
constexpr GlslFeatures kNothing{false, false, false, false};

/// x + y (y one element broadcast), times a scalar: its exp and its gelu, two outputs (a fused
/// program the flat kernels take).
ir::Program flat_fused_program() {
  using Ref = ir::ProgramRef;
  ir::Program program;
  program.inputs = {{DType::F32, {false}}, {DType::F32, {true}}};
  const auto instruction = [&](const ir::Op& op, std::vector<Ref> args,
                               std::optional<uint32_t> constant = std::nullopt) {
    program.instructions.push_back({op, std::move(args), DType::F32, constant});
    return Ref{Ref::Kind::Instruction, static_cast<uint32_t>(program.instructions.size() - 1)};
  };
  const Ref sum =
      instruction(ir::Binary{ir::BinaryOp::Add}, {{Ref::Kind::Input, 0}, {Ref::Kind::Input, 1}});
  const Ref scaled = instruction(ir::BinaryScalar{ir::BinaryOp::Mul, Scalar(0.5)}, {sum}, 0);
  const Ref exp = instruction(ir::Unary{ir::UnaryOp::Exp}, {scaled});
  const Ref gelu = instruction(ir::Activation{ir::ActivationOp::Gelu}, {scaled});
  program.outputs = {exp.index, gelu.index};
  program.slots = ir::plan_slots(program);
  return program;
}

TEST(GlslTarget, ConstantsAreWrittenFromTheirBits) {
  EXPECT_EQ(Glsl(DType::F32).literal(0.1), "uintBitsToFloat(0x3dcccccdu)");
  EXPECT_EQ(Glsl(DType::F32).literal(-INFINITY), "uintBitsToFloat(0xff800000u)");
  EXPECT_EQ(Glsl(DType::F32).literal(1e-45), "uintBitsToFloat(0x00000001u)");  // subnormal
  EXPECT_EQ(Glsl(DType::F64).literal(1.0), "packDouble2x32(uvec2(0x00000000u, 0x3ff00000u))");
}

TEST(GlslTarget, IntegersAreTheDTypesValuesAndWrapToItsWidth) {
  EXPECT_EQ(Glsl(DType::U8).integer_literal(-1), "255u");
  EXPECT_EQ(Glsl(DType::I8).integer_literal(200), "(-56)");
  EXPECT_EQ(Glsl(DType::I32).integer_literal(INT32_MIN), "(-2147483647 - 1)");
  EXPECT_EQ(Glsl(DType::I64).integer_literal(INT64_MIN), "(-9223372036854775807l - 1l)");
  EXPECT_EQ(Glsl(DType::U64).integer_literal(-1), "18446744073709551615ul");
  const Glsl i8(DType::I8);
  EXPECT_EQ(i8.add("a", "b"), "v0");
  EXPECT_NE(i8.statements().find("int v0 = bitfieldExtract(a + b, 0, 8);"), std::string::npos)
      << i8.statements();
  const Glsl f32(DType::F32);
  f32.mul("a", "b");
  EXPECT_NE(f32.statements().find("precise float v0 = a * b;"), std::string::npos)
      << f32.statements();
}

TEST(GlslProgram, WritesWhatGlslComputesWellAndRefusesTheRestNamingWhy) {
  const auto written = [](const ir::Op& op, std::vector<DType> dtypes, GlslFeatures features) {
    return codegen::glsl_program_refusal(lone_program(op, std::move(dtypes)), features);
  };
  EXPECT_EQ(written(ir::Unary{ir::UnaryOp::Exp}, {DType::F32}, kNothing), "");
  EXPECT_EQ(written(ir::Binary{ir::BinaryOp::Add}, {DType::F64, DType::F64}, kEverything), "");
  EXPECT_EQ(written(ir::Binary{ir::BinaryOp::Mul}, {DType::I8, DType::I8}, kEverything), "");
  // No transcendental function on doubles; gelu (erfc) and erf on f32 only.
  EXPECT_NE(written(ir::Unary{ir::UnaryOp::Exp}, {DType::F64}, kEverything).find("(exp) on f64"),
            std::string::npos);
  EXPECT_EQ(written(ir::Activation{ir::ActivationOp::Gelu}, {DType::F32}, kNothing), "");
  EXPECT_NE(written(ir::Activation{ir::ActivationOp::Gelu}, {DType::F64}, kEverything)
                .find("needs a function GLSL does not compute exactly enough"),
            std::string::npos);
  EXPECT_EQ(written(ir::Unary{ir::UnaryOp::Erf}, {DType::F32}, kNothing), "");
  EXPECT_NE(written(ir::Unary{ir::UnaryOp::Erf}, {DType::F64}, kEverything)
                .find("needs a function GLSL does not compute exactly enough"),
            std::string::npos);
  // What the device cannot hold.
  EXPECT_NE(written(ir::Unary{ir::UnaryOp::Neg}, {DType::I64}, kNothing).find("i64"),
            std::string::npos);
  EXPECT_NE(written(ir::Unary{ir::UnaryOp::Not}, {DType::Bool}, kNothing).find("bool"),
            std::string::npos);
  EXPECT_NE(written(ir::Unary{ir::UnaryOp::Neg}, {DType::BF16}, kEverything).find("bf16"),
            std::string::npos);
  EXPECT_EQ(written(ir::Unary{ir::UnaryOp::Neg}, {DType::I64}, kEverything), "");
  // The CUDA C emitter's host-only cases stay on the host here too.
  EXPECT_NE(written(ir::Binary{ir::BinaryOp::Div}, {DType::I32, DType::I32}, kEverything), "");
  EXPECT_THROW(codegen::glsl_program_kernel(lone_program(ir::Unary{ir::UnaryOp::Exp}, {DType::F64}),
                                            kEverything),
               InvalidArgument);
}

TEST(GlslProgram, EveryLoneOpItWritesCompiles) {
  // Every op on every dtype that ir accepts it on, for the dtypes whose spelling differs most
  // from C (f16's rounding helper, 8-bit wrapping); the conformance suite compiles every op on
  // every dtype on lavapipe.
  const std::vector<ir::Program> programs = lone_programs({DType::F16, DType::I8});
  int compiled = 0;
  for (const ir::Program& program : programs) {
    if (!codegen::glsl_program_refusal(program, kEverything).empty()) continue;
    const std::string source = codegen::glsl_program_kernel(program, kEverything);
    EXPECT_EQ(compile_errors(source), "") << program.describe() << "\n" << source;
    ++compiled;
  }
  EXPECT_GT(compiled, 60);
}

TEST(GlslProgram, TheFlatKernelTakesContiguousAlignedFourByteTensorsOnly) {
  const ir::Program add = lone_program(ir::Binary{ir::BinaryOp::Add}, {DType::F32, DType::F32});
  ASSERT_TRUE(codegen::has_flat_program_kernel(add));
  const auto dims = [](std::vector<int64_t> sizes, std::vector<std::vector<int64_t>> strides,
                       std::vector<int64_t> offsets) {
    return codegen::MergedDims{std::move(sizes), std::move(strides), std::move(offsets)};
  };
  // Contiguous inputs from offsets that are multiples of 4 elements, a broadcast element at any
  // offset, and a single element (no dims left).
  EXPECT_TRUE(codegen::flat_program_runs(add, dims({4099}, {{1}, {1}}, {0, 0})));
  EXPECT_TRUE(codegen::flat_program_runs(add, dims({7}, {{1}, {1}}, {4, 8})));
  EXPECT_TRUE(codegen::flat_program_runs(add, dims({7}, {{1}, {0}}, {0, 3})));
  EXPECT_TRUE(codegen::flat_program_runs(add, dims({}, {{}, {}}, {5, 2})));
  // A contiguous input from a misaligned offset, a stepped input, two dims: the general kernel.
  EXPECT_FALSE(codegen::flat_program_runs(add, dims({7}, {{1}, {1}}, {0, 1})));
  EXPECT_FALSE(codegen::flat_program_runs(add, dims({7}, {{1}, {2}}, {0, 0})));
  EXPECT_FALSE(codegen::flat_program_runs(add, dims({3, 4}, {{4, 1}, {0, 1}}, {0, 0})));
  // i32 and u32 are 4 bytes too; f16, f64, and a Bool output are not.
  EXPECT_TRUE(
      codegen::has_flat_program_kernel(lone_program(ir::Unary{ir::UnaryOp::Neg}, {DType::I32})));
  EXPECT_TRUE(codegen::has_flat_program_kernel(lone_program(ir::Cast{DType::U32}, {DType::F32})));
  const ir::Program half = lone_program(ir::Unary{ir::UnaryOp::Exp}, {DType::F16});
  EXPECT_FALSE(codegen::has_flat_program_kernel(half));
  EXPECT_FALSE(codegen::flat_program_runs(half, dims({8}, {{1}}, {0})));
  EXPECT_FALSE(
      codegen::has_flat_program_kernel(lone_program(ir::Unary{ir::UnaryOp::Neg}, {DType::F64})));
  EXPECT_FALSE(codegen::has_flat_program_kernel(
      lone_program(ir::Compare{ir::CompareOp::Lower}, {DType::F32, DType::F32})));
  EXPECT_THROW(codegen::glsl_flat_program_kernel(half, kEverything), InvalidArgument);
}

TEST(GlslProgram, EveryFlatKernelItWritesCompiles) {
  // Every lone op whose tensors are all 4 bytes that the emitter writes, and a fused program of
  // two outputs (a broadcast input, a scalar, exp and gelu).
  std::vector<ir::Program> programs;
  for (ir::Program& program : flat_lone_programs())
    if (codegen::glsl_program_refusal(program, kNothing).empty())
      programs.push_back(std::move(program));
  programs.push_back(flat_fused_program());
  int compiled = 0;
  for (const ir::Program& program : programs) {
    const std::string source = codegen::glsl_flat_program_kernel(program, kNothing);
    EXPECT_NE(source.find("vec4 "), std::string::npos) << source;
    EXPECT_EQ(compile_errors(source), "") << program.describe() << "\n" << source;
    ++compiled;
  }
  EXPECT_GT(compiled, 40);
}

TEST(GlslProgram, TheParameterBlockHoldsTheShapeStridesAndScalars) {
  // An f32 input broadcast along the first dim of a [3, 4] output, times 2.5.
  const ir::Op op = ir::BinaryScalar{ir::BinaryOp::Mul, Scalar(2.5)};
  const std::vector<ir::TensorMeta> inputs = {{Shape{1, 4}, DType::F32}};
  const ir::Program program = ir::lone_op_program(op, inputs, {Shape{3, 4}, DType::F32});
  const std::vector<Shape> shapes = {Shape{1, 4}};
  const codegen::MergedDims dims = codegen::merged_dims(Shape{3, 4}, shapes);
  const std::vector<Scalar> constants = {Scalar(2.5)};
  const std::vector<uint32_t> words =
      codegen::glsl_program_parameters(program, kEverything, dims, 12, constants);
  ASSERT_EQ(words.size(), 2u + 8 + 8 + 1 + 2);
  EXPECT_EQ(words[0], 12u);  // n
  EXPECT_EQ(words[1], 2u);   // rank
  EXPECT_EQ(words[2], 3u);
  EXPECT_EQ(words[3], 4u);
  EXPECT_EQ(words[10], 0u);  // the broadcast dim
  EXPECT_EQ(words[11], 1u);
  EXPECT_EQ(words[18], 0u);  // the input's offset
  float scalar = 0;
  std::memcpy(&scalar, &words[19], sizeof scalar);
  EXPECT_EQ(scalar, 2.5f);
}

}  // namespace
}  // namespace ember::test
