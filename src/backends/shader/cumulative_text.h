// The text of the cumulative kernels (cumulative_scan.h's passes: a whole lane, a long lane's
// block totals, its carries, its blocks from their carries), written once for both shader
// backends: which buffers each pass binds, the loops over a block's elements and over a lane's
// carries, the running sum or product and the running maximum or minimum (a NaN kept once seen).
// What GLSL and WGSL spell differently comes from a CumulativeSyntax, which each backend supplies
// (vulkan's and wgpu's cumulative_sources.cpp) over GlslKernelSyntax and WgslKernelSyntax
// (kernel_syntax.h), as the sort kernels' SortSyntax does.
#pragma once

#include <string>

#include "backends/shader/cumulative_scan.h"
#include "backends/shader/index_copy.h"
#include "backends/shader/kernel_syntax.h"
#include "ember/dtype.h"
#include "ir/ops.h"

namespace ember::shader {

/// How a shading language spells what the cumulative kernels write, beyond KernelSyntax's
/// statements, words, helpers, casts, buffers and workgroups. Declarations come without indent,
/// ";" or newline; whole lines (the header, the entry point) end in their newline.
class CumulativeSyntax : public KernelSyntax {
 public:
  /// The source's first lines: what the language declares before the buffers (GLSL's version and
  /// workgroup size), then the parameter words p, read only, at binding 0.
  virtual std::string header() const = 0;
  /// The head of the kernel's entry point, through its "{": where WGSL names its workgroup size
  /// and the builtins invocation and workgroups read.
  virtual std::string entry() const = 0;

  /// The type of dtype's elements, and of op's accumulator (the carries' type) on them: GLSL's
  /// double for float sums and products (ndarray's), WGSL's the element's (it has no double: its
  /// kernels take no float sums or products).
  virtual std::string element_type(DType dtype) const = 0;
  virtual std::string accumulator_type(ir::CumulativeOp op, DType dtype) const = 0;
  /// value converted to type, between an element and the accumulator: GLSL's conversion, WGSL's
  /// value itself (its accumulator is the element's type).
  virtual std::string converted(const std::string& type, const std::string& value) const = 0;
  /// A variable of type whose arithmetic the compiler must keep as written (GLSL's precise: no
  /// fused multiply-add, so that sums are ndarray's bit for bit).
  virtual std::string precise_variable(const std::string& type, const std::string& name,
                                       const std::string& value) const = 0;
  /// Whether the running maximum and minimum test dtype's elements for NaN: each float dtype in
  /// GLSL's text, only f32 in WGSL's (whose kernels take no other float).
  virtual bool nan_tested(DType dtype) const = 0;

  /// Each invocation steps by the dispatch's count of invocations (groups_for's workgroups, of
  /// kIndexCopyWorkgroup).
  std::string invocations() const final {
    return workgroups() + " * " + std::to_string(kIndexCopyWorkgroup) + "u";
  }
};

/// The kernel of pass of op on dtype in syntax's spelling: what a backend's cumulative_source
/// returns.
std::string cumulative_source_of(ir::CumulativeOp op, DType dtype, ScanPass pass,
                                 const CumulativeSyntax& syntax);

}  // namespace ember::shader
