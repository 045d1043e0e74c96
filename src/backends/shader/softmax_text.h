// The text of the softmax kernels (softmax_kernels.h: short lanes, one invocation a lane; one
// workgroup a lane), written once for both shader backends: the bindings, a lane's share of its
// maximum (a NaN wins), of its sum of exp(x - max) and of its writes, the workgroup's trees over
// shared memory and the entry points' loops over the lanes. What GLSL and WGSL spell differently
// comes from a SoftmaxSyntax, which each backend supplies (vulkan's and wgpu's
// softmax_sources.cpp) over GlslKernelSyntax and WgslKernelSyntax (kernel_syntax.h), as the sort
// kernels' SortSyntax does.
#pragma once

#include <string>

#include "backends/shader/kernel_syntax.h"
#include "backends/shader/softmax_kernels.h"
#include "backends/shader/softmax_passes.h"

namespace ember::shader {

/// How a shading language spells what the softmax kernels write, beyond KernelSyntax's
/// statements, words, helpers, casts, buffers and workgroups. Expressions come without indent or
/// newline; whole lines (the header, the shared array, the entry points, the function heads and
/// the tree's step) end in their newline.
class SoftmaxSyntax : public KernelSyntax {
 public:
  /// The source's first lines: what the language declares before the buffers (GLSL's version and
  /// workgroup size, kSoftmaxWorkgroup), then the parameter words p, read only, at binding 0.
  virtual std::string header() const = 0;
  /// An array of kSoftmaxWorkgroup f32 named name, shared by a workgroup's invocations, and how a
  /// comment names it (GLSL's with its brackets).
  virtual std::string shared_floats(const std::string& name) const = 0;
  virtual std::string named_array(const std::string& name) const = 0;

  /// The head of the short lanes' entry point, through its "{": where WGSL names its workgroup
  /// size and the builtins invocation and workgroups read.
  virtual std::string short_entry() const = 0;
  /// The head of the workgroup kernel's entry point, where WGSL names the builtins local,
  /// workgroup and workgroups read.
  virtual std::string workgroup_entry() const = 0;

  /// The head of tree(max_op), through the line naming id, the invocation's index in its
  /// workgroup: GLSL's from the builtin, WGSL's a parameter (its builtins are the entry point's).
  virtual std::string tree_function() const = 0;
  /// The call of tree, max_op "true" or "false", from the entry point (whose id WGSL passes).
  virtual std::string tree_call(const std::string& max_op) const = 0;
  /// The tree's step (at 4 spaces' indent): where id < half_size, part[id] combined with
  /// part[id + half_size] by larger or addition, as max_op says.
  virtual std::string tree_step() const = 0;

  /// Each invocation of the short lanes' kernel steps by the dispatch's count of invocations.
  std::string invocations() const final {
    return workgroups() + " * " + std::to_string(kSoftmaxWorkgroup) + "u";
  }
};

/// The softmax kernels in syntax's spelling: what a backend's softmax_sources returns.
SoftmaxSources softmax_sources_of(const SoftmaxSyntax& syntax);

}  // namespace ember::shader
