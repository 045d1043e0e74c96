// The text of the convolution and pooling kernels (conv_pool_kernels.h: the direct and the tiled
// Conv, ConvWeightGrad, Pool and AdaptivePool, AvgPoolGrad and AdaptiveAvgPoolGrad), written once
// for both shader backends: the bindings, the convolution's taps and terms, its loops over the
// kernel, the tiles staged through shared memory, the weight gradient's rows and tree, the
// pooling windows and their divisor, the maximum and average, the gradient's candidate windows.
// What GLSL and WGSL spell differently comes from a ConvPoolSyntax, which each backend supplies
// (vulkan's and wgpu's conv_pool_kernels.cpp) over GlslKernelSyntax and WgslKernelSyntax
// (kernel_syntax.h), as the softmax kernels' SoftmaxSyntax does.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include "backends/shader/conv_pool_kernels.h"
#include "backends/shader/kernel_syntax.h"
#include "backends/shader/spatial_dispatch.h"
#include "ember/dtype.h"
#include "ir/ops.h"

namespace ember::shader {

/// The columns a kernel's line may take: the width both backends' sources were written to, where
/// a longer line was broken.
constexpr std::size_t kConvPoolColumns = 100;

/// How a shading language spells what the convolution and pooling kernels write, beyond
/// KernelSyntax's statements, words, helpers, buffers and workgroups. Expressions come without
/// indent or newline; whole lines (the header, the flags, the declarations, the entry points, the
/// lines given an indent) end in their newline.
class ConvPoolSyntax : public KernelSyntax {
 public:
  /// The source's first lines, before the buffers (the parameter words, element() and split()):
  /// GLSL's with the tensors' type T of dtype, the accumulator A (averages: pooling's, in double
  /// where the device has it) and the workgroup (tiled: the tiled convolution's 16 x 16).
  virtual std::string header(DType dtype, bool averages, bool tiled) const = 0;
  /// The type of a tensor of dtype in the buffers.
  virtual std::string tensor_type(DType dtype) const = 0;
  /// The types of a tensor's element and of the accumulator in the kernels' bodies (GLSL's T and
  /// A).
  virtual std::string_view value_type() const = 0;
  virtual std::string_view accumulator_type() const = 0;
  /// value (an element of a tensor) converted to type (value_type or accumulator_type): GLSL's
  /// constructor, WGSL's value itself (both f32).
  virtual std::string converted(std::string_view type, const std::string& value) const = 0;
  /// The zero of type (value_type or accumulator_type).
  virtual std::string zero(std::string_view type) const = 0;
  /// Whether the device computes in double (GLSL's DOUBLES: averages add in double).
  virtual bool doubles() const = 0;
  /// The line defining name where the source chooses by the preprocessor (GLSL); empty in WGSL,
  /// whose sources are written for the one case.
  virtual std::string flag(const std::string& name) const = 0;
  /// The lines of a pooling kernel that are max's or average's: GLSL's both, between #ifdef MAX,
  /// #else and #endif; WGSL's max's or average's, as max says.
  virtual std::string either(bool max, const std::string& max_lines,
                             const std::string& average_lines) const = 0;

  /// The type of a vector of size i32s, and one made of the words a, b, c (GLSL's converts them).
  virtual std::string int_vector_type(int size) const = 0;
  virtual std::string int_vector_of_words(const std::string& a, const std::string& b,
                                          const std::string& c) const = 0;
  /// The declarations of the module's variables names, of type, which load_geometry sets.
  virtual std::string private_variables(std::string_view type,
                                        std::initializer_list<std::string_view> names) const = 0;
  /// The declaration of a struct named name (GLSL's terms_of: wrapped, a field a line).
  virtual std::string structure(const std::string& name, std::initializer_list<Parameter> fields,
                                bool wrapped) const = 0;
  /// An array of the accumulator type, of sizes (outermost first), shared by a workgroup.
  virtual std::string shared_array(const std::string& name,
                                   std::initializer_list<int> sizes) const = 0;
  /// The line between the helpers and a kernel's own declarations: GLSL's blank, WGSL's none.
  virtual std::string section_break() const = 0;
  /// The head of the entry point, through its "{", of workgroups of size (WGSL's attribute's
  /// list; GLSL's is the header's).
  virtual std::string entry(const std::string& size) const = 0;

  /// The lines (at 2 spaces' indent) naming the position (d, h, w) of element in the extents
  /// p[at..] and the rest above them, from split(); named_position false: the position is read
  /// as split_position(position) (WGSL names none).
  virtual std::string split(const std::string& element, const std::string& at,
                            const std::string& position, const std::string& rest,
                            bool named_position) const = 0;
  virtual std::string split_position(const std::string& position) const = 0;
  /// The index of the element this invocation writes (WGSL's element() takes the builtins).
  virtual std::string element_index() const = 0;
  /// The name of the count of groups (WGSL's groups is the builtin).
  virtual std::string group_count() const = 0;
  /// The workgroup's row in the dispatch, and the invocation's row in its workgroup.
  virtual std::string workgroup_row() const = 0;
  virtual std::string local_row() const = 0;
  /// The lines (at indent) of a barrier on the workgroup's shared memory.
  virtual std::string shared_barrier(const std::string& indent) const = 0;
  /// The lines (at indent) running statement (whole) where condition holds: GLSL's on a line of
  /// its own, WGSL's braced.
  virtual std::string guarded(const std::string& indent, const std::string& condition,
                              const std::string& statement) const = 0;

  /// The lines (at 6 spaces' indent) setting tile (a shared array's element) to value where
  /// condition holds, else to 0, value read only where it holds (named in WGSL's variable).
  virtual std::string staged(const std::string& tile, const std::string& name,
                             const std::string& condition, const std::string& value) const = 0;
  /// Whether the tiled kernel names the output's volume with its other words (WGSL), rather than
  /// before its store (GLSL).
  virtual bool volume_first() const = 0;
  /// The convolution's store function (GLSL's, with its bias by the preprocessor), and the lines
  /// ending the entry point that store acc, plus bias c's where bias, at element: GLSL's call of
  /// the store, WGSL's assignment (element empty: e, already named).
  virtual std::string store_function() const = 0;
  virtual std::string store(const std::string& element, bool bias) const = 0;
  /// The pooling kernels' NaN test is_nan(v): with the windows (WGSL's, f32), or before the pool's
  /// entry (GLSL's, float and under DOUBLES double).
  virtual std::string windows_nan_function() const = 0;
  virtual std::string pool_nan_functions() const = 0;

  /// The invocations of a row of the dispatch (element() numbers the rows' invocations on).
  std::string invocations() const final {
    return workgroups() + " * " + std::to_string(kSpatialWorkgroup) + "u";
  }
};

/// The convolution and pooling kernels in syntax's spelling: what a backend's
/// make_conv_pool_kernels records.
std::unique_ptr<const ConvPoolSources> conv_pool_sources_of(
    std::unique_ptr<const ConvPoolSyntax> syntax);

}  // namespace ember::shader
