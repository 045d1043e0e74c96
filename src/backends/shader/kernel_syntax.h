// What the shader backends' kernels written once (index_copy_text.h, sort_text.h) spell alike
// beyond codegen's ShaderSyntax: the 32-bit word's type, a helper function's head, a word's bits
// as an f32, a loop's head. KernelSyntax declares them for each family's syntax to build on;
// GlslKernelSyntax and WgslKernelSyntax spell them once for every family, over codegen's
// GlslSyntax and WgslSyntax.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

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
};

}  // namespace ember::shader
