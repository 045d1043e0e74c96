// The loops of the GLSL and WGSL program kernels (glsl_program.h, wgsl_program.h), written once:
// the general kernel's element loop and the flat kernel's loop of 16-byte vectors. Which elements
// they load, in which order, which bounds they check and what they store is decided here, over
// the few things the two languages spell differently (ShaderLoopSyntax, which each emitter
// supplies); the emitters keep their buffers' declarations, helpers, scalars and entry points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "codegen/kernel_dims.h"
#include "codegen/op_formulas.h"
#include "codegen/shader_syntax.h"
#include "ember/dtype.h"
#include "ir/program.h"

namespace ember::codegen {

/// Where the program kernels' parameter block's parts begin (words): glsl_program_parameters'
/// layout, which the kernels of both languages read.
inline constexpr uint32_t kProgramSizesWord = 2;
inline constexpr uint32_t kProgramStridesWord = kProgramSizesWord + kProgramMaxRank;

/// How a shading language spells what the program loops write, beyond ShaderSyntax's statements.
/// Declarations come without indent, ";" or newline.
class ShaderLoopSyntax : public ShaderSyntax {
 public:
  /// A variable of type whose every part is assigned before it is read: "vec4 r",
  /// "var r: vec4<f32>".
  virtual std::string declaration(std::string_view type, const std::string& name) const = 0;
  /// The head of a loop of a signed integer name from count (unsigned) - 1 down to 0.
  virtual std::string count_down(const std::string& name, const std::string& count) const = 0;
  /// The elements an invocation of the general kernel loads together in a turn of its loop.
  virtual uint32_t elements_per_invocation() const = 0;
  /// The type a kernel holds an element of dtype in once loaded (U32's is the index type).
  virtual std::string_view held_type(DType dtype) const = 0;
  /// The vector of four elements of a 4-byte dtype: the flat kernel's buffers' element.
  virtual std::string vector_type(DType dtype) const = 0;
  /// The expression of input k's element (of dtype) at offset<k>, of held_type.
  virtual std::string load(DType dtype, std::size_t k) const = 0;
  /// The expression of value (the program's) as an element of dtype's storage.
  virtual std::string stored(DType dtype, const std::string& value) const = 0;
  /// The statement writing element (stored's, of dtype) as element i of output k.
  virtual std::string store(DType dtype, std::size_t k, const std::string& element) const = 0;
};

/// The general kernel's loop over elements i in [0, n) of program: syntax.elements_per_invocation
/// elements an invocation a turn, their inputs' elements loaded first (through each input's
/// strides and offset), then body (over the elements x<k>) and the stores of each. It reads the
/// kernel's n, rank, parameter words p (glsl_program_parameters'), and buffers in<k> and out<k>
/// of the dtypes' storage.
std::string shader_element_loop(const ir::Program& program, const ProgramBody& body,
                                const ShaderLoopSyntax& syntax);

/// The flat kernel's loop (has_flat_program_kernel, flat_program_runs): one vector of four
/// elements of each tensor an invocation a turn, body run on each lane. It reads the kernel's n,
/// p, and buffers in<k> and out<k> of syntax.vector_type.
std::string shader_flat_loop(const ir::Program& program, const ProgramBody& body,
                             const ShaderLoopSyntax& syntax);

}  // namespace ember::codegen
