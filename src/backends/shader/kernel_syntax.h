// What the shader backends' kernels written once (index_copy_text.h, sort_text.h, row_text.h,
// reduce_text.h, softmax_text.h, cumulative_text.h, attention_text.h, random_text.h,
// interpolate_text.h, conv_pool_text.h) spell alike beyond codegen's ShaderSyntax: the 32-bit
// word's type, a helper function's head, a word's bits as an f32 and back, a loop's head, a
// buffer's binding, the f32 and i32 types, an f32 literal, a select, a step of a counter up or
// down, the workgroups and their barrier, a NaN test, a one-statement loop or if, the invocation's
// index in its workgroup, a run of constants, a source's first lines (its comment and the
// parameter words), WGSL's entry point of the invocations' builtins and a tree's halving step.
// KernelSyntax declares them for each family's syntax to build on; GlslKernelSyntax and
// WgslKernelSyntax spell them once for every family, over codegen's GlslSyntax and WgslSyntax.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "codegen/shader_syntax.h"

namespace ember::shader {

/// How a shading language spells the words, helpers and bit casts of the shader backends'
/// kernels, beyond ShaderSyntax's statements.
class KernelSyntax : public codegen::ShaderSyntax {
 public:
  /// A parameter of a helper function.
  struct Parameter {
    std::string_view type;
    std::string_view name;
  };

  /// The type of a 32-bit word.
  virtual std::string_view word_type() const = 0;
  /// The head of a function (before its " {") of name, returning result (empty: nothing).
  virtual std::string function(std::string_view result, const std::string& name,
                               std::initializer_list<Parameter> parameters) const = 0;
  /// The f32 whose bits are the word bits.
  virtual std::string float_of_bits(const std::string& bits) const = 0;
  /// The word of the bits of the f32 value.
  virtual std::string bits_of_float(const std::string& value) const = 0;

  /// How a kernel uses a buffer: GLSL declares it; WGSL binds every buffer but the parameters
  /// read_write, whatever the kernel does with it (slices of one page may be bound together).
  enum class Access : uint8_t { Read, Write, ReadWrite };
  /// The binding of an array of type named name, its block (GLSL's) named block; a whole line.
  virtual std::string buffer(int binding, std::string_view block, const std::string& name,
                             std::string_view type, Access access) const = 0;
  /// The types of an f32 and of an i32.
  virtual std::string_view float_type() const = 0;
  virtual std::string_view int_type() const = 0;
  /// if_true where condition holds, else if_false (both evaluated: WGSL's select), as an
  /// expression of its own (a constant's value, an if's condition, a function's result);
  /// select_term the same as a term of a larger expression (GLSL's conditional in parentheses).
  virtual std::string select(const std::string& if_false, const std::string& if_true,
                             const std::string& condition) const = 0;
  virtual std::string select_term(const std::string& if_false, const std::string& if_true,
                                  const std::string& condition) const = 0;
  /// The statement adding 1 to, or taking 1 from, the variable name.
  virtual std::string increment(const std::string& name) const = 0;
  virtual std::string decrement(const std::string& name) const = 0;
  /// The workgroup's index in the dispatch and the dispatch's count of workgroups (WGSL's: the
  /// entry points' parameters group, groups).
  virtual std::string workgroup() const = 0;
  virtual std::string workgroups() const = 0;
  /// A workgroup's barrier on its shared memory (a statement).
  virtual std::string barrier() const = 0;
  /// literal (digits with a point) as an f32 whose type is inferred.
  virtual std::string float_literal(const std::string& literal) const = 0;
  /// The lines defining the function name(v), whether the f32 v is a NaN by its bits, where the
  /// language has no test a compiler must keep (WGSL's may assume no NaN); empty where it has one.
  virtual std::string nan_function(const std::string& name) const = 0;
  /// Whether the f32 value is a NaN: GLSL's isnan, WGSL's the function nan_function named name.
  virtual std::string is_nan(const std::string& name, const std::string& value) const = 0;
  /// A loop's or an if's head over one statement (whole, with its ";") on the head's line: GLSL's
  /// bare, WGSL's braced.
  virtual std::string headed(const std::string& head, const std::string& statement) const = 0;
  /// This invocation's index in its workgroup (WGSL's: the entry point's parameter local).
  virtual std::string local_invocation() const = 0;
  /// The statement halving the variable name (the loop step of a tree over shared memory).
  virtual std::string halve(const std::string& name) const = 0;
};

/// A loop's head: init, condition and step of its variable (GLSL and WGSL spell it alike).
inline std::string for_loop(const std::string& init, const std::string& condition,
                            const std::string& step) {
  return "for (" + init + "; " + condition + "; " + step + ")";
}

/// GLSL's spelling of KernelSyntax's words, helpers and casts, for a kernel family's syntax Base
/// derived from it.
template <typename Base>
class GlslKernelSyntax : public codegen::GlslSyntax<Base> {
 public:
  using Parameter = KernelSyntax::Parameter;

  std::string_view word_type() const override { return "uint"; }
  std::string function(std::string_view result, const std::string& name,
                       std::initializer_list<Parameter> parameters) const override {
    std::string text = std::string(result.empty() ? "void" : result) + " " + name + "(";
    for (const Parameter& parameter : parameters) {
      if (&parameter != parameters.begin()) text += ", ";
      text += std::string(parameter.type) + " " + std::string(parameter.name);
    }
    return text + ")";
  }
  std::string float_of_bits(const std::string& bits) const override {
    return "uintBitsToFloat(" + bits + ")";
  }
  std::string bits_of_float(const std::string& value) const override {
    return "floatBitsToUint(" + value + ")";
  }

  using Access = KernelSyntax::Access;

  std::string buffer(int binding, std::string_view block, const std::string& name,
                     std::string_view type, Access access) const override {
    const std::string_view qualifier = access == Access::Read    ? "readonly "
                                       : access == Access::Write ? "writeonly "
                                                                 : "";
    return "layout(std430, set = 0, binding = " + std::to_string(binding) + ") " +
           std::string(qualifier) + "buffer " + std::string(block) + " { " + std::string(type) +
           " " + name + "[]; };\n";
  }
  std::string_view float_type() const override { return "float"; }
  std::string_view int_type() const override { return "int"; }
  std::string select(const std::string& if_false, const std::string& if_true,
                     const std::string& condition) const override {
    return condition + " ? " + if_true + " : " + if_false;
  }
  std::string select_term(const std::string& if_false, const std::string& if_true,
                          const std::string& condition) const override {
    return "(" + select(if_false, if_true, condition) + ")";
  }
  std::string increment(const std::string& name) const override { return "++" + name; }
  std::string decrement(const std::string& name) const override { return "--" + name; }
  std::string workgroup() const override { return "gl_WorkGroupID.x"; }
  std::string workgroups() const override { return "gl_NumWorkGroups.x"; }
  std::string barrier() const override { return "barrier()"; }
  std::string float_literal(const std::string& literal) const override { return literal; }
  std::string nan_function(const std::string& /*name*/) const override { return {}; }
  std::string is_nan(const std::string& /*name*/, const std::string& value) const override {
    return "isnan(" + value + ")";
  }
  std::string headed(const std::string& head, const std::string& statement) const override {
    return head + " " + statement;
  }
  std::string local_invocation() const override { return "gl_LocalInvocationID.x"; }
  std::string halve(const std::string& name) const override { return name + " >>= 1u"; }

 protected:
  /// A source's first lines: its version, comment (a line of its own), the workgroup's size, then
  /// the parameter words p, read only, at binding 0.
  static std::string parameters_header(const std::string& comment, uint64_t workgroup_size) {
    return "#version 450\n// " + comment +
           "\nlayout(local_size_x = " + std::to_string(workgroup_size) +
           ") in;\n"
           "layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };\n";
  }
};

/// WGSL's spelling of KernelSyntax's words, helpers and casts, as GlslKernelSyntax.
template <typename Base>
class WgslKernelSyntax : public codegen::WgslSyntax<Base> {
 public:
  using Parameter = KernelSyntax::Parameter;

  std::string_view word_type() const override { return "u32"; }
  std::string function(std::string_view result, const std::string& name,
                       std::initializer_list<Parameter> parameters) const override {
    std::string text = "fn " + name + "(";
    for (const Parameter& parameter : parameters) {
      if (&parameter != parameters.begin()) text += ", ";
      text += std::string(parameter.name) + ": " + std::string(parameter.type);
    }
    return text + ")" + (result.empty() ? "" : " -> " + std::string(result));
  }
  std::string float_of_bits(const std::string& bits) const override {
    return "bitcast<f32>(" + bits + ")";
  }
  std::string bits_of_float(const std::string& value) const override {
    return "bitcast<u32>(" + value + ")";
  }

  using Access = KernelSyntax::Access;

  std::string buffer(int binding, std::string_view /*block*/, const std::string& name,
                     std::string_view type, Access /*access*/) const override {
    return "@group(0) @binding(" + std::to_string(binding) + ") var<storage, read_write> " + name +
           ": array<" + std::string(type) + ">;\n";
  }
  std::string_view float_type() const override { return "f32"; }
  std::string_view int_type() const override { return "i32"; }
  std::string select(const std::string& if_false, const std::string& if_true,
                     const std::string& condition) const override {
    return "select(" + if_false + ", " + if_true + ", " + condition + ")";
  }
  std::string select_term(const std::string& if_false, const std::string& if_true,
                          const std::string& condition) const override {
    return select(if_false, if_true, condition);
  }
  std::string increment(const std::string& name) const override { return name + "++"; }
  std::string decrement(const std::string& name) const override { return name + "--"; }
  std::string workgroup() const override { return "group.x"; }
  std::string workgroups() const override { return "groups.x"; }
  std::string barrier() const override { return "workgroupBarrier()"; }
  std::string float_literal(const std::string& literal) const override { return literal + "f"; }
  std::string nan_function(const std::string& name) const override {
    return this->function("bool", name, {{"f32", "v"}}) + " { return (" + bits_of_float("v") +
           " & 0x7fffffffu) > 0x7f800000u; }\n";
  }
  std::string is_nan(const std::string& name, const std::string& value) const override {
    return name + "(" + value + ")";
  }
  std::string headed(const std::string& head, const std::string& statement) const override {
    return head + " { " + statement + " }";
  }
  std::string local_invocation() const override { return "local.x"; }
  std::string halve(const std::string& name) const override {
    return name + " = " + name + " >> 1u";
  }

 protected:
  /// A source's first lines, as GlslKernelSyntax's (the workgroup's size is the entry point's).
  static std::string parameters_header(const std::string& comment) {
    return "// " + comment + "\n@group(0) @binding(0) var<storage, read> p: array<u32>;\n";
  }
  /// The head of an entry point of workgroup_size invocations a workgroup, through its "{",
  /// naming the builtins invocation and invocations read (gid, groups).
  static std::string invocations_entry(uint64_t workgroup_size) {
    return "@compute @workgroup_size(" + std::to_string(workgroup_size) +
           ")\n"
           "fn main(@builtin(global_invocation_id) gid: vec3<u32>, "
           "@builtin(num_workgroups) groups: vec3<u32>) {\n";
  }
};

/// The lines (at indent) of constants of type, each a name and its value.
inline std::string constants(const KernelSyntax& s, const std::string& indent,
                             std::string_view type,
                             const std::vector<std::pair<std::string, std::string>>& named) {
  std::string text;
  for (const auto& [name, value] : named)
    text += indent + s.constant(type, name, value) + ";\n";
  return text;
}

}  // namespace ember::shader
