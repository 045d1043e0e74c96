// The text of the sort kernels (sort_passes.h: whole, blocks, merge, gather), written once for
// both shader backends: which buffers each binds, the key's comparison (NaN tested on the word
// itself, padding last, ties by position), the bitonic network in shared memory, the merge's
// binary search and the gather. What GLSL and WGSL spell differently comes from a SortSyntax,
// which each backend supplies (vulkan's and wgpu's sort_sources.cpp) over GlslKernelSyntax and
// WgslKernelSyntax (kernel_syntax.h), as the index-copy kernels' IndexCopySyntax does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "backends/shader/kernel_syntax.h"
#include "backends/shader/sort_passes.h"
#include "ember/dtype.h"

namespace ember::shader {

/// How a shading language spells what the sort kernels write, beyond KernelSyntax's statements,
/// words, helpers, casts, buffers and workgroups. Expressions and statements come without indent or
/// newline, statements without their ";" unless said; whole lines (the header, the declarations of
/// buffers and shared arrays, the entry points, the statements given an indent) end in their
/// newline.
class SortSyntax : public KernelSyntax {
 public:
  /// The source's first lines: what the language declares before the buffers (GLSL's version and
  /// workgroup size, kSortWorkgroup), then the parameter words p, read only, at binding 0.
  virtual std::string header() const = 0;
  /// An array of kMaxSortLane words named name, shared by a workgroup's invocations.
  virtual std::string shared_words(const std::string& name) const = 0;

  /// The head of the network's entry point, through its "{": where WGSL names its workgroup size
  /// and the builtins workgroup, workgroups and local read.
  virtual std::string network_entry() const = 0;
  /// The head of the merge's and the gather's entry point, where WGSL names the builtins
  /// invocation and invocations read.
  virtual std::string entry() const = 0;
  /// The network's line naming local, its invocation's index in the workgroup, where the entry
  /// point does not (GLSL's builtin); empty where it does (WGSL's parameter).
  virtual std::string local_line() const = 0;
  /// The network's invocation's index in its workgroup.
  virtual std::string local() const = 0;

  /// The i32 whose bits are the word bits.
  virtual std::string int_of_bits(const std::string& bits) const = 0;

  /// The lines (at indent) running statement where condition holds, else otherwise (both whole,
  /// with their ";"): GLSL's on the if's and the else's lines, WGSL's braced.
  virtual std::string if_else(const std::string& indent, const std::string& condition,
                              const std::string& statement, const std::string& otherwise) const = 0;
  /// The lines (at indent) declaring name, of type, as if_true where condition holds, else
  /// if_false, only one of them evaluated: GLSL's conditional, WGSL's variable set in an if_else.
  virtual std::string chosen(const std::string& indent, std::string_view type,
                             const std::string& name, const std::string& condition,
                             const std::string& if_true, const std::string& if_false) const = 0;
  /// The lines (at indent) setting target to value where condition holds, else to 0u, value read
  /// only where condition holds (GLSL's conditional; WGSL's select would read it regardless).
  virtual std::string read_or_zero(const std::string& indent, const std::string& target,
                                   const std::string& condition,
                                   const std::string& value) const = 0;

  /// Each invocation steps by the dispatch's count of invocations (the merge's and gather's).
  std::string invocations() const final {
    return workgroups() + " * " + std::to_string(kSortWorkgroup) + "u";
  }
};

/// The sort kernels for keys of dtype in syntax's spelling: what a backend's sort_sources
/// returns.
SortSources sort_sources_of(DType dtype, const SortSyntax& syntax);

}  // namespace ember::shader
