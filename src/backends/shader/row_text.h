// The text of the fused row kernels (row_passes.h: layer_norm and its gradients, cross_entropy and
// its gradient, softmax's backward), written once for both shader backends: the workgroup's trees
// (a sum of vec4s, a maximum where a NaN wins), the parameter words each reads by name, a row's
// target, and each kernel's loops over its rows. What GLSL and WGSL spell differently comes from a
// RowSyntax, which each backend supplies (vulkan's and wgpu's row_sources.cpp) over
// kernel_syntax.h's GlslKernelSyntax and WgslKernelSyntax, as the sort kernels' SortSyntax does.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "backends/shader/kernel_syntax.h"
#include "backends/shader/row_passes.h"

namespace ember::shader {

/// How a shading language spells what the row kernels write, beyond KernelSyntax's statements,
/// words, helpers and casts. Expressions and statements come without indent or newline,
/// statements without their ";" unless said; whole lines (the header, the declarations of shared
/// arrays and helpers, the entry point, the statements given an indent) end in their newline.
class RowSyntax : public KernelSyntax {
 public:
  /// A term of a larger expression, and the lines (if any) that name it first.
  struct Term {
    std::string lines;
    std::string expression;
  };

  /// The source's first lines: what the language declares before the tensors (GLSL's version and
  /// workgroup size, kRowWorkgroup), then the parameter words p, read only, at binding 0.
  virtual std::string header() const = 0;
  /// An array of count elements of type named name, shared by a workgroup's invocations.
  virtual std::string shared_array(std::string_view type, const std::string& name,
                                   uint64_t count) const = 0;
  /// The start of every kernel's main: the head of its entry point through its "{" (where WGSL
  /// names its workgroup size and the builtins the kernels read), then the line of id (the
  /// invocation's index in its workgroup) and the lines of the parameter words: GLSL's id last,
  /// WGSL's first.
  virtual std::string main_start(const std::string& id_line,
                                 const std::string& parameters) const = 0;

  /// The head of a tree's function name over the workgroup, through its "{" and the line naming
  /// id, taking v of type and returning its type: GLSL's id a constant of the builtin, WGSL's a
  /// parameter (its builtins are the entry point's).
  virtual std::string tree_function(std::string_view type, const std::string& name) const = 0;
  /// The call of the tree's function name on value, from main (WGSL's passes id).
  virtual std::string tree_call(const std::string& name, const std::string& value) const = 0;

  /// The type of the trees' vector of four f32.
  virtual std::string_view vector_type() const = 0;
  /// The statement adding parts (two or three f32) to the leading components of the vector name.
  virtual std::string add_to_vector(const std::string& name,
                                    std::initializer_list<std::string> parts) const = 0;

  /// Whether the f32 value is an infinity, -infinity.
  virtual std::string is_inf(const std::string& value) const = 0;
  virtual std::string is_negative_infinity(const std::string& value) const = 0;

  /// value as a term of a larger expression at indent: GLSL's in place, WGSL's named name, of
  /// type, on a line of its own first (its selects and bit tests would make the line too long).
  virtual Term term(const std::string& indent, std::string_view type, const std::string& name,
                    const std::string& value) const = 0;
  /// The lines (at indent) of a loop (its head) over lines that end in one statement: GLSL's
  /// statement alone on the next line (its terms in place), WGSL's braced.
  virtual std::string loop_over(const std::string& indent, const std::string& head,
                                const std::string& lines) const = 0;

  /// The int class as an index: GLSL's indexes with it, WGSL converts it to a word. eager_index
  /// the same where a select reads the index whatever the class (WGSL's select evaluates both: a
  /// negative class is read as 0).
  virtual std::string class_index(const std::string& name) const = 0;
  virtual std::string eager_index(const std::string& name) const = 0;
  /// The columns' kernel's test of flag name, whose test of the parameter word is test: GLSL's
  /// tests the word again, WGSL's reads name.
  virtual std::string column_flag(const std::string& name, const std::string& test) const = 0;

  /// Each column's invocation steps by the dispatch's count of invocations.
  std::string invocations() const final {
    return workgroups() + " * " + std::to_string(kRowWorkgroup) + "u";
  }

 protected:
  /// parts, separated by commas: a vector's components.
  static std::string components(std::initializer_list<std::string> parts) {
    std::string text;
    for (const std::string& part : parts)
      text += (text.empty() ? "" : ", ") + part;
    return text;
  }
};

/// The row kernels in syntax's spelling: what a backend's row_sources returns.
RowSources row_sources_of(const RowSyntax& syntax);

}  // namespace ember::shader
