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
#include "codegen/emitted_ops.h"
#include "codegen/op_formulas.h"
#include "ember/error.h"
#include "ir/ops.h"
#include "ir/program.h"

namespace ember::codegen {

bool has_program_kernel(const ir::Program& program) {
  return program_refusal(program).empty();
}

namespace {

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
/// element four times where the broadcast bit k is set), each output stored as a vector. The
/// tail's loops are unrolled over constant indices: a vector indexed at run time lives in local
/// memory, in every iteration.
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
    source += "      #pragma unroll\n";
    source +=
        "      for (int e = 0; e < 4; ++e) if (i + e < n) " + a + ".v[e] = " + in + "[i + e];\n";
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
    source += "    else {\n      #pragma unroll\n";
    source +=
        "      for (int e = 0; e < 4; ++e) if (i + e < n) " + out + "[i + e] = " + r + ".v[e];\n";
    source += "    }\n";
  }
  source += "  }\n";
  return source;
}

}  // namespace

std::string program_kernel(const ir::Program& program, std::string_view kernel_name) {
  if (const std::string why = program_refusal(program); !why.empty())
    throw InvalidArgument("[program_kernel] " + why + ", in the program " + program.describe());
  if (!is_identifier(kernel_name))
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
    const bool integer = takes_integer_scalar(instruction.op, operand_dtype(instruction.op, args));
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
  std::vector<std::string> strided_middle = {"long long n", "int rank", "EMBER_DIMS_PARAM sizes"};
  for (std::size_t k = 0; k < program.inputs.size(); ++k) {
    strided_elements.push_back("in" + std::to_string(k) + "[offset" + std::to_string(k) + "]");
    flat_elements.push_back("a" + std::to_string(k) + ".v[e]");
    strided_middle.push_back("EMBER_DIMS_PARAM strides" + std::to_string(k));
  }

  std::string source = "// the fused program " + program.describe() +
                       ", written by ember's CUDA C emitter (src/codegen) from ir/formulas.h\n";
  source += helpers;
  source += kCudaDimsDefinition;
  source += kVectorDefinition;
  source += signature(std::string(kernel_name), strided_middle);
  source += strided_loop(program, program_body(CudaC(compute, "    "), program, strided_elements));
  source += "}\n";
  source +=
      signature(std::string(kernel_name) + "_flat", {"long long n", "unsigned int broadcast"});
  source += flat_loop(program, program_body(CudaC(compute, "      "), program, flat_elements),
                      input_types, output_types);
  source += "}\n";
  return source;
}

}  // namespace ember::codegen
