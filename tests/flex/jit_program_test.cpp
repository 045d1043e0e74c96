// Fused programs compiled to machine code (jit_program.h), for every instruction set this CPU
// runs, against the same instructions run one at a time by flex's Highway loops (simd.h): random
// programs over every covered op, special values included, must give the same bits; tanh stays
// within flex's error bound of the exact value; what is not covered is refused, not miscompiled.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "backends/flex/fused_tile.h"
#include "backends/flex/jit_program.h"
#include "backends/flex/simd.h"
#include "ember/float16.h"
#include "flex_test_util.h"
#include "ir/formulas.h"

namespace ember::flex::test {
namespace {

using ir::Instruction;
using ir::Program;
using ir::ProgramRef;

/// The instruction sets to test: those this CPU runs (AVX-512 CPUs run AVX2 too).
std::vector<JitIsa> runnable_isas() {
  const std::optional<JitIsa> native = JitProgram::native_isa();
  if (!native) return {};
  if (*native == JitIsa::Avx512) return {JitIsa::Avx2, JitIsa::Avx512};
  return {JitIsa::Avx2};
}

std::string name(JitIsa isa) {
  return isa == JitIsa::Avx512 ? "AVX-512" : "AVX2";
}

ProgramRef input(uint32_t k) {
  return {ProgramRef::Kind::Input, k};
}
ProgramRef result(uint32_t i) {
  return {ProgramRef::Kind::Instruction, i};
}

Program program_of(uint32_t input_count, std::vector<Instruction> instructions,
                   std::vector<uint32_t> outputs) {
  Program program;
  program.inputs.assign(input_count, ir::ProgramInput{DType::F32, {false}});
  program.instructions = std::move(instructions);
  program.outputs = std::move(outputs);
  return program;
}

Instruction f32(ir::Op op, std::vector<ProgramRef> args) {
  return Instruction{std::move(op), std::move(args), DType::F32, std::nullopt};
}

/// The program run one instruction at a time over whole arrays by simd.h's loops: the values
/// of its outputs. scalars[i] is instruction i's scalar.
std::vector<std::vector<float>> run_by_simd_loops(const Program& program,
                                                  const std::vector<std::vector<float>>& inputs,
                                                  const std::vector<float>& scalars) {
  const auto n = static_cast<int64_t>(inputs.at(0).size());
  std::vector<std::vector<float>> values = inputs;
  for (std::size_t i = 0; i < program.instructions.size(); ++i) {
    const Instruction& instruction = program.instructions[i];
    const auto arg = [&](std::size_t k) {
      const ProgramRef ref = instruction.args[k];
      return values[ref.kind == ProgramRef::Kind::Input ? ref.index : inputs.size() + ref.index]
          .data();
    };
    std::vector<float> out(static_cast<std::size_t>(n));
    if (const auto* unary = std::get_if<ir::Unary>(&instruction.op)) {
      simd::unary(unary->op, arg(0), out.data(), n);
    } else if (const auto* binary = std::get_if<ir::Binary>(&instruction.op)) {
      simd::binary(binary->op, arg(0), 1, arg(1), 1, out.data(), n);
    } else if (const auto* activation = std::get_if<ir::Activation>(&instruction.op)) {
      simd::activation(*activation, arg(0), out.data(), n);
    } else {
      const auto& scalar = std::get<ir::BinaryScalar>(instruction.op);
      const float* value = &scalars[i];
      if (scalar.scalar_lhs) {
        simd::binary(scalar.op, value, 0, arg(0), 1, out.data(), n);
      } else {
        simd::binary(scalar.op, arg(0), 1, value, 0, out.data(), n);
      }
    }
    values.push_back(std::move(out));
  }
  std::vector<std::vector<float>> outputs;
  for (const uint32_t output : program.outputs)
    outputs.push_back(values[inputs.size() + output]);
  return outputs;
}

/// The compiled program's outputs over the inputs (n: a multiple of its block), written with
/// plain or streaming stores (into 64-byte aligned arrays); none when the code reports a lane out
/// of its range.
std::optional<std::vector<std::vector<float>>> run_compiled(
    const JitProgram& compiled, const Program& program,
    const std::vector<std::vector<float>>& inputs, const std::vector<float>& scalars,
    bool streaming = false) {
  const std::size_t n = inputs.at(0).size();
  constexpr std::size_t kAlignFloats = 16;
  std::vector<std::vector<float>> storage(program.outputs.size(),
                                          std::vector<float>(n + kAlignFloats, -7.0f));
  std::vector<const void*> in;
  for (const std::vector<float>& values : inputs)
    in.push_back(values.data());
  std::vector<float*> out;
  for (std::vector<float>& values : storage) {
    const auto misaligned = reinterpret_cast<uintptr_t>(values.data()) % 64 / sizeof(float);
    out.push_back(values.data() + (misaligned == 0 ? 0 : kAlignFloats - misaligned));
  }
  const std::vector<void*> out_arrays(out.begin(), out.end());
  if (!compiled.run(in.data(), out_arrays.data(), scalars.data(), static_cast<int64_t>(n),
                    streaming))
    return std::nullopt;
  std::vector<std::vector<float>> outputs;
  for (const float* values : out)
    outputs.emplace_back(values, values + n);
  return outputs;
}

/// Bit for bit, except that any NaN matches any NaN (payloads may differ).
void expect_same_bits(const std::vector<float>& actual, const std::vector<float>& expected,
                      const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size());
  int reported = 0;
  for (std::size_t i = 0; i < expected.size() && reported < 5; ++i) {
    const bool same = std::isnan(expected[i]) ? std::isnan(actual[i])
                                              : std::bit_cast<uint32_t>(actual[i]) ==
                                                    std::bit_cast<uint32_t>(expected[i]);
    if (!same) {
      ADD_FAILURE() << what << " at " << i << ": " << actual[i] << " vs " << expected[i];
      ++reported;
    }
  }
}

/// n values spread over [-12, 12] (tanh's interesting range and beyond), with special values
/// sprinkled in when asked: zeros of both signs, infinities, NaN, denormals, huge and tiny values.
std::vector<float> varied_values(std::mt19937& rng, std::size_t n, bool with_specials = true) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const std::vector<float> special = {0.0f,   -0.0f,   kInf,  -kInf,  std::nanf(""),
                                      1e-40f, -1e-40f, 3e38f, -3e38f, 2e-4f,
                                      -2e-4f, 9.5f,    -9.5f, 1.0f,   -1.0f};
  std::uniform_real_distribution<float> spread(-12.0f, 12.0f);
  std::uniform_int_distribution<std::size_t> pick(0, special.size() - 1);
  std::vector<float> values(n);
  for (float& v : values)
    v = with_specials && rng() % 8 == 0 ? special[pick(rng)] : spread(rng);
  return values;
}

/// The ops of the op table (ember/ops.def) whose one-instruction f32 program the compiler takes,
/// as make_op(op) with arity inputs: what the random programs draw from. Derived from the table,
/// not listed here, so that every op the compiler covers is compared, a new one included.
template <typename Enum, typename MakeOp>
std::vector<Enum> compiled_ops(uint32_t arity, const MakeOp& make_op) {
  std::vector<ProgramRef> args;
  for (uint32_t k = 0; k < arity; ++k)
    args.push_back(input(k));
  std::vector<Enum> compiled;
  for (const Enum op : ir::all_ops<Enum>()) {
    if (JitProgram::compile(program_of(arity, {f32(make_op(op), args)}, {0}), JitIsa::Avx2))
      compiled.push_back(op);
  }
  return compiled;
}

const std::vector<ir::UnaryOp>& compiled_unary_ops() {
  static const auto ops =
      compiled_ops<ir::UnaryOp>(1, [](ir::UnaryOp op) { return ir::Unary{op}; });
  return ops;
}
const std::vector<ir::BinaryOp>& compiled_binary_ops() {
  static const auto ops =
      compiled_ops<ir::BinaryOp>(2, [](ir::BinaryOp op) { return ir::Binary{op}; });
  return ops;
}
const std::vector<ir::ActivationOp>& compiled_activations() {
  static const auto ops = compiled_ops<ir::ActivationOp>(1, [](ir::ActivationOp op) {
    return ir::Activation{op, 1.0, 1.0};
  });
  return ops;
}

template <typename Op>
Op pick(std::mt19937& rng, const std::vector<Op>& ops) {
  return ops[rng() % ops.size()];
}

/// Whether the program holds an op whose compiled code may leave lanes to the caller: a formula
/// with a primitive that flags the lanes the Highway loops give to the reference formulas.
bool checks_range(const Program& program) {
  using P = formula::Primitive;
  const formula::Primitives flagging = formula::primitives({P::exp, P::expm1, P::log, P::log1p});
  for (const Instruction& instruction : program.instructions) {
    const auto* unary = std::get_if<ir::Unary>(&instruction.op);
    if (unary != nullptr && formula::is_float_unary(unary->op) &&
        (formula::primitives_of(unary->op) & flagging).any())
      return true;
    const auto* activation = std::get_if<ir::Activation>(&instruction.op);
    if (activation != nullptr && (formula::primitives_of(activation->op) & flagging).any())
      return true;
  }
  return false;
}

/// A random straight-line program over the covered ops, with its scalars.
std::pair<Program, std::vector<float>> random_program(std::mt19937& rng) {
  const auto input_count = static_cast<uint32_t>(1 + rng() % 3);
  const auto length = static_cast<uint32_t>(1 + rng() % 12);
  std::vector<Instruction> instructions;
  std::vector<float> scalars;
  std::uniform_real_distribution<float> scalar(-3.0f, 3.0f);
  for (uint32_t i = 0; i < length; ++i) {
    const auto any_value = [&] {
      const auto k = static_cast<uint32_t>(rng() % (input_count + i));
      return k < input_count ? input(k) : result(k - input_count);
    };
    const ir::BinaryOp binary_op = pick(rng, compiled_binary_ops());
    switch (rng() % 4) {
      case 0: {
        const ir::UnaryOp op = pick(rng, compiled_unary_ops());
        // Log takes an absolute value half of the time, so that whole programs with it run.
        const bool of_magnitude = op == ir::UnaryOp::Log && i + 1 < length && rng() % 2 == 0;
        if (of_magnitude) {
          instructions.push_back(f32(ir::Unary{ir::UnaryOp::Abs}, {any_value()}));
          scalars.push_back(0.0f);
          ++i;
        }
        instructions.push_back(f32(ir::Unary{op}, {of_magnitude ? result(i - 1) : any_value()}));
        break;
      }
      case 1:
        instructions.push_back(f32(ir::Binary{binary_op}, {any_value(), any_value()}));
        break;
      case 2: {
        // The parameter (alpha, or Softplus's beta) reaches the code through the scalars, as f32.
        const float parameter = scalar(rng);
        const ir::ActivationOp op = pick(rng, compiled_activations());
        const ir::Activation activation{op, parameter, parameter};
        instructions.push_back(f32(activation, {any_value()}));
        scalars.push_back(activation_parameter(activation));
        continue;
      }
      default:
        instructions.push_back(
            f32(ir::BinaryScalar{binary_op, Scalar(0.0), rng() % 2 == 0}, {any_value()}));
        instructions.back().constant = 0;
    }
    scalars.push_back(scalar(rng));
  }
  std::vector<uint32_t> outputs = {length - 1};
  if (length > 2) outputs.push_back(static_cast<uint32_t>(rng() % (length - 1)));
  return {program_of(input_count, std::move(instructions), std::move(outputs)), scalars};
}

/// Why the compiled code cannot match simd.h's loops bit for bit here: they round multiply-adds
/// twice (the sanitizer build compiles only the baseline target, SSE2), and flex then never
/// runs compiled programs (compiled_program).
constexpr const char* kLoopsWithoutFma =
    "simd.h's loops run without FMA in this build or on this CPU: programs are not compiled";

TEST(FlexJit, RandomProgramsGiveTheSimdLoopsBits) {
  const std::vector<JitIsa> isas = runnable_isas();
  if (isas.empty()) GTEST_SKIP() << "no AVX2+FMA on this CPU, or the build has no Xbyak";
  if (!simd::multiply_add_is_fused()) GTEST_SKIP() << kLoopsWithoutFma;
  std::mt19937 rng(20261204);
  constexpr std::size_t kElements = 1024;
  int compared_with_checks = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const auto [program, scalars] = random_program(rng);
    std::vector<std::vector<float>> inputs;
    // Every other trial without special values, so that programs with exp run whole too.
    for (std::size_t k = 0; k < program.inputs.size(); ++k)
      inputs.push_back(varied_values(rng, kElements, trial % 2 == 0));
    const auto expected = run_by_simd_loops(program, inputs, scalars);
    for (const JitIsa isa : isas) {
      const auto compiled = JitProgram::compile(program, isa);
      ASSERT_NE(compiled, nullptr) << name(isa) << ": " << program.describe();
      for (const bool streaming : {false, true}) {
        const std::string what = name(isa) + (streaming ? " streaming" : "") + " trial " +
                                 std::to_string(trial) + " [" + program.describe() + "]";
        const auto actual = run_compiled(*compiled, program, inputs, scalars, streaming);
        if (!actual) {
          EXPECT_TRUE(checks_range(program))
              << what << ": only formulas with exp, expm1, log or log1p leave lanes out of range";
          continue;
        }
        compared_with_checks += checks_range(program) ? 1 : 0;
        for (std::size_t k = 0; k < expected.size(); ++k)
          expect_same_bits((*actual)[k], expected[k], what + " output " + std::to_string(k));
      }
    }
  }
  EXPECT_GE(compared_with_checks, 40) << "too few programs with exp, log or activations ran whole";
}

/// The compiled unary op over inside (values the loops take from Highway) gives the loops' bits
/// (where they too fuse multiply-adds; the flags hold either way), and any one value of outside
/// among them makes the code leave the lanes to the caller.
void expect_bits_inside_and_flags_outside(ir::UnaryOp op, std::vector<float> inside,
                                          const std::vector<float>& outside) {
  inside.resize((inside.size() + 63) / 64 * 64, 1.0f);
  const Program program = program_of(1, {f32(ir::Unary{op}, {input(0)})}, {0});
  const auto expected = run_by_simd_loops(program, {inside}, {0.0f});
  for (const JitIsa isa : runnable_isas()) {
    const auto compiled = JitProgram::compile(program, isa);
    ASSERT_NE(compiled, nullptr);
    const auto actual = run_compiled(*compiled, program, {inside}, {0.0f});
    ASSERT_TRUE(actual) << name(isa) << ": every lane is in range";
    if (simd::multiply_add_is_fused()) expect_same_bits((*actual)[0], expected[0], name(isa));
    for (const float value : outside) {
      std::vector<float> with_one = inside;
      with_one[37] = value;
      EXPECT_FALSE(run_compiled(*compiled, program, {with_one}, {0.0f}))
          << name(isa) << ": " << ir::name(ir::Op{ir::Unary{op}}) << "(" << value
          << ") is left to the caller";
    }
  }
}

TEST(FlexJit, ExpLeavesToTheCallerTheLanesTheLoopsGiveToTheStandardLibrary) {
  if (runnable_isas().empty()) GTEST_SKIP() << "no AVX2+FMA on this CPU, or the build has no Xbyak";
  // [-120, 88] in steps of 1/64, then the edges of the range the loops take from Highway.
  std::vector<float> x;
  for (int k = -120 * 64; k <= 88 * 64; ++k)
    x.push_back(static_cast<float>(k) / 64.0f);
  x.push_back(std::numeric_limits<float>::lowest());
  x.push_back(-std::numeric_limits<float>::denorm_min());
  expect_bits_inside_and_flags_outside(ir::UnaryOp::Exp, x,
                                       {88.01f, 100.0f, std::numeric_limits<float>::infinity(),
                                        -std::numeric_limits<float>::infinity(), std::nanf("")});
}

TEST(FlexJit, LogGivesTheLoopsBitsOnNormalPositiveValuesAndLeavesTheRestToTheCaller) {
  if (runnable_isas().empty()) GTEST_SKIP() << "no AVX2+FMA on this CPU, or the build has no Xbyak";
  // Every 4099th float from the smallest normal to the largest finite, and the ends themselves:
  // every exponent, and mantissas on both sides of sqrt(2)/2 (where the exponent steps).
  std::vector<float> x;
  const auto first = std::bit_cast<uint32_t>(std::numeric_limits<float>::min());
  const auto last = std::bit_cast<uint32_t>(std::numeric_limits<float>::max());
  for (uint32_t bits = first; bits < last; bits += 4099)
    x.push_back(std::bit_cast<float>(bits));
  x.push_back(std::numeric_limits<float>::max());
  expect_bits_inside_and_flags_outside(
      ir::UnaryOp::Log, x,
      {0.0f, -0.0f, -1.0f, std::numeric_limits<float>::denorm_min(),
       std::nextafter(std::numeric_limits<float>::min(), 0.0f),
       std::numeric_limits<float>::infinity(), std::nanf("")});
}

using Bytes = std::vector<std::byte>;

/// The program run one instruction at a time by the tile loops (fused_tile.h), over arrays of
/// any fusible dtype: the bytes of its outputs.
std::vector<Bytes> run_by_tile_loops(const Program& program, const std::vector<Bytes>& inputs,
                                     int64_t n) {
  std::vector<Bytes> values = inputs;
  for (const Instruction& instruction : program.instructions) {
    std::vector<TileArg> args;
    for (const ProgramRef ref : instruction.args) {
      const std::size_t k =
          ref.kind == ProgramRef::Kind::Input ? ref.index : inputs.size() + ref.index;
      args.push_back({values[k].data(), program.dtype_of(ref)});
    }
    Bytes out(static_cast<std::size_t>(n) * dtype_size(instruction.dtype));
    run_on_tile(instruction.op, args, out.data(), instruction.dtype, n);
    values.push_back(std::move(out));
  }
  std::vector<Bytes> outputs;
  for (const uint32_t output : program.outputs)
    outputs.push_back(values[inputs.size() + output]);
  return outputs;
}

/// The compiled program's output bytes (none when it reports a lane out of its range).
std::optional<std::vector<Bytes>> run_compiled_bytes(const JitProgram& compiled,
                                                     const Program& program,
                                                     const std::vector<Bytes>& inputs,
                                                     const std::vector<float>& scalars, int64_t n,
                                                     bool streaming) {
  constexpr std::size_t kAlign = 64;
  std::vector<Bytes> storage;
  std::vector<void*> out;
  for (const uint32_t output : program.outputs) {
    const std::size_t size =
        static_cast<std::size_t>(n) * dtype_size(program.instructions[output].dtype);
    storage.emplace_back(size + kAlign, std::byte{0x55});
    const auto misaligned = reinterpret_cast<uintptr_t>(storage.back().data()) % kAlign;
    out.push_back(storage.back().data() + (misaligned == 0 ? 0 : kAlign - misaligned));
  }
  std::vector<const void*> in;
  for (const Bytes& values : inputs)
    in.push_back(values.data());
  if (!compiled.run(in.data(), out.data(), scalars.data(), n, streaming)) return std::nullopt;
  std::vector<Bytes> outputs;
  for (std::size_t k = 0; k < out.size(); ++k) {
    const auto* begin = static_cast<const std::byte*>(out[k]);
    outputs.emplace_back(begin, begin + storage[k].size() - kAlign);
  }
  return outputs;
}

/// A random program mixing F32 and Bool values: comparisons, where, mask fills, casts, Bool
/// logic and some arithmetic, over inputs (F32, F32, Bool); with each instruction's f32 scalar.
/// An op of the table drawn at random.
template <typename Enum>
Enum pick_op(std::mt19937& rng) {
  const std::span<const Enum> ops = ir::all_ops<Enum>();
  return ops[rng() % ops.size()];
}

std::pair<Program, std::vector<float>> random_bool_program(std::mt19937& rng) {
  Program program;
  program.inputs = {{DType::F32, {false}}, {DType::F32, {false}}, {DType::Bool, {false}}};
  std::vector<ProgramRef> f32_values = {input(0), input(1)};
  std::vector<ProgramRef> bool_values = {input(2)};
  const auto pick = [&](const std::vector<ProgramRef>& values) {
    return values[rng() % values.size()];
  };
  std::uniform_real_distribution<float> scalar(-3.0f, 3.0f);
  std::vector<float> scalars;
  const auto length = static_cast<uint32_t>(1 + rng() % 10);
  for (uint32_t i = 0; i < length; ++i) {
    const ir::CompareOp compare_op = pick_op<ir::CompareOp>(rng);
    ir::BinaryOp logical_op = pick_op<ir::BinaryOp>(rng);
    while (formula::is_float_binary(logical_op))
      logical_op = pick_op<ir::BinaryOp>(rng);
    // Half the scalars are 0, a value the inputs hold (varied_values' zeros).
    const float value = rng() % 2 == 0 ? 0.0f : scalar(rng);
    const bool bool_result = rng() % 2 == 0;
    Instruction instruction;
    switch (rng() % 9) {
      case 0:
        instruction = {ir::Compare{compare_op},
                       {pick(f32_values), pick(f32_values)},
                       DType::Bool,
                       std::nullopt};
        break;
      case 1:
        instruction = {
            ir::CompareScalar{compare_op, Scalar(value)}, {pick(f32_values)}, DType::Bool, 0};
        break;
      case 2: {
        const auto& pool = bool_result ? bool_values : f32_values;
        instruction = {ir::Where{},
                       {pick(bool_values), pick(pool), pick(pool)},
                       bool_result ? DType::Bool : DType::F32,
                       std::nullopt};
        break;
      }
      case 3:
        instruction = {
            ir::MaskFill{Scalar(value)}, {pick(f32_values), pick(bool_values)}, DType::F32, 0};
        break;
      case 4:
        instruction =
            bool_result
                ? Instruction{ir::Cast{DType::Bool}, {pick(f32_values)}, DType::Bool, std::nullopt}
                : Instruction{ir::Cast{DType::F32}, {pick(bool_values)}, DType::F32, std::nullopt};
        break;
      case 5:
        instruction = rng() % 4 == 0 ? Instruction{ir::Unary{ir::UnaryOp::Not},
                                                   {pick(bool_values)},
                                                   DType::Bool,
                                                   std::nullopt}
                                     : Instruction{ir::Binary{logical_op},
                                                   {pick(bool_values), pick(bool_values)},
                                                   DType::Bool,
                                                   std::nullopt};
        break;
      case 6: {
        const ir::UnaryOp predicate = rng() % 2 == 0 ? ir::UnaryOp::IsNan : ir::UnaryOp::IsInf;
        instruction = {ir::Unary{predicate}, {pick(f32_values)}, DType::Bool, std::nullopt};
        break;
      }
      case 7: {
        // A Bool scalar reaches the code as f32 1 or 0 (flex's fused.cpp).
        const bool flag = rng() % 2 == 0;
        instruction = {ir::BinaryScalar{logical_op, Scalar(flag), rng() % 2 == 0},
                       {pick(bool_values)},
                       DType::Bool,
                       0};
        scalars.push_back(flag ? 1.0f : 0.0f);
        (instruction.dtype == DType::Bool ? bool_values : f32_values).push_back(result(i));
        program.instructions.push_back(std::move(instruction));
        continue;
      }
      default:
        instruction = f32(ir::Binary{ir::BinaryOp::Mul}, {pick(f32_values), pick(f32_values)});
    }
    (instruction.dtype == DType::Bool ? bool_values : f32_values).push_back(result(i));
    program.instructions.push_back(std::move(instruction));
    scalars.push_back(value);
  }
  program.outputs = {length - 1};
  if (length > 2) program.outputs.push_back(static_cast<uint32_t>(rng() % (length - 1)));
  return {std::move(program), scalars};
}

TEST(FlexJit, RandomProgramsWithBoolValuesGiveTheTileLoopsBytes) {
  const std::vector<JitIsa> isas = runnable_isas();
  if (isas.empty()) GTEST_SKIP() << "no AVX2+FMA on this CPU, or the build has no Xbyak";
  // No op here rounds a multiply-add: the bytes match with or without FMA in the loops.
  std::mt19937 rng(20261205);
  constexpr int64_t kElements = 1024;
  for (int trial = 0; trial < 300; ++trial) {
    const auto [program, scalars] = random_bool_program(rng);
    std::vector<Bytes> inputs;
    for (int k = 0; k < 2; ++k) {
      const std::vector<float> values = varied_values(rng, kElements);
      const auto* begin = reinterpret_cast<const std::byte*>(values.data());
      inputs.emplace_back(begin, begin + values.size() * sizeof(float));
    }
    Bytes flags(kElements);
    for (std::byte& flag : flags)
      flag = std::byte{static_cast<uint8_t>(rng() % 2)};
    inputs.push_back(flags);
    const std::vector<Bytes> expected = run_by_tile_loops(program, inputs, kElements);
    for (const JitIsa isa : isas) {
      const auto compiled = JitProgram::compile(program, isa);
      ASSERT_NE(compiled, nullptr) << name(isa) << ": " << program.describe();
      for (const bool streaming : {false, true}) {
        const auto actual =
            run_compiled_bytes(*compiled, program, inputs, scalars, kElements, streaming);
        ASSERT_TRUE(actual) << name(isa) << ": no op here leaves lanes out of range";
        for (std::size_t k = 0; k < expected.size(); ++k) {
          const std::string what = name(isa) + (streaming ? " streaming" : "") + " trial " +
                                   std::to_string(trial) + " [" + program.describe() + "] output " +
                                   std::to_string(k);
          if (program.instructions[program.outputs[k]].dtype == DType::Bool) {
            EXPECT_EQ((*actual)[k], expected[k]) << what;
            continue;
          }
          const auto as_floats = [](const Bytes& bytes) {
            std::vector<float> values(bytes.size() / sizeof(float));
            std::memcpy(values.data(), bytes.data(), bytes.size());
            return values;
          };
          expect_same_bits(as_floats((*actual)[k]), as_floats(expected[k]), what);
        }
      }
    }
  }
}

TEST(FlexJit, TanhStaysWithinEightUlpOfTheExactValue) {
  const std::vector<JitIsa> isas = runnable_isas();
  if (isas.empty()) GTEST_SKIP() << "no AVX2+FMA on this CPU, or the build has no Xbyak";
  // Every 509th positive finite float and its negation, padded to whole vectors with zeros.
  std::vector<float> x;
  for (uint32_t bits = 0; bits < 0x7f800000u; bits += 509) {
    x.push_back(std::bit_cast<float>(bits));
    x.push_back(-std::bit_cast<float>(bits));
  }
  x.resize((x.size() + 63) / 64 * 64, 0.0f);
  const Program program = program_of(1, {f32(ir::Unary{ir::UnaryOp::Tanh}, {input(0)})}, {0});
  for (const JitIsa isa : isas) {
    const auto compiled = JitProgram::compile(program, isa);
    ASSERT_NE(compiled, nullptr);
    const auto outputs = run_compiled(*compiled, program, {x}, {0.0f});
    ASSERT_TRUE(outputs);
    const std::vector<float>& out = (*outputs)[0];
    double worst = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      worst = std::max(worst, ulp_error(out[i], std::tanh(static_cast<double>(x[i]))));
      ASSERT_LE(std::abs(out[i]), 1.0f) << name(isa) << ": tanh(" << x[i] << ")";
    }
    EXPECT_LE(worst, 8.0) << name(isa);
  }
}

/// value rounded to dtype (bf16 or f16) by BFloat16's and Half's own conversions.
float rounded_to(DType dtype, float value) {
  return dtype == DType::BF16 ? static_cast<float>(BFloat16(value))
                              : static_cast<float>(Half(value));
}
uint16_t bits_of(DType dtype, float value) {
  return dtype == DType::BF16 ? BFloat16(value).bits : Half(value).bits;
}

/// The program of narrow values as fused.cpp's tile loops run it: inputs widened, each instruction
/// in f32, each narrow result rounded by BFloat16 or Half; the outputs' 16-bit values.
std::vector<std::vector<uint16_t>> run_narrow_by_tile_loops(
    const Program& program, DType dtype, const std::vector<std::vector<float>>& inputs) {
  const auto n = static_cast<int64_t>(inputs[0].size());
  std::vector<std::vector<float>> values = inputs;
  for (const Instruction& instruction : program.instructions) {
    std::vector<TileArg> args;
    for (const ProgramRef ref : instruction.args) {
      const std::size_t k =
          ref.kind == ProgramRef::Kind::Input ? ref.index : inputs.size() + ref.index;
      args.push_back({reinterpret_cast<const std::byte*>(values[k].data()), DType::F32});
    }
    std::vector<float> out(static_cast<std::size_t>(n));
    run_on_tile(instruction.op, args, reinterpret_cast<std::byte*>(out.data()), DType::F32, n);
    for (float& x : out)
      x = rounded_to(dtype, x);
    values.push_back(std::move(out));
  }
  std::vector<std::vector<uint16_t>> outputs;
  for (const uint32_t output : program.outputs) {
    std::vector<uint16_t> bits;
    for (const float x : values[inputs.size() + output])
      bits.push_back(bits_of(dtype, x));
    outputs.push_back(std::move(bits));
  }
  return outputs;
}

TEST(FlexJit, NarrowProgramsGiveTheTileLoopsBitsAndLeaveNanResultsToTheCaller) {
  const std::vector<JitIsa> isas = runnable_isas();
  if (isas.empty()) GTEST_SKIP() << "no AVX2+FMA on this CPU, or the build has no Xbyak";
  if (!simd::multiply_add_is_fused()) GTEST_SKIP() << kLoopsWithoutFma;
  for (const DType dtype : {DType::BF16, DType::F16}) {
    // (x * y + 0.3) then tanh and exp: results rounded at every step, ties and overflow (exp of
    // values past f16's range) included; two outputs.
    // The scalar as the tile loops take it: rounded to the dtype (fused.cpp).
    const float shift = rounded_to(dtype, 0.3f);
    Program program = program_of(2,
                                 {f32(ir::Binary{ir::BinaryOp::Mul}, {input(0), input(1)}),
                                  f32(ir::BinaryScalar{ir::BinaryOp::Add, shift}, {result(0)}),
                                  f32(ir::Unary{ir::UnaryOp::Tanh}, {result(1)}),
                                  f32(ir::Unary{ir::UnaryOp::Exp}, {result(0)})},
                                 {2, 3});
    for (ir::ProgramInput& in : program.inputs)
      in.dtype = dtype;
    for (Instruction& instruction : program.instructions)
      instruction.dtype = dtype;
    const std::vector<float> scalars = {0.0f, shift, 0.0f, 0.0f};
    std::mt19937 rng(7);
    constexpr std::size_t kElements = 1024;
    std::vector<std::vector<float>> wide(2);
    std::vector<std::vector<uint16_t>> narrow(2);
    std::uniform_real_distribution<float> value(-4.0f, 4.0f);
    for (std::size_t k = 0; k < 2; ++k) {
      for (std::size_t i = 0; i < kElements; ++i) {
        wide[k].push_back(rounded_to(dtype, value(rng)));
        narrow[k].push_back(bits_of(dtype, wide[k].back()));
      }
    }
    const auto expected = run_narrow_by_tile_loops(program, dtype, wide);
    for (const JitIsa isa : isas) {
      const std::string what = name(isa) + " " + std::string(dtype_name(dtype));
      const auto compiled = JitProgram::compile(program, isa);
      ASSERT_NE(compiled, nullptr) << what;
      std::vector<std::vector<uint16_t>> out(2, std::vector<uint16_t>(kElements, 0x5555));
      const std::vector<const void*> in = {narrow[0].data(), narrow[1].data()};
      std::vector<void*> outputs = {out[0].data(), out[1].data()};
      ASSERT_TRUE(compiled->run(in.data(), outputs.data(), scalars.data(), kElements)) << what;
      EXPECT_EQ(out[0], expected[0]) << what << ": tanh";
      EXPECT_EQ(out[1], expected[1]) << what << ": exp";
      // A NaN input makes NaN results, whose payloads are the caller's to narrow.
      std::vector<uint16_t> with_nan = narrow[0];
      with_nan[5] = bits_of(dtype, std::nanf(""));
      const std::vector<const void*> nan_in = {with_nan.data(), narrow[1].data()};
      EXPECT_FALSE(compiled->run(nan_in.data(), outputs.data(), scalars.data(), kElements)) << what;
    }
  }
}

TEST(FlexJit, RefusesWhatItDoesNotCover) {
  const std::vector<JitIsa> isas = runnable_isas();
  if (isas.empty()) GTEST_SKIP() << "no AVX2+FMA on this CPU, or the build has no Xbyak";
  // sin: a primitive the compiler has no code for.
  const Program sin = program_of(1, {f32(ir::Unary{ir::UnaryOp::Sin}, {input(0)})}, {0});
  // A comparison of Bool values (the tile loops hand it to ndarray).
  Program compare = program_of(1, {}, {0});
  compare.inputs[0].dtype = DType::Bool;
  compare.instructions = {
      Instruction{ir::Compare{ir::CompareOp::Greater}, {input(0), input(0)}, DType::Bool, {}}};
  // 40 values alive at once: more than the 32 registers of AVX-512.
  std::vector<Instruction> wide;
  for (uint32_t k = 0; k < 40; ++k)
    wide.push_back(f32(ir::Unary{ir::UnaryOp::Neg}, {input(k)}));
  wide.push_back(f32(ir::Binary{ir::BinaryOp::Add}, {result(0), result(1)}));
  for (uint32_t k = 2; k < 40; ++k) {
    const auto sum = static_cast<uint32_t>(wide.size() - 1);
    wide.push_back(f32(ir::Binary{ir::BinaryOp::Add}, {result(sum), result(k)}));
  }
  const auto last = static_cast<uint32_t>(wide.size() - 1);
  const Program many_alive = program_of(40, std::move(wide), {last});
  for (const JitIsa isa : isas) {
    EXPECT_EQ(JitProgram::compile(sin, isa), nullptr) << name(isa);
    EXPECT_EQ(JitProgram::compile(compare, isa), nullptr) << name(isa);
    EXPECT_EQ(JitProgram::compile(many_alive, isa), nullptr) << name(isa);
  }
}

TEST(FlexJit, CompilesEachCachedProgramOnce) {
  if (runnable_isas().empty()) GTEST_SKIP() << "no AVX2+FMA on this CPU, or the build has no Xbyak";
  if (!simd::multiply_add_is_fused()) {
    const Program program = program_of(1, {f32(ir::Unary{ir::UnaryOp::Neg}, {input(0)})}, {0});
    EXPECT_EQ(compiled_program(program), nullptr) << kLoopsWithoutFma;
    return;
  }
  const Program program = program_of(1, {f32(ir::Unary{ir::UnaryOp::Neg}, {input(0)})}, {0});
  const JitProgram* first = compiled_program(program);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(compiled_program(program), first);
  const Program copy = program;  // a copy starts with nothing compiled
  EXPECT_NE(compiled_program(copy), nullptr);
  EXPECT_NE(compiled_program(copy), first);
}

}  // namespace
}  // namespace ember::flex::test
