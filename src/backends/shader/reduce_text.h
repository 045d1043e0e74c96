// The text of the reduction kernels (reduce_passes.h: the first pass over each lane's chunks, the
// second over each lane's chunks' partial results), written once for both shader backends where
// they are alike: the order of the declarations, replaces (which extreme wins: the first NaN,
// else the value beyond, the first index of equal ones), the first pass's loop over the chunks
// and its partial results, which ops reduce a chunk alike, and the second pass's entry. How each
// language reduces a chunk and combines a lane's chunks differs beyond its spelling (vulkan's in
// double, wgpu's in f32 with compensated sums and Bool results packed four a word), so those
// bodies come whole from a ReduceSyntax, which each backend supplies (vulkan's and wgpu's
// reduce_sources.cpp) over kernel_syntax.h's GlslKernelSyntax and WgslKernelSyntax, as the sort
// kernels' SortSyntax does.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "backends/shader/kernel_syntax.h"
#include "backends/shader/reduce_kernels.h"
#include "backends/shader/reduce_passes.h"
#include "ember/dtype.h"
#include "ir/ops.h"

namespace ember::shader {

/// How a shading language spells what the reduction kernels write, beyond KernelSyntax's
/// statements, words, helpers and casts. Expressions come without indent or newline; whole lines
/// (the declarations, the entry point, the bodies) end in their newline. A chunk's body starts
/// where the line of b's declaration ends (its first line unindented, the others by one space).
class ReduceSyntax : public KernelSyntax {
 public:
  /// What precedes replaces in both passes' sources, of x's elements and out's: the header (GLSL's
  /// version, extensions and workgroup size, kReduceWorkgroup), the parameter words p, read only,
  /// at binding 0, and the helpers replaces calls (is_nan; WGSL's bindings, compensated sum and
  /// load come before it).
  virtual std::string declarations(DType x, DType out) const = 0;
  /// The types of the values replaces compares and of their indices.
  virtual std::string_view value_type() const = 0;
  virtual std::string_view index_type() const = 0;
  /// The lines (at indent) returning value where condition holds, else otherwise: GLSL's
  /// conditional, WGSL's if before the return.
  virtual std::string return_either(const std::string& indent, const std::string& condition,
                                    const std::string& value,
                                    const std::string& otherwise) const = 0;
  /// What follows replaces before the entry point: in the first pass, GLSL's bindings of x and of
  /// the partial results and its load (WGSL's come before replaces); in the second, GLSL's
  /// bindings of the partial results and of the output, WGSL's lane(o) combining op's chunks.
  virtual std::string partial_declarations(DType x) const = 0;
  virtual std::string finish_declarations(ir::ReduceOp op, DType out) const = 0;

  /// The head of both passes' entry point, through its "{": where WGSL names its workgroup size
  /// and the builtins invocation and invocations read.
  virtual std::string entry() const = 0;
  /// The lines that follow outputs' (the parameter word p[0]) in both passes: WGSL's set of its
  /// compensated sums' opaque_zero from it (below 2^31); none in GLSL.
  virtual std::string after_outputs() const = 0;

  /// The type of a chunk's partial results a and b (GLSL's doubles, WGSL's words), its zero, and
  /// the array the first pass writes them to.
  virtual std::string_view partial_type() const = 0;
  virtual std::string partial_zero() const = 0;
  virtual std::string partials() const = 0;
  /// The bodies that reduce the chunk's elements load(first + t * inner), t = begin,
  /// begin + step, ... below n, into a and b: a sum (Sum, Mean), a product, an extreme and its
  /// index (replaces says which wins), a truth (the constant any_op: whether Any) and Var's mean
  /// and sum of squared deviations.
  virtual std::string sum_chunk() const = 0;
  virtual std::string product_chunk() const = 0;
  virtual std::string extreme_chunk() const = 0;
  virtual std::string truth_chunk() const = 0;
  virtual std::string variance_chunk() const = 0;
  /// The rest of the second pass's entry point after its outputs' lines, but its "}": each lane's
  /// chunks combined in order by op into its result, of out's dtype, computed from x's.
  virtual std::string finish_lanes(ir::ReduceOp op, DType x, DType out) const = 0;

  /// Each invocation steps by the dispatch's count of invocations.
  std::string invocations() const final {
    return workgroups() + " * " + std::to_string(kReduceWorkgroup) + "u";
  }
};

/// The first pass of op on x's elements, and the second of op from x's into out's, in syntax's
/// spelling.
std::string reduce_partial_text(ir::ReduceOp op, DType x, const ReduceSyntax& syntax);
std::string reduce_finish_text(ir::ReduceOp op, DType x, DType out, const ReduceSyntax& syntax);

/// The kernels in the spelling of Syntax (a ReduceSyntax made by its default constructor each
/// time a source is asked for), of partial_bytes a chunk, taking what takes_dtype takes: what a
/// backend's reduce_sources returns.
template <typename Syntax>
ReduceSources reduce_sources_of(uint64_t partial_bytes, bool packed_bools,
                                std::function<bool(ir::ReduceOp, DType)> takes_dtype) {
  return {
      partial_bytes, packed_bools, std::move(takes_dtype),
      [](ir::ReduceOp op, DType x) { return reduce_partial_text(op, x, Syntax()); },
      [](ir::ReduceOp op, DType x, DType out) { return reduce_finish_text(op, x, out, Syntax()); }};
}

}  // namespace ember::shader
