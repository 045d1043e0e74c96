// The GLSL program emitter (glsl_program.h): the checks of a program against a device's features,
// the shader (its loops in GLSL's spelling of shader_loops.h), and its parameter block.
#include "codegen/glsl_program.h"

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "codegen/emitted_ops.h"
#include "codegen/kernel_scalars.h"
#include "codegen/op_formulas.h"
#include "codegen/shader_loops.h"
#include "codegen/shader_syntax.h"
#include "ember/error.h"
#include "ir/formulas.h"

namespace ember::codegen {
namespace {

/// How the kernel declares an instruction's scalar.
enum class ScalarKind : uint8_t { Float, Double, Int, Uint, Int64, Uint64 };

std::vector<DType> operand_dtypes(const ir::Program& program, const ir::Instruction& instruction) {
  std::vector<DType> args;
  for (const ir::ProgramRef arg : instruction.args)
    args.push_back(program.dtype_of(arg));
  return args;
}

/// The dtype the program's float values compute in: F64 where it has one, else F32 (f16 in
/// float).
DType compute_of(const ir::Program& program) {
  for (const ir::ProgramInput& input : program.inputs)
    if (input.dtype == DType::F64) return DType::F64;
  for (const ir::Instruction& instruction : program.instructions)
    if (instruction.dtype == DType::F64) return DType::F64;
  return DType::F32;
}

ScalarKind scalar_kind(const ir::Program& program, const ir::Instruction& instruction,
                       DType compute) {
  const DType dtype = operand_dtype(instruction.op, operand_dtypes(program, instruction));
  if (takes_integer_scalar(instruction.op, dtype)) {
    if (dtype == DType::I64) return ScalarKind::Int64;
    if (dtype == DType::U64) return ScalarKind::Uint64;
    return is_signed_int(dtype) ? ScalarKind::Int : ScalarKind::Uint;
  }
  // An integer compares with the scalar's double (kernel_parameter).
  if (is_int(dtype) || compute == DType::F64) return ScalarKind::Double;
  return ScalarKind::Float;
}

/// Whether the device holds and computes dtype in a kernel.
bool stores(DType dtype, const GlslFeatures& features) {
  switch (dtype) {
    case DType::F64:
      return features.float64;
    case DType::I64:
    case DType::U64:
      return features.int64;
    case DType::Bool:
    case DType::I8:
    case DType::U8:
      return features.storage8;
    case DType::F16:
    case DType::I16:
    case DType::U16:
      return features.storage16;
    case DType::F32:
    case DType::I32:
    case DType::U32:
      return true;
    case DType::BF16:
      break;
  }
  return false;
}

/// The primitives instruction's formula needs on its float operands (none for integer and Bool
/// operands, whose primitives every target writes).
formula::Primitives needed(const ir::Op& op, DType dtype) {
  if (!is_float(dtype)) return {};
  if (const auto* unary = std::get_if<ir::Unary>(&op))
    if (formula::is_float_unary(unary->op)) return formula::primitives_of(unary->op);
  if (const auto* activation = std::get_if<ir::Activation>(&op))
    return formula::primitives_of(activation->op);
  const auto binary_primitives = [](ir::BinaryOp o) {
    return formula::is_float_binary(o) ? formula::primitives_of(o) : formula::Primitives{};
  };
  if (const auto* binary = std::get_if<ir::Binary>(&op)) return binary_primitives(binary->op);
  if (const auto* binary = std::get_if<ir::BinaryScalar>(&op)) return binary_primitives(binary->op);
  return {};
}

/// The storage type of dtype's elements in a buffer.
std::string_view storage_type(DType dtype) {
  switch (dtype) {
    case DType::F64:
      return "double";
    case DType::F32:
      return "float";
    case DType::F16:
    case DType::U16:
      return "uint16_t";
    case DType::BF16:
      break;
    case DType::I16:
      return "int16_t";
    case DType::Bool:
    case DType::U8:
      return "uint8_t";
    case DType::I8:
      return "int8_t";
    case DType::I64:
      return "int64_t";
    case DType::U64:
      return "uint64_t";
    case DType::I32:
      return "int";
    case DType::U32:
      return "uint";
  }
  throw InvalidArgument("[glsl_program_kernel] no storage for " + std::string(dtype_name(dtype)));
}

// The helpers a kernel may call: f32 to f16 bits rounded to nearest, ties to even (GLSL's
// packHalf2x16 leaves the rounding to the implementation), and the wrapping integer power.
constexpr std::string_view kHalfHelper = R"(uint ember_f16_bits(float f) {
  const uint x = floatBitsToUint(f);
  const uint sign = (x >> 16) & 0x8000u;
  const uint a = x & 0x7fffffffu;
  if (a > 0x7f800000u) return sign | 0x7e00u | ((a >> 13) & 0x3ffu);
  if (a >= 0x477ff000u) return sign | 0x7c00u;
  if (a >= 0x38800000u) {
    const uint r = a - 0x38000000u;
    return sign | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13);
  }
  return sign | uint(roundEven(uintBitsToFloat(a) * 16777216.0));
}
)";
constexpr std::string_view kPowHelpers = R"(int ember_ipow(int b, int e) {
  int r = 1;
  while (e > 0) { if ((e & 1) == 1) r *= b; e >>= 1; b *= b; }
  return r;
}
uint ember_ipow(uint b, uint e) {
  uint r = 1u;
  while (e > 0u) { if ((e & 1u) == 1u) r *= b; e >>= 1; b *= b; }
  return r;
}
)";
constexpr std::string_view kPow64Helpers = R"(int64_t ember_ipow(int64_t b, int64_t e) {
  int64_t r = 1l;
  while (e > 0l) { if ((e & 1l) == 1l) r *= b; e >>= 1; b *= b; }
  return r;
}
uint64_t ember_ipow(uint64_t b, uint64_t e) {
  uint64_t r = 1ul;
  while (e > 0ul) { if ((e & 1ul) == 1ul) r *= b; e >>= 1; b *= b; }
  return r;
}
)";

}  // namespace

std::string_view glsl_f16_bits_helper() {
  return kHalfHelper;
}

namespace {

/// The shader's version, extensions and helpers, for the dtypes program holds.
std::string preamble(const ir::Program& program) {
  bool int64 = false;
  bool bits8 = false;
  bool bits16 = false;
  bool half = false;
  const auto uses = [&](DType dtype) {
    int64 = int64 || dtype == DType::I64 || dtype == DType::U64;
    bits8 = bits8 || dtype_size(dtype) == 1;
    bits16 = bits16 || dtype_size(dtype) == 2;
    half = half || dtype == DType::F16;
  };
  for (const ir::ProgramInput& input : program.inputs)
    uses(input.dtype);
  for (const ir::Instruction& instruction : program.instructions)
    uses(instruction.dtype);
  std::string text = "#version 450\n";
  if (int64) text += "#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n";
  if (bits8) text += "#extension GL_EXT_shader_8bit_storage : require\n";
  if (bits16) text += "#extension GL_EXT_shader_16bit_storage : require\n";
  text += "layout(local_size_x = " + std::to_string(kGlslWorkgroupSize) + ") in;\n";
  if (half) text += glsl_f16_bits_helper();
  text += kPowHelpers;
  if (int64) text += kPow64Helpers;
  return text;
}

/// The vector of four elements of a 4-byte dtype (has_flat_program_kernel): the flat kernel's
/// buffers hold these, so that each load and store moves 16 bytes.
std::string_view vector_type(DType dtype) {
  if (dtype == DType::F32) return "vec4";
  if (dtype == DType::I32) return "ivec4";
  return "uvec4";
}

/// The buffers' declarations: arrays of the dtypes' storage types, or of vector_type for the
/// flat kernel.
std::string buffers(const ir::Program& program, bool flat) {
  const auto element = [&](DType dtype) {
    return std::string(flat ? vector_type(dtype) : storage_type(dtype));
  };
  std::string text =
      "layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };\n";
  uint32_t binding = 1;
  for (std::size_t k = 0; k < program.inputs.size(); ++k)
    text += "layout(std430, set = 0, binding = " + std::to_string(binding++) +
            ") readonly buffer Input" + std::to_string(k) + " { " +
            element(program.inputs[k].dtype) + " in" + std::to_string(k) + "[]; };\n";
  for (std::size_t k = 0; k < program.outputs.size(); ++k)
    text += "layout(std430, set = 0, binding = " + std::to_string(binding++) +
            ") writeonly buffer Output" + std::to_string(k) + " { " +
            element(program.instructions[program.outputs[k]].dtype) + " out" + std::to_string(k) +
            "[]; };\n";
  return text;
}

/// The declarations of the scalars, from the parameter block's words after the strides.
std::string scalar_declarations(const ir::Program& program, DType compute) {
  std::string text;
  // After the strides, one offset per input.
  uint32_t word =
      kProgramStridesWord + (kProgramMaxRank + 1) * static_cast<uint32_t>(program.inputs.size());
  for (std::size_t j = 0; j < program.instructions.size(); ++j) {
    const ir::Instruction& instruction = program.instructions[j];
    if (std::holds_alternative<ir::Activation>(instruction.op) || !ir::scalar_of(instruction.op))
      continue;
    const std::string lo = "p[" + std::to_string(word) + "]";
    const std::string both = "uvec2(" + lo + ", p[" + std::to_string(word + 1) + "])";
    const std::string name = "scalar" + std::to_string(j);
    switch (scalar_kind(program, instruction, compute)) {
      case ScalarKind::Float:
        text += "  const float " + name + " = uintBitsToFloat(" + lo + ");\n";
        break;
      case ScalarKind::Double:
        text += "  const double " + name + " = packDouble2x32(" + both + ");\n";
        break;
      case ScalarKind::Int:
        text += "  const int " + name + " = int(" + lo + ");\n";
        break;
      case ScalarKind::Uint:
        text += "  const uint " + name + " = " + lo + ";\n";
        break;
      case ScalarKind::Int64:
        text += "  const int64_t " + name + " = int64_t(pack64(" + both + "));\n";
        break;
      case ScalarKind::Uint64:
        text += "  const uint64_t " + name + " = pack64(" + both + ");\n";
        break;
    }
    word += 2;
  }
  return text;
}

/// The type a kernel holds an element of dtype in once loaded: storage types of 8 and 16 bits are
/// only for buffers, so those widen to 32 bits (the loads of Glsl::load convert from either).
std::string_view loaded_type(DType dtype) {
  switch (dtype) {
    case DType::Bool:
    case DType::U8:
    case DType::U16:
    case DType::F16:
      return "uint";
    case DType::I8:
    case DType::I16:
      return "int";
    case DType::BF16:
    case DType::F64:
    case DType::F32:
    case DType::I64:
    case DType::U64:
    case DType::I32:
    case DType::U32:
      break;
  }
  return storage_type(dtype);
}

/// The GLSL spelling of the program loops (shader_loops.h): the general kernel's buffers hold
/// storage_type, its elements held as loaded_type; the flat kernel's hold vector_type. The last
/// vector of a flat kernel's tensor is read and written lane by lane, so its binding is the
/// tensor's exact bytes.
class GlslLoops final : public GlslSyntax<ShaderLoopSyntax> {
 public:
  explicit GlslLoops(DType compute) : compute_(compute) {}

  std::string declaration(std::string_view type, const std::string& name) const override {
    return std::string(type) + " " + name;
  }
  std::string count_down(const std::string& name, const std::string& count) const override {
    return "for (int " + name + " = int(" + count + ") - 1; " + name + " >= 0; --" + name + ")";
  }
  std::string invocations() const override {
    return "gl_NumWorkGroups.x * " + std::to_string(kGlslWorkgroupSize) + "u";
  }
  uint32_t elements_per_invocation() const override { return kGlslElementsPerInvocation; }
  std::string_view held_type(DType dtype) const override { return loaded_type(dtype); }
  std::string vector_type(DType dtype) const override {
    return std::string(codegen::vector_type(dtype));
  }
  std::string load(DType dtype, std::size_t k) const override {
    return std::string(loaded_type(dtype)) + "(in" + std::to_string(k) + "[offset" +
           std::to_string(k) + "])";
  }
  std::string stored(DType dtype, const std::string& value) const override {
    return Glsl(compute_).store(dtype, value);
  }
  std::string store(DType /*dtype*/, std::size_t k, const std::string& element) const override {
    return "out" + std::to_string(k) + "[i] = " + element;
  }

 private:
  DType compute_;
};

/// The source of program's general kernel, or of its flat kernel (flat): the same preamble,
/// scalars and body, around shader_element_loop or shader_flat_loop.
std::string kernel_source(const ir::Program& program, const GlslFeatures& features, bool flat) {
  const std::string name = flat ? "glsl_flat_program_kernel" : "glsl_program_kernel";
  if (const std::string why = glsl_program_refusal(program, features); !why.empty())
    throw InvalidArgument("[" + name + "] " + why + ", in the program " + program.describe());
  if (flat && !has_flat_program_kernel(program))
    throw InvalidArgument("[" + name + "] the program " + program.describe() +
                          " has a tensor whose elements are not of 4 bytes");
  const DType compute = compute_of(program);
  std::vector<std::string> elements;
  for (std::size_t k = 0; k < program.inputs.size(); ++k)
    elements.push_back("x" + std::to_string(k));
  const ProgramBody body = program_body(Glsl(compute, "      "), program, elements);
  std::string source = std::string("// the ") + (flat ? "flat kernel of the " : "") +
                       "fused program " + program.describe() +
                       ", written by ember's GLSL emitter (src/codegen) from ir/formulas.h\n";
  source += preamble(program);
  source += buffers(program, flat);
  source += "void main() {\n  const uint n = p[0];\n";
  if (!flat) source += "  const uint rank = p[1];\n";
  source += scalar_declarations(program, compute);
  const GlslLoops loops(compute);
  source +=
      flat ? shader_flat_loop(program, body, loops) : shader_element_loop(program, body, loops);
  return source + "}\n";
}

}  // namespace

std::string glsl_program_refusal(const ir::Program& program, const GlslFeatures& features) {
  if (std::string why = program_refusal(program); !why.empty()) return why;
  const auto stored = [&](DType dtype, const std::string& what) -> std::string {
    if (stores(dtype, features)) return "";
    return what + " has dtype " + std::string(dtype_name(dtype)) +
           ", which this device's kernels cannot hold";
  };
  for (std::size_t k = 0; k < program.inputs.size(); ++k)
    if (std::string why = stored(program.inputs[k].dtype, "input " + std::to_string(k));
        !why.empty())
      return why;
  const formula::Primitives written = glsl_primitives(compute_of(program));
  for (std::size_t j = 0; j < program.instructions.size(); ++j) {
    const ir::Instruction& instruction = program.instructions[j];
    const std::string which =
        "instruction " + std::to_string(j) + " (" + ir::name(instruction.op) + ")";
    if (std::string why = stored(instruction.dtype, which); !why.empty()) return why;
    const DType dtype = operand_dtype(instruction.op, operand_dtypes(program, instruction));
    if ((needed(instruction.op, dtype) & ~written).any())
      return which + " on " + std::string(dtype_name(dtype)) +
             " needs a function GLSL does not compute exactly enough on this type";
    if (std::holds_alternative<ir::CompareScalar>(instruction.op) && is_int(dtype) &&
        !features.float64)
      return which + " compares an integer with a scalar in double, which this device lacks";
  }
  return "";
}

std::string glsl_program_kernel(const ir::Program& program, const GlslFeatures& features) {
  return kernel_source(program, features, false);
}

bool has_flat_program_kernel(const ir::Program& program) {
  for (const ir::ProgramInput& input : program.inputs)
    if (dtype_size(input.dtype) != 4) return false;
  for (const uint32_t result : program.outputs)
    if (dtype_size(program.instructions[result].dtype) != 4) return false;
  return true;
}

bool flat_program_runs(const ir::Program& program, const MergedDims& dims) {
  if (!has_flat_program_kernel(program) || dims.sizes.size() > 1) return false;
  for (std::size_t k = 0; k < program.inputs.size(); ++k) {
    const int64_t stride = dims.sizes.empty() ? 0 : dims.strides[k][0];
    const int64_t offset = k < dims.offsets.size() ? dims.offsets[k] : 0;
    if (stride != 0 && (stride != 1 || offset % 4 != 0)) return false;
  }
  return true;
}

std::string glsl_flat_program_kernel(const ir::Program& program, const GlslFeatures& features) {
  return kernel_source(program, features, true);
}

std::vector<uint32_t> glsl_program_parameters(const ir::Program& program,
                                              const GlslFeatures& /*features*/,
                                              const MergedDims& dims, uint64_t n,
                                              std::span<const Scalar> constants) {
  std::vector<uint32_t> words(kProgramStridesWord + (kProgramMaxRank + 1) * program.inputs.size(),
                              0);
  words[0] = static_cast<uint32_t>(n);
  words[1] = static_cast<uint32_t>(dims.sizes.size());
  for (std::size_t d = 0; d < dims.sizes.size(); ++d) {
    words[kProgramSizesWord + d] = static_cast<uint32_t>(dims.sizes[d]);
    for (std::size_t k = 0; k < program.inputs.size(); ++k)
      words[kProgramStridesWord + kProgramMaxRank * k + d] =
          static_cast<uint32_t>(dims.strides[k][d]);
  }
  for (std::size_t k = 0; k < program.inputs.size() && k < dims.offsets.size(); ++k)
    words[kProgramStridesWord + kProgramMaxRank * program.inputs.size() + k] =
        static_cast<uint32_t>(dims.offsets[k]);
  const DType compute = compute_of(program);
  const std::vector<KernelScalar> scalars = program_scalars(program, constants);
  std::size_t next = 0;
  for (const ir::Instruction& instruction : program.instructions) {
    if (!ir::scalar_of(instruction.op)) continue;
    const KernelScalar& scalar = scalars[next++];
    uint64_t bits = 0;
    if (const auto* integer = std::get_if<int64_t>(&scalar)) {
      bits = static_cast<uint64_t>(*integer);
    } else if (scalar_kind(program, instruction, compute) == ScalarKind::Float) {
      const auto value = static_cast<float>(std::get<double>(scalar));  // exact: rounded already
      uint32_t word = 0;
      std::memcpy(&word, &value, sizeof word);
      bits = word;
    } else {
      std::memcpy(&bits, &std::get<double>(scalar), sizeof bits);
    }
    words.push_back(static_cast<uint32_t>(bits));
    words.push_back(static_cast<uint32_t>(bits >> 32));
  }
  return words;
}

}  // namespace ember::codegen
