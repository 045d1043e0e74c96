// What every kernel written over a shading language's spelling declares alike, written once for
// GLSL and WGSL: a constant, a variable, a one-line if, the invocation's index. The program
// loops' ShaderLoopSyntax (shader_loops.h) and the index-copy kernels' IndexCopySyntax
// (backends/shader/index_copy_text.h) build on ShaderSyntax; each language's implementation of
// them on GlslSyntax or WgslSyntax.
#pragma once

#include <string>
#include <string_view>

namespace ember::codegen {

/// How a shading language spells the statements every kernel's syntax writes. Declarations come
/// without indent, ";" or newline.
class ShaderSyntax {
 public:
  virtual ~ShaderSyntax() = default;

  /// A constant of type: "const uint i = value" (GLSL), "let i = value" (WGSL infers the type).
  virtual std::string constant(std::string_view type, const std::string& name,
                               const std::string& value) const = 0;
  /// A variable of type assigned again later: "uint i = value", "var i = value".
  virtual std::string variable(std::string_view type, const std::string& name,
                               const std::string& value) const = 0;
  /// statement (whole, with its ";") run where condition holds: GLSL takes it alone, WGSL only
  /// in braces.
  virtual std::string if_then(const std::string& condition, const std::string& statement) const = 0;
  /// The dispatch's count of invocations, and this invocation's index among them.
  virtual std::string invocations() const = 0;
  virtual std::string invocation() const = 0;
};

/// GLSL's spelling of ShaderSyntax's statements, for a syntax Base derived from it (all but
/// invocations: the workgroup's size is the kernel's).
template <typename Base>
class GlslSyntax : public Base {
 public:
  std::string constant(std::string_view type, const std::string& name,
                       const std::string& value) const override {
    return "const " + variable(type, name, value);
  }
  std::string variable(std::string_view type, const std::string& name,
                       const std::string& value) const override {
    return std::string(type) + " " + name + " = " + value;
  }
  std::string if_then(const std::string& condition, const std::string& statement) const override {
    return "if (" + condition + ") " + statement;
  }
  std::string invocation() const override { return "gl_GlobalInvocationID.x"; }
};

/// WGSL's spelling of ShaderSyntax's statements, as GlslSyntax (the builtins gid and groups are
/// the entry point's parameters).
template <typename Base>
class WgslSyntax : public Base {
 public:
  std::string constant(std::string_view /*type*/, const std::string& name,
                       const std::string& value) const override {
    return "let " + name + " = " + value;
  }
  std::string variable(std::string_view /*type*/, const std::string& name,
                       const std::string& value) const override {
    return "var " + name + " = " + value;
  }
  std::string if_then(const std::string& condition, const std::string& statement) const override {
    return "if (" + condition + ") { " + statement + " }";
  }
  std::string invocation() const override { return "gid.x"; }
};

}  // namespace ember::codegen
