// The text of the index-copy kernels (index_copy.h: Copy, Update, CheckIndices, Arange, Fill),
// written once for both shader backends: which buffers each binds, its helpers (an element's
// load and store as parts of 32-bit words, the index's low word, Update's combination) and its
// loops. What GLSL and WGSL spell differently comes from an IndexCopySyntax, which each backend
// supplies (vulkan's and wgpu's index_copy_sources.cpp) over kernel_syntax.h's GlslKernelSyntax
// and WgslKernelSyntax, as the program loops' ShaderLoopSyntax does for the emitters
// (codegen/shader_loops.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "backends/shader/index_copy.h"
#include "backends/shader/kernel_syntax.h"

namespace ember::shader {

/// How a shading language spells what the index-copy kernels write, beyond KernelSyntax's
/// statements, words, helpers and casts. Expressions and statements come without indent or
/// newline, statements without their ";" unless said; whole lines (the declarations of buffers
/// and aliases, the header, the entry point) end in their newline.
class IndexCopySyntax : public KernelSyntax {
 public:
  /// The source's first lines: what the language declares before the buffers (GLSL's version and
  /// workgroup size), then the parameter words p, read only, at binding 0.
  virtual std::string header() const = 0;
  /// The binding of an array of 32-bit words named name. atomic: some of its words are written in
  /// parts by atomicAnd and atomicOr (WGSL types such an array's words atomic; GLSL's atomics take
  /// any word of a buffer).
  virtual std::string words(int binding, const std::string& name, bool atomic) const = 0;
  /// The head of the kernel's entry point, through its "{": where WGSL names its workgroup size
  /// and the builtins invocation and invocations read.
  virtual std::string entry() const = 0;

  /// The type of a pair of words (an 8-byte element).
  virtual std::string_view pair_type() const = 0;
  /// name as another name of type, for the helpers that follow.
  virtual std::string alias(const std::string& name, std::string_view type) const = 0;

  /// The lines of a loop's or an if's head (at indent) over one statement (whole, with its ";"):
  /// GLSL's on the head's line, WGSL's braced on a line of its own.
  virtual std::string governing(const std::string& indent, const std::string& head,
                                const std::string& statement) const = 0;
  /// The statement by which a kernel reads the variable name that it otherwise leaves unread, as
  /// WGSL wants (its phony assignment); empty where the language wants none (GLSL).
  virtual std::string read_unused(const std::string& name) const = 0;

  /// The bits [offset, offset + bits) of word (a word's expression, offset an unsigned one), as
  /// the low bits of a word.
  virtual std::string extract_bits(const std::string& word, const std::string& offset,
                                   uint32_t bits) const = 0;
  /// What an atomic function takes for word, an element of an array of words: GLSL the word
  /// itself, WGSL its address.
  virtual std::string atomic_word(const std::string& word) const = 0;
  /// The word of word's sign bit repeated (an arithmetic shift right by 31: the high word of the
  /// 64-bit integer whose low word is word).
  virtual std::string sign_word(const std::string& word) const = 0;
};

/// The source of each kind's kernel (key.kind's) in syntax's spelling.
std::string copy_kernel_text(const IndexCopyKey& key, const IndexCopySyntax& syntax);
std::string update_kernel_text(const IndexCopyKey& key, const IndexCopySyntax& syntax);
std::string check_indices_kernel_text(const IndexCopyKey& key, const IndexCopySyntax& syntax);
std::string arange_kernel_text(const IndexCopyKey& key, const IndexCopySyntax& syntax);
std::string fill_kernel_text(const IndexCopyKey& key, const IndexCopySyntax& syntax);

/// The sources of the kernels in the spelling of Syntax (an IndexCopySyntax made by its default
/// constructor each time a source is asked for): what a backend's index_copy_sources returns.
template <typename Syntax>
IndexCopySources index_copy_sources_of() {
  return {[](const IndexCopyKey& key) { return copy_kernel_text(key, Syntax()); },
          [](const IndexCopyKey& key) { return update_kernel_text(key, Syntax()); },
          [](const IndexCopyKey& key) { return check_indices_kernel_text(key, Syntax()); },
          [](const IndexCopyKey& key) { return arange_kernel_text(key, Syntax()); },
          [](const IndexCopyKey& key) { return fill_kernel_text(key, Syntax()); }};
}

}  // namespace ember::shader
