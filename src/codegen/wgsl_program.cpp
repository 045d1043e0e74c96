// The WGSL program emitter (wgsl_program.h): the refusals (the GLSL emitter's, on WGSL's types),
// the buffers of each dtype, the scalars, and the WGSL spelling of the loops (shader_loops.h).
#include "codegen/wgsl_program.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "codegen/emitted_ops.h"
#include "codegen/glsl.h"
#include "codegen/glsl_program.h"
#include "codegen/kernel_dims.h"
#include "codegen/kernel_scalars.h"
#include "codegen/op_formulas.h"
#include "codegen/shader_loops.h"
#include "codegen/shader_syntax.h"
#include "codegen/wgsl.h"
#include "ember/error.h"

namespace ember::codegen {
namespace {

/// Whether dtype's elements are packed in u32 words (1 or 2 bytes).
bool packed(DType dtype) {
  return dtype_size(dtype) < 4;
}

/// The element type of a buffer of dtype (a word for the packed dtypes).
std::string_view element_type(DType dtype) {
  if (dtype == DType::F32) return "f32";
  if (dtype == DType::I32) return "i32";
  return "u32";
}

// The helpers a kernel may call: f32 to f16 bits rounded to nearest, ties to even (as the GLSL
// kernels' ember_f16_bits: pack2x16float leaves the rounding to the implementation), and the
// wrapping integer powers (WGSL has no overloading).
constexpr std::string_view kHalfHelper = R"(fn ember_f16_bits(f: f32) -> u32 {
  let x = bitcast<u32>(f);
  let sign = (x >> 16u) & 0x8000u;
  let a = x & 0x7fffffffu;
  if (a > 0x7f800000u) { return sign | 0x7e00u | ((a >> 13u) & 0x3ffu); }
  if (a >= 0x477ff000u) { return sign | 0x7c00u; }
  if (a >= 0x38800000u) {
    let r = a - 0x38000000u;
    return sign | ((r + 0xfffu + ((r >> 13u) & 1u)) >> 13u);
  }
  return sign | u32(round(bitcast<f32>(a) * 16777216.0));
}
)";
constexpr std::string_view kHelpers = R"(fn ember_ipow_i32(base: i32, exponent: i32) -> i32 {
  var b = base;
  var e = exponent;
  var r = 1i;
  while (e > 0i) { if ((e & 1i) == 1i) { r *= b; } e >>= 1u; b *= b; }
  return r;
}
fn ember_ipow_u32(base: u32, exponent: u32) -> u32 {
  var b = base;
  var e = exponent;
  var r = 1u;
  while (e > 0u) { if ((e & 1u) == 1u) { r *= b; } e >>= 1u; b *= b; }
  return r;
}
)";

// add() is one step of Neumaier's sum: sum and the error of its additions so far (c); an
// infinite or NaN sum is the sum itself (its error is meaningless). The new sum passes through
// an OR with opaque_zero, so that no compiler that treats f32 addition as associative can fold
// the error term (total.sum - s) + v to 0: WGSL has no `precise`, and on an H100's Vulkan driver
// the sums came out 1e-5 off ndarray's, as uncompensated ones would.
constexpr std::string_view kCompensatedSum = R"(var<private> opaque_zero: u32;
struct Sum { sum: f32, c: f32 }
fn add(total: Sum, v: f32) -> Sum {
  let s = bitcast<f32>(bitcast<u32>(total.sum + v) | opaque_zero);
  let c = select((v - s) + total.sum, (total.sum - s) + v, abs(total.sum) >= abs(v));
  return Sum(s, total.c + c);
}
fn sum_value(total: Sum) -> f32 {
  let finite = (bitcast<u32>(total.sum) & 0x7f800000u) != 0x7f800000u;
  return select(total.sum, total.sum + total.c, finite);
}
)";

}  // namespace

std::string_view wgsl_f16_bits_helper() {
  return kHalfHelper;
}

std::string_view wgsl_compensated_sum_helper() {
  return kCompensatedSum;
}

namespace {

/// The vector of four elements of a 4-byte dtype, the flat kernel's buffers' element.
std::string vector_type(DType dtype) {
  return "vec4<" + std::string(element_type(dtype)) + ">";
}

/// The buffers' declarations: arrays of element_type (atomic words for the packed outputs), or
/// of vector_type for the flat kernel.
std::string buffers(const ir::Program& program, bool flat) {
  const auto element = [&](DType dtype) {
    return flat ? vector_type(dtype) : std::string(element_type(dtype));
  };
  std::string text = "@group(0) @binding(0) var<storage, read> p: array<u32>;\n";
  std::size_t binding = 1;
  for (std::size_t k = 0; k < program.inputs.size(); ++k)
    text += "@group(0) @binding(" + std::to_string(binding++) + ") var<storage, read_write> in" +
            std::to_string(k) + ": array<" + element(program.inputs[k].dtype) + ">;\n";
  for (std::size_t k = 0; k < program.outputs.size(); ++k) {
    const DType dtype = program.instructions[program.outputs[k]].dtype;
    const std::string element_of_output = packed(dtype) ? "atomic<u32>" : element(dtype);
    text += "@group(0) @binding(" + std::to_string(binding++) + ") var<storage, read_write> out" +
            std::to_string(k) + ": array<" + element_of_output + ">;\n";
  }
  return text;
}

/// The declarations of the scalars, from the parameter block's words after the offsets: an
/// integer instruction's in its dtype's type, the others' as f32 bits (glsl_program_parameters).
std::string scalar_declarations(const ir::Program& program) {
  std::string text;
  std::size_t word = kProgramStridesWord + (kProgramMaxRank + 1) * program.inputs.size();
  for (std::size_t j = 0; j < program.instructions.size(); ++j) {
    const ir::Instruction& instruction = program.instructions[j];
    if (std::holds_alternative<ir::Activation>(instruction.op) || !ir::scalar_of(instruction.op))
      continue;
    std::vector<DType> args;
    for (const ir::ProgramRef arg : instruction.args)
      args.push_back(program.dtype_of(arg));
    const DType dtype = operand_dtype(instruction.op, args);
    const std::string bits = "p[" + std::to_string(word) + "]";
    std::string value = "bitcast<f32>(" + bits + ")";
    if (takes_integer_scalar(instruction.op, dtype))
      value = is_signed_int(dtype) ? "bitcast<i32>(" + bits + ")" : bits;
    text += "  let scalar" + std::to_string(j) + " = " + value + ";\n";
    word += 2;
  }
  return text;
}

/// The expression of input k's element at offset<k>: itself, or its bits from its word.
std::string element_of(DType dtype, std::size_t k) {
  const std::string buffer = "in" + std::to_string(k);
  const std::string offset = "offset" + std::to_string(k);
  if (!packed(dtype)) return buffer + "[" + offset + "]";
  const bool bytes = dtype_size(dtype) == 1;
  const std::string per_word_log = bytes ? "2u" : "1u";
  const std::string within = bytes ? "3u" : "1u";
  const std::string width = bytes ? "8u" : "16u";
  const std::string mask = bytes ? "0xffu" : "0xffffu";
  return "((" + buffer + "[" + offset + " >> " + per_word_log + "] >> ((" + offset + " & " +
         within + ") * " + width + ")) & " + mask + ")";
}

/// The statement storing value (store's expression) as element i of output k: or-ed into its
/// word for the packed dtypes.
std::string store_statement(DType dtype, std::size_t k, const std::string& value) {
  const std::string buffer = "out" + std::to_string(k);
  if (!packed(dtype)) return buffer + "[i] = " + value;
  const bool bytes = dtype_size(dtype) == 1;
  return "atomicOr(&" + buffer + "[i >> " + (bytes ? "2u" : "1u") + "], " + value + " << ((i & " +
         (bytes ? "3u" : "1u") + ") * " + (bytes ? "8u" : "16u") + "))";
}

/// The WGSL spelling of the program loops (shader_loops.h): the general kernel's buffers hold
/// element_type (words for the packed dtypes, their elements held as their bits in a u32); the
/// flat kernel's hold vector_type. The last vector of a flat kernel's tensor is read and written
/// lane by lane, but its binding still covers the whole vector (ProgramEmitter::flat_bound): the
/// array's length counts whole vectors, and an access past it is not defined (ember's kernels
/// are trusted modules: naga adds no clamp).
class WgslLoops final : public WgslSyntax<ShaderLoopSyntax> {
 public:
  std::string declaration(std::string_view type, const std::string& name) const override {
    return "var " + name + ": " + std::string(type);
  }
  std::string count_down(const std::string& name, const std::string& count) const override {
    return "for (var " + name + " = i32(" + count + ") - 1i; " + name + " >= 0i; " + name + "--)";
  }
  std::string invocations() const override {
    return "groups.x * " + std::to_string(kWgslWorkgroupSize) + "u";
  }
  uint32_t elements_per_invocation() const override { return kWgslElementsPerInvocation; }
  std::string_view held_type(DType dtype) const override { return element_type(dtype); }
  std::string vector_type(DType dtype) const override { return codegen::vector_type(dtype); }
  std::string load(DType dtype, std::size_t k) const override { return element_of(dtype, k); }
  std::string stored(DType dtype, const std::string& value) const override {
    return Wgsl(DType::F32).store(dtype, value);
  }
  std::string store(DType dtype, std::size_t k, const std::string& element) const override {
    return store_statement(dtype, k, element);
  }
};

/// The source of program's general kernel, or of its flat kernel (flat): the same buffers'
/// bindings, helpers, scalars and body, around shader_element_loop or shader_flat_loop.
std::string kernel_source(const ir::Program& program, bool flat) {
  const std::string name = flat ? "wgsl_flat_program_kernel" : "wgsl_program_kernel";
  if (const std::string why = wgsl_program_refusal(program); !why.empty())
    throw InvalidArgument("[" + name + "] " + why + ", in the program " + program.describe());
  if (flat && !has_flat_program_kernel(program))
    throw InvalidArgument("[" + name + "] the program " + program.describe() +
                          " has a tensor whose elements are not of 4 bytes");
  std::vector<std::string> elements;
  for (std::size_t k = 0; k < program.inputs.size(); ++k)
    elements.push_back("x" + std::to_string(k));
  const ProgramBody body = program_body(Wgsl(DType::F32, "      "), program, elements);
  std::string source = std::string("// the ") + (flat ? "flat kernel of the " : "") +
                       "fused program " + program.describe() +
                       ", written by ember's WGSL emitter (src/codegen) from ir/formulas.h\n";
  source += buffers(program, flat);
  source += kHalfHelper;
  source += kHelpers;
  source += "@compute @workgroup_size(" + std::to_string(kWgslWorkgroupSize) + ")\n";
  source +=
      "fn main(@builtin(global_invocation_id) gid: vec3<u32>, "
      "@builtin(num_workgroups) groups: vec3<u32>) {\n  let n = p[0];\n";
  if (!flat) source += "  let rank = p[1];\n";
  source += scalar_declarations(program);
  const WgslLoops loops;
  source +=
      flat ? shader_flat_loop(program, body, loops) : shader_element_loop(program, body, loops);
  return source + "}\n";
}

}  // namespace

std::string wgsl_program_refusal(const ir::Program& program) {
  GlslFeatures wgsl;  // no doubles, no 64-bit integers; 8- and 16-bit elements packed in words
  wgsl.storage8 = true;
  wgsl.storage16 = true;
  return glsl_program_refusal(program, wgsl);
}

std::string wgsl_program_kernel(const ir::Program& program) {
  return kernel_source(program, false);
}

std::string wgsl_flat_program_kernel(const ir::Program& program) {
  return kernel_source(program, true);
}

}  // namespace ember::codegen
