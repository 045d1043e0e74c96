// The text of the random tensors' kernel (random_passes.h: ir/philox.h's Philox4x32-10 of each
// element's counter, then its default f32 draw or Bernoulli's 1 or 0), written once for both
// shader backends: the output's binding, Philox's rounds (its constants ir/philox.h's) and the
// entry point's loop over the elements. What GLSL and WGSL spell differently comes from a
// RandomSyntax, which each backend supplies (vulkan's and wgpu's random_source.cpp) over
// GlslKernelSyntax and WgslKernelSyntax (kernel_syntax.h), as the softmax kernels' SoftmaxSyntax
// does.
#pragma once

#include <string>
#include <string_view>

#include "backends/shader/kernel_syntax.h"
#include "backends/shader/random_passes.h"

namespace ember::shader {

/// How a shading language spells what the random kernel writes, beyond KernelSyntax's
/// statements, words, casts, buffers and workgroups. Expressions and statements come without
/// indent, ";" or newline; whole lines (the header, the functions, the entry point) end in their
/// newline.
class RandomSyntax : public KernelSyntax {
 public:
  /// The source's first lines: what the language declares before the buffers (GLSL's version and
  /// workgroup size, kRandomWorkgroup), then the parameter words p, read only, at binding 0.
  virtual std::string header() const = 0;
  /// The type of four words: Philox's counter and its block.
  virtual std::string_view block_type() const = 0;
  /// The lines defining the 32 x 32 -> 64 bit product that product() calls where the language has
  /// none (WGSL's); empty where it has one (GLSL's umulExtended).
  virtual std::string product_function() const = 0;
  /// The head of philox(c, k0, k1), the counter and the key's words, through its "{" and the
  /// lines that make them variables where parameters are constants (WGSL's).
  virtual std::string philox_head() const = 0;
  /// The line (at 4 spaces' indent) declaring what product() writes; empty where it declares its
  /// own (WGSL's).
  virtual std::string product_words() const = 0;
  /// The statement forming product number index of multiplier and word; high and low its words.
  virtual std::string product(int index, const std::string& multiplier,
                              const std::string& word) const = 0;
  virtual std::string high(int index) const = 0;
  virtual std::string low(int index) const = 0;
  /// A shift's count of bits, a literal (WGSL's a u32).
  virtual std::string shift_count(int bits) const = 0;
  /// The head of the entry point, through its "{".
  virtual std::string entry() const = 0;
  /// select(if_false, if_true, condition) broken over two lines, its first starting at column:
  /// GLSL's ":" under its "?", WGSL's condition under its first argument.
  virtual std::string select_over_lines(const std::string& if_false, const std::string& if_true,
                                        const std::string& condition, size_t column) const = 0;

  /// Each invocation steps by the dispatch's count of invocations.
  std::string invocations() const final {
    return workgroups() + " * " + std::to_string(kRandomWorkgroup) + "u";
  }
};

/// The random kernel in syntax's spelling: what a backend's random_source returns.
std::string random_source_of(const RandomSyntax& syntax);

}  // namespace ember::shader
