// The fused-program emitter (cuda_program.h): the checks of a program, then its kernel, each
// instruction evaluated over the CudaC target by cuda_ops.cpp, which picks its formula.
#include "codegen/cuda_program.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "codegen/cuda_c.h"
#include "codegen/cuda_ops.h"
#include "ember/error.h"
#include "ir/ops.h"
#include "ir/program.h"

namespace ember::codegen {
namespace {

/// The dtype a program's op is written on: its first tensor operand's (Where's a).
DType operand_dtype(const ir::Op& op, std::span<const DType> args) {
  return std::holds_alternative<ir::Where>(op) && args.size() > 1 ? args[1] : args.front();
}

/// Whether op passes its (first) operand of dtype through: a cast to dtype, or an expand (whose
/// argument broadcasts as a program input).
bool is_identity(const ir::Op& op, DType dtype) {
  const auto* cast = std::get_if<ir::Cast>(&op);
  return (cast != nullptr && cast->dtype == dtype) || std::holds_alternative<ir::Expand>(op);
}

std::string dtype_text(DType dtype) {
  return std::string(dtype_name(dtype));
}

/// Why program_kernel cannot write program, or "" when it can.
std::string refusal(const ir::Program& program) {
  std::optional<DType> float_dtype;
  // A float dtype besides the program's first one: the kernel computes in one type.
  const auto mixes = [&](DType dtype) {
    if (!is_float(dtype)) return false;
    if (float_dtype && *float_dtype != dtype) return true;
    float_dtype = dtype;
    return false;
  };
  for (std::size_t k = 0; k < program.inputs.size(); ++k) {
    const ir::ProgramInput& input = program.inputs[k];
    const std::string which = "input " + std::to_string(k) + " ";
    if (!cuda::has_storage(input.dtype))
      return which + "has an unknown dtype (" + std::to_string(static_cast<int>(input.dtype)) + ")";
    if (mixes(input.dtype))
      return which + "has dtype " + dtype_text(input.dtype) + ", another float dtype than " +
             dtype_text(*float_dtype) + " (a program computes in one)";
    if (input.broadcast.size() > kProgramMaxRank)
      return which + "has " + std::to_string(input.broadcast.size()) + " dims, more than " +
             std::to_string(kProgramMaxRank);
  }
  for (std::size_t j = 0; j < program.instructions.size(); ++j) {
    const ir::Instruction& instruction = program.instructions[j];
    const std::string which =
        "instruction " + std::to_string(j) + " (" + ir::name(instruction.op) + ") ";
    std::vector<DType> args;
    std::vector<ir::TensorMeta> metas;
    for (const ir::ProgramRef arg : instruction.args) {
      const bool input = arg.kind == ir::ProgramRef::Kind::Input;
      if (input ? arg.index >= program.inputs.size() : arg.index >= j)
        return which + "reads " + (input ? "input " : "instruction ") + std::to_string(arg.index) +
               ", which it cannot";
      args.push_back(program.dtype_of(arg));
      metas.push_back({Shape{1}, args.back()});
    }
    if (args.empty()) return which + "has no operands";
    const DType dtype = operand_dtype(instruction.op, args);
    if (!(is_identity(instruction.op, dtype) && cuda::has_storage(dtype)) &&
        !cuda::writes(instruction.op, dtype))
      return which + "on " + dtype_text(dtype) +
             ": the CUDA C emitter has no formula for this op on this dtype";
    if (ir::scalar_of(instruction.op) && !instruction.constant)
      return which + "has a scalar but no constant";
    try {
      // An expand's shape is the first execution's, not the metas' [1]: it passes its dtype on.
      const bool expand = std::holds_alternative<ir::Expand>(instruction.op);
      if (expand && args.size() != 1)
        return which + "has " + std::to_string(args.size()) + " operands, not 1";
      const DType result = expand ? dtype : ir::infer(instruction.op, metas)[0].dtype;
      if (result != instruction.dtype)
        return which + "on " + dtype_text(dtype) + " gives " + dtype_text(result) + ", not " +
               dtype_text(instruction.dtype);
    } catch (const InvalidArgument& e) {
      return which + "on " + dtype_text(dtype) + ": " + e.what();
    }
    if (mixes(instruction.dtype))
      return which + "gives " + dtype_text(instruction.dtype) + ", another float dtype than " +
             dtype_text(*float_dtype) + " (a program computes in one)";
  }
  if (program.outputs.empty()) return "the program stores nothing (no outputs)";
  for (const uint32_t output : program.outputs)
    if (output >= program.instructions.size())
      return "output " + std::to_string(output) + " is no instruction of the program's " +
             std::to_string(program.instructions.size());
  return "";
}

/// The guarded definition of the kernel's ember_dims, KernelDims's layout.
constexpr std::string_view kDimsDefinition = R"(#ifndef EMBER_DIMS
#define EMBER_DIMS
struct ember_dims {
  long long d[8];
};
#endif
)";
static_assert(kProgramMaxRank == 8, "kDimsDefinition spells the rank out");

}  // namespace

KernelDims kernel_sizes(const Shape& shape) {
  if (shape.rank() > kProgramMaxRank)
    throw InvalidArgument("[program_kernel] shape of rank " + std::to_string(shape.rank()) +
                          ": a program kernel takes at most " + std::to_string(kProgramMaxRank) +
                          " dims");
  KernelDims sizes;
  for (std::size_t d = 0; d < shape.rank(); ++d)
    sizes.d[d] = shape[d];
  return sizes;
}

KernelDims broadcast_strides(const Shape& input, const Shape& output) {
  kernel_sizes(output);  // checks the rank
  const bool fits = input.rank() <= output.rank() && [&] {
    for (std::size_t d = 0; d < input.rank(); ++d) {
      const int64_t size = input[d];
      if (size != 1 && size != output[output.rank() - input.rank() + d]) return false;
    }
    return true;
  }();
  if (!fits) {
    std::ostringstream text;
    text << "[program_kernel] input " << input << " does not broadcast to " << output;
    throw InvalidArgument(text.str());
  }
  KernelDims strides;
  const std::size_t lead = output.rank() - input.rank();
  int64_t stride = 1;
  for (std::size_t d = input.rank(); d-- > 0;) {
    strides.d[lead + d] = input[d] == 1 ? 0 : stride;
    stride *= input[d];
  }
  return strides;
}

bool has_program_kernel(const ir::Program& program) {
  return refusal(program).empty();
}

namespace {

/// A program's values over one target: the target's statements and each instruction's result.
struct ProgramBody {
  std::string statements;
  std::vector<std::string> results;
};

/// The statements computing program, input k's element read by the C expression elements[k],
/// each instruction's scalar (if any) from the kernel parameter scalar<j>.
ProgramBody body_of(const ir::Program& program, DType compute,
                    const std::vector<std::string>& elements, const std::string& indent) {
  const CudaC m(compute, indent);
  std::vector<std::string> inputs;
  for (std::size_t k = 0; k < program.inputs.size(); ++k)
    inputs.push_back(cuda::load(m, program.inputs[k].dtype, elements[k]));
  std::vector<std::string> results;
  for (std::size_t j = 0; j < program.instructions.size(); ++j) {
    const ir::Instruction& instruction = program.instructions[j];
    std::vector<std::string> args;
    std::vector<DType> arg_dtypes;
    for (const ir::ProgramRef arg : instruction.args) {
      const bool input = arg.kind == ir::ProgramRef::Kind::Input;
      args.push_back(input ? inputs[arg.index] : results[arg.index]);
      arg_dtypes.push_back(program.dtype_of(arg));
    }
    std::string scalar;
    if (const auto* activation = std::get_if<ir::Activation>(&instruction.op))
      scalar = m.literal(ir::parameter_of(*activation));
    else if (ir::scalar_of(instruction.op))
      scalar = "scalar" + std::to_string(j);
    std::string result =
        cuda::evaluate(m, instruction.op, operand_dtype(instruction.op, arg_dtypes), args, scalar);
    // An f16 or bf16 result is rounded to its dtype, as running the op alone stores it; where,
    // mask_fill, expands and casts from Bool choose among values of the dtype already (0 and 1, a
    // rounded scalar). A cast from an integer is rounded here (from its float rounded to odd).
    const auto* cast = std::get_if<ir::Cast>(&instruction.op);
    const bool selects = std::holds_alternative<ir::Where>(instruction.op) ||
                         std::holds_alternative<ir::MaskFill>(instruction.op) ||
                         std::holds_alternative<ir::Expand>(instruction.op) ||
                         (cast != nullptr && !is_int(arg_dtypes.front()));
    if ((instruction.dtype == DType::F16 || instruction.dtype == DType::BF16) && !selects)
      result = cuda::load(m, instruction.dtype, cuda::store(instruction.dtype, result));
    results.push_back(std::move(result));
  }
  return {m.statements(), std::move(results)};
}

/// The guarded definition of the flat kernel's vector of four elements: one load or store of
/// 16 bytes for f32 (8 for f16 and bf16, 32 for f64), which a memory-bound kernel needs.
constexpr std::string_view kVectorDefinition = R"(#ifndef EMBER_VEC4
#define EMBER_VEC4
template <typename S> struct alignas(4 * sizeof(S)) ember_vec4 { S v[4]; };
#endif
)";

/// The general kernel's loop: each input's element found from the coordinates of i.
std::string strided_loop(const ir::Program& program, const ProgramBody& body) {
  // No output aliases an input (__restrict__): unrolled, the loop's loads of several elements are
  // in flight at once.
  std::string source = "  #pragma unroll 4\n";
  source += "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;\n";
  source += "       i += (long long)gridDim.x * blockDim.x) {\n";
  if (!program.inputs.empty()) {
    // Each input's element: the coordinates of i dotted with its strides. A 64-bit division
    // costs tens of instructions: rank 1 needs none, and below 2^31 elements the coordinates are
    // found in 32 bits.
    for (std::size_t k = 0; k < program.inputs.size(); ++k)
      source += "    long long offset" + std::to_string(k) + " = 0;\n";
    source += "    if (rank == 1) {\n";
    for (std::size_t k = 0; k < program.inputs.size(); ++k)
      source +=
          "      offset" + std::to_string(k) + " = i * strides" + std::to_string(k) + ".d[0];\n";
    // One loop, in 32 bits below 2^31 elements, else in 64.
    const auto coordinates = [&](const std::string& type, const std::string& size) {
      source += "      " + type + " rest = (" + type + ")i;\n";
      source += "      for (int d = rank - 1; d >= 0; --d) {\n";
      source += "        const " + type + " size = " + size + ";\n";
      source += "        const " + type + " coordinate = rest % size;\n";
      source += "        rest /= size;\n";
      for (std::size_t k = 0; k < program.inputs.size(); ++k)
        source += "        offset" + std::to_string(k) + " += (long long)coordinate * strides" +
                  std::to_string(k) + ".d[d];\n";
      source += "      }\n";
    };
    source += "    } else if (n <= 2147483647LL) {\n";
    coordinates("unsigned int", "(unsigned int)sizes.d[d]");
    source += "    } else {\n";
    coordinates("long long", "sizes.d[d]");
    source += "    }\n";
  }
  source += body.statements;
  for (std::size_t k = 0; k < program.outputs.size(); ++k)
    source += "    out" + std::to_string(k) + "[i] = " +
              cuda::store(program.instructions[program.outputs[k]].dtype,
                          body.results[program.outputs[k]]) +
              ";\n";
  source += "  }\n";
  return source;
}

/// The flat kernel's loop: four elements a thread, each input a vector of four (or its one
/// element four times where the broadcast bit k is set), each output stored as a vector.
std::string flat_loop(const ir::Program& program, const ProgramBody& body,
                      const std::vector<std::string>& input_types,
                      const std::vector<std::string>& output_types) {
  std::string source;
  source += "  for (long long i = 4 * ((long long)blockIdx.x * blockDim.x + threadIdx.x); i < n;\n";
  source += "       i += 4 * (long long)gridDim.x * blockDim.x) {\n";
  source += "    const bool whole = i + 4 <= n;\n";
  for (std::size_t k = 0; k < input_types.size(); ++k) {
    const std::string a = "a" + std::to_string(k), in = "in" + std::to_string(k);
    const std::string vec = "ember_vec4<" + input_types[k] + ">";
    source += "    " + vec + " " + a + " = {};\n";
    source += "    if (broadcast & (1u << " + std::to_string(k) + ")) {\n";
    source += "      " + a + ".v[0] = " + a + ".v[1] = " + a + ".v[2] = " + a + ".v[3] = " + in +
              "[0];\n";
    source += "    } else if (whole) {\n";
    source += "      " + a + " = *reinterpret_cast<const " + vec + "*>(" + in + " + i);\n";
    source += "    } else {\n";
    source += "      for (long long e = 0; e < n - i; ++e) " + a + ".v[e] = " + in + "[i + e];\n";
    source += "    }\n";
  }
  for (std::size_t k = 0; k < output_types.size(); ++k)
    source += "    ember_vec4<" + output_types[k] + "> r" + std::to_string(k) + ";\n";
  source += "    #pragma unroll\n";
  source += "    for (int e = 0; e < 4; ++e) {\n";
  source += body.statements;
  for (std::size_t k = 0; k < program.outputs.size(); ++k)
    source += "      r" + std::to_string(k) + ".v[e] = " +
              cuda::store(program.instructions[program.outputs[k]].dtype,
                          body.results[program.outputs[k]]) +
              ";\n";
  source += "    }\n";
  for (std::size_t k = 0; k < output_types.size(); ++k) {
    const std::string r = "r" + std::to_string(k), out = "out" + std::to_string(k);
    source += "    if (whole) *reinterpret_cast<ember_vec4<" + output_types[k] + ">*>(" + out +
              " + i) = " + r + ";\n";
    source +=
        "    else for (long long e = 0; e < n - i; ++e) " + out + "[i + e] = " + r + ".v[e];\n";
  }
  source += "  }\n";
  return source;
}

}  // namespace

std::string program_kernel(const ir::Program& program, std::string_view kernel_name) {
  if (const std::string why = refusal(program); !why.empty())
    throw InvalidArgument("[program_kernel] " + why + ", in the program " + program.describe());
  if (!cuda::is_identifier(kernel_name))
    throw InvalidArgument("[program_kernel] kernel name \"" + std::string(kernel_name) +
                          "\" is not a C identifier");

  bool f64 = false;
  std::string helpers;
  const auto uses = [&](DType dtype) {
    f64 = f64 || dtype == DType::F64;
    if (helpers.find(cuda::storage_helpers(dtype)) == std::string::npos)
      helpers += cuda::storage_helpers(dtype);
  };
  for (const ir::ProgramInput& input : program.inputs)
    uses(input.dtype);
  for (const ir::Instruction& instruction : program.instructions)
    uses(instruction.dtype);
  const DType compute = f64 ? DType::F64 : DType::F32;

  // The parameters both kernels share: pointers first, scalars last.
  std::vector<std::string> input_types, output_types, pointers, scalars;
  for (std::size_t k = 0; k < program.inputs.size(); ++k) {
    input_types.emplace_back(cuda::storage_type(program.inputs[k].dtype));
    pointers.push_back("const " + input_types.back() + "* __restrict__ in" + std::to_string(k));
  }
  for (std::size_t k = 0; k < program.outputs.size(); ++k) {
    output_types.emplace_back(cuda::storage_type(program.instructions[program.outputs[k]].dtype));
    pointers.push_back(output_types.back() + "* __restrict__ out" + std::to_string(k));
  }
  for (std::size_t j = 0; j < program.instructions.size(); ++j) {
    const ir::Instruction& instruction = program.instructions[j];
    if (std::holds_alternative<ir::Activation>(instruction.op) || !ir::scalar_of(instruction.op))
      continue;
    std::vector<DType> args;
    for (const ir::ProgramRef arg : instruction.args)
      args.push_back(program.dtype_of(arg));
    const bool integer =
        cuda::takes_integer_scalar(instruction.op, operand_dtype(instruction.op, args));
    scalars.push_back((integer ? "long long scalar" : "double scalar") + std::to_string(j));
  }
  const auto signature = [&](const std::string& name, const std::vector<std::string>& middle) {
    std::vector<std::string> all = pointers;
    all.insert(all.end(), middle.begin(), middle.end());
    all.insert(all.end(), scalars.begin(), scalars.end());
    std::string text = "extern \"C\" __global__ void " + name + "(";
    for (std::size_t k = 0; k < all.size(); ++k)
      text += (k == 0 ? "" : ", ") + all[k];
    return text + ") {\n";
  };

  std::vector<std::string> strided_elements, flat_elements;
  std::vector<std::string> strided_middle = {"long long n", "int rank", "ember_dims sizes"};
  for (std::size_t k = 0; k < program.inputs.size(); ++k) {
    strided_elements.push_back("in" + std::to_string(k) + "[offset" + std::to_string(k) + "]");
    flat_elements.push_back("a" + std::to_string(k) + ".v[e]");
    strided_middle.push_back("ember_dims strides" + std::to_string(k));
  }

  std::string source = "// the fused program " + program.describe() +
                       ", written by ember's CUDA C emitter (src/codegen) from ir/formulas.h\n";
  source += helpers;
  source += kDimsDefinition;
  source += kVectorDefinition;
  source += signature(std::string(kernel_name), strided_middle);
  source += strided_loop(program, body_of(program, compute, strided_elements, "    "));
  source += "}\n";
  source +=
      signature(std::string(kernel_name) + "_flat", {"long long n", "unsigned int broadcast"});
  source += flat_loop(program, body_of(program, compute, flat_elements, "      "), input_types,
                      output_types);
  source += "}\n";
  return source;
}

std::vector<KernelScalar> program_scalars(const ir::Program& program,
                                          std::span<const Scalar> constants) {
  std::vector<KernelScalar> scalars;
  for (std::size_t j = 0; j < program.instructions.size(); ++j) {
    const ir::Instruction& instruction = program.instructions[j];
    if (!ir::scalar_of(instruction.op)) continue;
    if (!instruction.constant || *instruction.constant >= constants.size())
      throw InvalidArgument("[program_kernel] instruction " + std::to_string(j) + " (" +
                            ir::name(instruction.op) + ") has no constant among the " +
                            std::to_string(constants.size()) + " given");
    std::vector<DType> args;
    for (const ir::ProgramRef arg : instruction.args)
      args.push_back(program.dtype_of(arg));
    if (args.empty())
      throw InvalidArgument("[program_kernel] instruction " + std::to_string(j) + " (" +
                            ir::name(instruction.op) + ") has no operands");
    const ir::Op op = program.bound_op(j, constants);
    const DType dtype = operand_dtype(instruction.op, args);
    if (cuda::takes_integer_scalar(op, dtype)) {
      scalars.emplace_back(kernel_integer_parameter(op, dtype));
    } else {
      scalars.emplace_back(kernel_parameter(op, dtype));
    }
  }
  return scalars;
}

}  // namespace ember::codegen
