// The text of the interpolation kernels (interpolate_passes.h: the forward's taps, summed; the
// gradient's gather over the outputs reading each input), written once for both shader backends:
// the taps of ndarray's interpolate_plan.cpp, operation for operation, the binary searches of the
// outputs that read an input, and the loops summing the products. What GLSL and WGSL spell
// differently comes from an InterpolateSyntax, which each backend supplies (vulkan's and wgpu's
// interpolate_kernel.cpp) over GlslKernelSyntax and WgslKernelSyntax (kernel_syntax.h), as the
// softmax kernels' SoftmaxSyntax does. Beyond spelling, the backends differ where the syntax says
// so: GLSL keeps each rounding apart with precise variables, reads f64 ratios and sums in its A
// (double where the device has it); WGSL has no f64, reads and writes f16 two to a word and sums
// the gradient's terms compensated.
#pragma once

#include <string>
#include <string_view>

#include "backends/shader/interpolate_passes.h"
#include "backends/shader/kernel_syntax.h"
#include "backends/shader/spatial_dispatch.h"
#include "ember/dtype.h"

namespace ember::shader {

/// How a shading language spells what the interpolation kernels write, beyond KernelSyntax's
/// statements, words, casts and helpers; the kernels themselves, forward and gradient, as
/// InterpolateSources. Expressions and statements come without indent, ";" or newline; whole
/// lines (functions, blocks) end in their newline. The words are interpolate_passes.h's.
class InterpolateSyntax : public KernelSyntax, public InterpolateSources {
 public:
  /// The kernel's first lines, through its bindings (p, then input and output of dtype) and the
  /// helpers that read and write them; output[e] is written, input read by input_term.
  virtual std::string prelude(DType dtype, const std::string& input,
                              const std::string& output) const = 0;
  /// What follows value()'s function: WGSL's entry point storing it (f16 two to a word); empty
  /// where value() is the entry point (GLSL's main).
  virtual std::string epilogue(DType dtype) const = 0;

  /// The types of the coordinates and weights (x's compute type) and of the sums.
  virtual std::string_view coordinate_type() const = 0;
  virtual std::string_view sum_type() const = 0;
  /// number (as C writes it: 1, 0.5, -0.75) as a coordinate.
  virtual std::string coordinate_literal(const std::string& number) const = 0;
  /// A coordinate or weight value as a sum's term, and a sum's zero.
  virtual std::string summed(const std::string& value) const = 0;
  virtual std::string sum_zero() const = 0;

  /// A coordinate named name of value whose operations round each on its own (GLSL's precise:
  /// never fused into an fma).
  virtual std::string pinned_constant(const std::string& name, const std::string& value) const = 0;
  /// The lines (at indent) pinning value in name where an expression could fuse (GLSL's), empty
  /// where the language has no such pin (WGSL's); pinned_value the expression then standing for it.
  virtual std::string pinned(const std::string& indent, const std::string& name,
                             const std::string& value) const = 0;
  virtual std::string pinned_value(const std::string& name, const std::string& value) const = 0;
  /// A local of type named name, assigned later, and one of value indexed dynamically (WGSL's a
  /// variable, as it indexes only those).
  virtual std::string declared(std::string_view type, const std::string& name) const = 0;
  virtual std::string indexable(std::string_view type, const std::string& name,
                                const std::string& value) const = 0;

  /// ratio_of's body given the line returning the f32 ratio: where the coordinates may be f64
  /// (GLSL's F64), its words read as a double instead.
  virtual std::string ratio_body(const std::string& f32_return) const = 0;
  /// Keys' cubic kernel for 1 < |x| < 2: GLSL's as ndarray's double kernel writes it, WGSL's with
  /// its signs folded (ndarray's f32).
  virtual std::string cubic_far() const = 0;
  /// The struct Taps: count, and four indices and weights.
  virtual std::string taps_struct() const = 0;
  /// locate(e, at, other)'s definition, whose base is the split's plane times plane_size (the
  /// other tensor's spatial size).
  virtual std::string locate_function(const std::string& plane_size) const = 0;
  /// The lines (at 2 spaces' indent) locating e: name its position, base where its plane starts
  /// in the other tensor.
  virtual std::string located(const std::string& name, const std::string& at,
                              const std::string& other) const = 0;
  /// The lines (at 2 spaces' indent) of a constant name of the type of readers' bounds: at_edge
  /// where i is edge, else otherwise (which WGSL evaluates only then).
  virtual std::string edge_bound(const std::string& name, const std::string& edge,
                                 const std::string& at_edge,
                                 const std::string& otherwise) const = 0;
  /// The type of a pair of i32 (readers' bounds).
  virtual std::string_view int_pair_type() const = 0;

  /// The head of value(e), through its first lines: GLSL's main, skipping e past the elements.
  virtual std::string value_head() const = 0;
  /// Element index of the input named name, as a sum's term.
  virtual std::string input_term(const std::string& name, const std::string& index) const = 0;
  /// value()'s end: sum (a sum_type) written to output[e] (GLSL's) or returned.
  virtual std::string value_end(const std::string& output, const std::string& sum) const = 0;
  /// The gradient's sum: its start (lines at 2 spaces' indent), a term's addition (a statement)
  /// and its value; WGSL's compensated (codegen's helper, sum_helper), GLSL's in A.
  virtual std::string sum_helper() const = 0;
  virtual std::string gradient_sum_start() const = 0;
  virtual std::string gradient_add(const std::string& term) const = 0;
  virtual std::string gradient_sum() const = 0;
  /// What parts the gradient's helpers from its value(): WGSL's blank line, as before any
  /// function; GLSL's none (main follows).
  virtual std::string gradient_gap() const = 0;
  /// A loop over one statement on a line of its own (at indent + 2), the loop at indent.
  virtual std::string loop_over(const std::string& indent, const std::string& head,
                                const std::string& statement) const = 0;

  /// Each invocation's stride over the dispatch (spatial_dispatch.h's workgroups).
  std::string invocations() const final {
    return workgroups() + " * " + std::to_string(kSpatialWorkgroup) + "u";
  }

  /// Interpolate of x into y, and InterpolateGrad of grad_output into dx, of dtype.
  std::string forward(DType dtype) const final;
  std::string gradient(DType dtype) const final;
};

}  // namespace ember::shader
