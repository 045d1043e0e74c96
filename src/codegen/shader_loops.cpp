// The program kernels' loops (shader_loops.h), in the spelling of a ShaderLoopSyntax.
#include "codegen/shader_loops.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace ember::codegen {
namespace {

/// name_e: the copy of name that element e of a turn has.
std::string indexed(const std::string& name, uint32_t e) {
  return name + "_" + std::to_string(e);
}

/// Each input's offset (offset<k>) of element index (an unsigned variable) from its
/// coordinates: no division at rank 1 (every contiguous program, merged).
std::string offsets_of(std::size_t inputs, const std::string& index, const ShaderLoopSyntax& s) {
  const std::string_view uint = s.held_type(DType::U32);
  const auto stride = [](std::size_t k, const std::string& d) {
    return "p[" + std::to_string(kProgramStridesWord + kProgramMaxRank * k) + "u + " + d + "]";
  };
  // Each input's element [0, ..., 0], then its strides (two's complement in 32 bits: a negative
  // stride wraps to the right element, as the offset it ends at lies in the buffer).
  const std::size_t first_offset = kProgramStridesWord + kProgramMaxRank * inputs;
  std::string text;
  for (std::size_t k = 0; k < inputs; ++k)
    text += "      " +
            s.variable(uint, "offset" + std::to_string(k),
                       "p[" + std::to_string(first_offset + k) + "]") +
            ";\n";
  text += "      if (rank == 1u) {\n";
  for (std::size_t k = 0; k < inputs; ++k)
    text += "        offset" + std::to_string(k) + " += " + index + " * " + stride(k, "0u") + ";\n";
  text += "      } else {\n        " + s.variable(uint, "rest", index) + ";\n";
  text += "        " + s.count_down("d", "rank") + " {\n";
  const std::string d = std::string(uint) + "(d)";
  text += "          " +
          s.constant(uint, "size", "p[" + std::to_string(kProgramSizesWord) + "u + " + d + "]") +
          ";\n";
  text +=
      "          " + s.constant(uint, "coordinate", "rest % size") + ";\n          rest /= size;\n";
  for (std::size_t k = 0; k < inputs; ++k)
    text += "          offset" + std::to_string(k) + " += coordinate * " + stride(k, d) + ";\n";
  text += "        }\n      }\n";
  return text;
}

/// Element e of the turn's input elements (x<k>_e, held_type): zero past n, else loaded from its
/// offsets.
std::string element_loads(const ir::Program& program, uint32_t e, const ShaderLoopSyntax& s) {
  const std::size_t inputs = program.inputs.size();
  std::string text;
  for (std::size_t k = 0; k < inputs; ++k) {
    const std::string type(s.held_type(program.inputs[k].dtype));
    text += "    " + s.variable(type, indexed("x" + std::to_string(k), e), type + "(0)") + ";\n";
  }
  if (inputs == 0) return text;
  text += "    if (" + indexed("i", e) + " < n) {\n" + offsets_of(inputs, indexed("i", e), s);
  for (std::size_t k = 0; k < inputs; ++k)
    text += "      " + indexed("x" + std::to_string(k), e) + " = " +
            s.load(program.inputs[k].dtype, k) + ";\n";
  return text + "    }\n";
}

/// The statements computing one element: each input's element x<k> (held_type) the expression
/// input(k), the body, then for each output k the statement output(k, its dtype, its value as
/// the dtype stores it).
template <typename Input, typename Output>
std::string one_element(const ir::Program& program, const ProgramBody& body,
                        const ShaderLoopSyntax& s, const Input& input, const Output& output) {
  std::string text;
  for (std::size_t k = 0; k < program.inputs.size(); ++k)
    text += "      " +
            s.constant(s.held_type(program.inputs[k].dtype), "x" + std::to_string(k), input(k)) +
            ";\n";
  text += body.statements;
  for (std::size_t k = 0; k < program.outputs.size(); ++k) {
    const uint32_t result = program.outputs[k];
    const DType dtype = program.instructions[result].dtype;
    text += "      " + output(k, dtype, s.stored(dtype, body.results[result])) + ";\n";
  }
  return text;
}

/// Element e of the turn, below n: computed from its loaded elements, its outputs stored.
std::string element_body(const ir::Program& program, const ProgramBody& body, uint32_t e,
                         const ShaderLoopSyntax& s) {
  const auto input = [&](std::size_t k) { return indexed("x" + std::to_string(k), e); };
  const auto output = [&](std::size_t k, DType dtype, const std::string& value) {
    return s.store(dtype, k, value);
  };
  return "    if (" + indexed("i", e) + " < n) {\n      " +
         s.constant(s.held_type(DType::U32), "i", indexed("i", e)) + ";\n" +
         one_element(program, body, s, input, output) + "    }\n";
}

/// The vectors' lane e.
std::string lane(const std::string& vector, std::size_t e) {
  return vector + "." + "xyzw"[e];
}

/// The lanes of vector source that exist (4j + e < n; lane 0 always does) assigned to those of
/// destination, for the last, partial vector.
std::string lane_by_lane(const std::string& indent, const std::string& destination,
                         const std::string& source, const ShaderLoopSyntax& s) {
  std::string text = indent + lane(destination, 0) + " = " + lane(source, 0) + ";\n";
  for (std::size_t e = 1; e + 1 < 4; ++e)
    text += indent +
            s.if_then("4u * j + " + std::to_string(e) + "u < n",
                      lane(destination, e) + " = " + lane(source, e) + ";") +
            "\n";
  return text;
}

/// Per input, from the parameter block: whether it is contiguous (stride 1, else 0: broadcast),
/// its first vector, and its element at its offset (the broadcast value; the kernel runs with
/// n >= 1, so the element exists either way).
std::string flat_inputs(const ir::Program& program, const ShaderLoopSyntax& s) {
  const std::size_t inputs = program.inputs.size();
  const std::size_t first_offset = kProgramStridesWord + kProgramMaxRank * inputs;
  std::string text;
  for (std::size_t k = 0; k < inputs; ++k) {
    const std::string index = std::to_string(k);
    const std::string offset = "p[" + std::to_string(first_offset + k) + "]";
    text +=
        "  " +
        s.constant("bool", "contiguous" + index,
                   "p[" + std::to_string(kProgramStridesWord + kProgramMaxRank * k) + "] != 0u") +
        ";\n";
    text += "  " + s.constant(s.held_type(DType::U32), "base" + index, offset + " / 4u") + ";\n";
    text += "  " +
            s.constant(s.held_type(program.inputs[k].dtype), "one" + index,
                       "in" + index + "[" + offset + " / 4u][" + offset + " % 4u]") +
            ";\n";
  }
  return text;
}

/// Vector j of each input (a<k>): a contiguous input's whole vector, or lane by lane for the
/// last, partial one; a broadcast input's element in every lane.
std::string vector_loads(const ir::Program& program, const ShaderLoopSyntax& s) {
  std::string text;
  for (std::size_t k = 0; k < program.inputs.size(); ++k) {
    const std::string a = "a" + std::to_string(k);
    const std::string at = "in" + std::to_string(k) + "[base" + std::to_string(k) + " + j]";
    const std::string type = s.vector_type(program.inputs[k].dtype);
    text += "    " + s.variable(type, a, type + "(one" + std::to_string(k) + ")") + ";\n";
    text += "    if (contiguous" + std::to_string(k) + ") {\n";
    text += "      if (whole) {\n        " + a + " = " + at + ";\n      } else {\n";
    text += lane_by_lane("        ", a, at, s) + "      }\n    }\n";
  }
  return text;
}

/// The four lanes computed one after another, each in a block of its own, by the scalar body:
/// each output's lanes in its vector r<k>.
std::string lane_bodies(const ir::Program& program, const ProgramBody& body,
                        const ShaderLoopSyntax& s) {
  std::string text;
  for (std::size_t k = 0; k < program.outputs.size(); ++k)
    text += "    " +
            s.declaration(s.vector_type(program.instructions[program.outputs[k]].dtype),
                          "r" + std::to_string(k)) +
            ";\n";
  for (std::size_t e = 0; e < 4; ++e) {
    const auto input = [&](std::size_t k) { return lane("a" + std::to_string(k), e); };
    const auto output = [&](std::size_t k, DType /*dtype*/, const std::string& value) {
      return lane("r" + std::to_string(k), e) + " = " + value;
    };
    text += "    {\n" + one_element(program, body, s, input, output) + "    }\n";
  }
  return text;
}

/// Vector j of each output: whole, or lane by lane for the last, partial one.
std::string vector_stores(const ir::Program& program, const ShaderLoopSyntax& s) {
  std::string text;
  for (std::size_t k = 0; k < program.outputs.size(); ++k) {
    const std::string r = "r" + std::to_string(k), at = "out" + std::to_string(k) + "[j]";
    text += "    if (whole) {\n      " + at + " = " + r + ";\n    } else {\n";
    text += lane_by_lane("      ", at, r, s) + "    }\n";
  }
  return text;
}

}  // namespace

// The loop over the elements, elements_per_invocation of them a turn, the invocations' count
// apart: first every input element of the turn is loaded (x<k>_<e>), then each element's body
// computes and stores its outputs. An invocation's loads are so in flight together, as a
// memory-bound kernel needs on a GPU (one at a time, an H100 read 60% of its copy rate); a
// compiler does not move a load above the stores before it by itself.
std::string shader_element_loop(const ir::Program& program, const ProgramBody& body,
                                const ShaderLoopSyntax& syntax) {
  const std::string_view uint = syntax.held_type(DType::U32);
  const uint32_t elements = syntax.elements_per_invocation();
  std::string text = "  " + syntax.constant(uint, "threads", syntax.invocations()) + ";\n";
  text += "  for (" + syntax.variable(uint, "first", syntax.invocation()) +
          "; first < n; first += " + std::to_string(elements) + "u * threads) {\n";
  for (uint32_t e = 0; e < elements; ++e) {
    text += "    " +
            syntax.constant(uint, indexed("i", e), "first + " + std::to_string(e) + "u * threads") +
            ";\n";
    text += element_loads(program, e, syntax);
  }
  for (uint32_t e = 0; e < elements; ++e)
    text += element_body(program, body, e, syntax);
  return text + "  }\n";
}

// Invocation j's turn takes elements 4j to 4j + 3 as one vector of every tensor (in<k>[j] from a
// contiguous input's first vector, its offset a multiple of 4; a broadcast input's one element in
// every lane), so that each load and store moves 16 bytes, and computes the lanes one after
// another with the scalar body. The last, partial vector is loaded and stored lane by lane, so
// that no element past n is read or written (what its binding must cover is each language's:
// GlslLoops in glsl_program.cpp, WgslLoops in wgsl_program.cpp). The same dispatch covers n as
// the general kernel's: one vector an invocation a turn, the invocations' count apart.
std::string shader_flat_loop(const ir::Program& program, const ProgramBody& body,
                             const ShaderLoopSyntax& syntax) {
  const std::string_view uint = syntax.held_type(DType::U32);
  std::string text = "  " + syntax.constant(uint, "threads", syntax.invocations()) + ";\n";
  text += "  " + syntax.constant(uint, "vectors", "(n + 3u) / 4u") + ";\n";
  text += flat_inputs(program, syntax);
  text += "  for (" + syntax.variable(uint, "j", syntax.invocation()) +
          "; j < vectors; j += threads) {\n";
  text += "    " + syntax.constant("bool", "whole", "4u * j + 4u <= n") + ";\n";
  text += vector_loads(program, syntax) + lane_bodies(program, body, syntax);
  text += vector_stores(program, syntax);
  return text + "  }\n";
}

}  // namespace ember::codegen
