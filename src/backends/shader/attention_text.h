// The text of the fused attention kernels (attention_passes.h: forward, stats, dQ, dK and dV),
// written once for both shader backends: the case's constants, which buffers each pass binds, the
// masked score, the tiles streamed through shared memory, the online softmax of the forward and
// the gradients recomputed from each row's lse. What GLSL and WGSL spell differently comes from an
// AttentionSyntax, which each backend supplies (vulkan's and wgpu's attention_source.cpp) over
// GlslKernelSyntax and WgslKernelSyntax (kernel_syntax.h), as the sort kernels' SortSyntax does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/shader/attention_passes.h"
#include "backends/shader/kernel_syntax.h"

namespace ember::shader {

/// What an invocation reads of its own row (a query's or a key's) before it streams the tiles:
/// arrays of f32, each element c read where the row is valid (or 0), or zeros; then, after a
/// comment, scalars read where the row is valid (or 0).
struct RowReads {
  struct Array {
    std::string name;
    std::string size;
    std::string element;  ///< element c's expression; empty: zeros
  };
  struct Scalar {
    std::string name;
    std::string value;
  };
  std::vector<Array> arrays;
  std::string comment;
  std::vector<Scalar> scalars;
};

/// How a shading language spells what the attention kernels write, beyond KernelSyntax's
/// statements, words, helpers, casts, buffers and workgroups. Expressions and statements come
/// without indent or newline, statements without their ";" unless said; whole lines (the header,
/// the constants, the declarations, the entry points, the lines given an indent) end in their
/// newline.
class AttentionSyntax : public KernelSyntax {
 public:
  /// The source's first lines, before the case's constants.
  virtual std::string header() const = 0;
  /// The line of the case's constant name of value (attention_passes.h's constants()), and the
  /// literal a constant is compared with (GLSL's int, WGSL's u32).
  virtual std::string specialisation(const std::string& name, uint64_t value) const = 0;
  virtual std::string specialisation_literal(uint64_t value) const = 0;
  /// The lines every pass declares first: GLSL's workgroup size (ROWS), then the parameter words
  /// p, read only, at binding 0.
  virtual std::string parameters() const = 0;

  /// The declaration of an array of size f32 named name, shared by a workgroup's invocations, and
  /// of one of the invocation's own (a statement).
  virtual std::string shared_floats(const std::string& name, const std::string& size) const = 0;
  virtual std::string float_array(const std::string& name, const std::string& size) const = 0;
  /// The f32 -inf, and the shared tiles' declarations with its definition where the language
  /// has it: GLSL's macro NEG_INF before them, WGSL's function neg_inf() after.
  virtual std::string neg_inf() const = 0;
  virtual std::string with_neg_inf(const std::string& tiles) const = 0;

  /// The head of mask_base(b), through its "{" and the line making b a variable where the
  /// language's parameters are not (WGSL's: it takes entry).
  virtual std::string mask_base_head() const = 0;
  /// The lines (at 4 spaces' indent) returning scaled where the Bool mask's byte (an expression)
  /// is nonzero, else -inf.
  virtual std::string masked_score(const std::string& byte) const = 0;
  /// The lines finding where a workgroup of ROWS rows stands (GLSL's Block and block_of); empty
  /// where the entry point finds it in its own lines (WGSL's, whose builtins are its parameters).
  virtual std::string block_function() const = 0;
  /// The head of name(a, r), a a row of size f32 (the dot products with the tiles' rows).
  virtual std::string row_function(const std::string& name, const std::string& size) const = 0;

  /// The head of load_tiles(first, r0, n), and the invocation's index in its workgroup there: GLSL
  /// reads the builtin, WGSL takes it as the parameter id. tiles_call is a call of it, of args.
  virtual std::string tiles_function() const = 0;
  virtual std::string tiles_local() const = 0;
  virtual std::string tiles_call(const std::string& args) const = 0;
  /// The lines (at indent) of a loop's or an if's head over one statement (whole, with its ";")
  /// on the next line: GLSL's bare, WGSL's braced.
  virtual std::string governed(const std::string& indent, const std::string& head,
                               const std::string& statement) const = 0;
  /// A pass's own name of value (the tiles' buffers, its rows' count): GLSL defines a macro
  /// (its functions take no buffers) in pass_definition's line and writes macro, WGSL writes
  /// value in place and defines nothing.
  virtual std::string pass_definition(const std::string& macro, const std::string& value) const = 0;
  virtual std::string pass_name(const std::string& macro, const std::string& value) const = 0;

  /// The head of the streaming passes' entry point, through its "{", then the lines finding where
  /// its workgroup of ROWS rows of n_rows stands; block(field) names b (its batch entry), r0 (its
  /// first row) and r (this invocation's row).
  virtual std::string entry() const = 0;
  virtual std::string block_lines(const std::string& n_rows) const = 0;
  virtual std::string block(const std::string& field) const = 0;
  /// The stats pass's entry point, where WGSL names its workgroup size and the builtin invocation
  /// read.
  virtual std::string stats_entry() const = 0;

  /// The lines (at 2 spaces' indent) declaring and reading reads where valid.
  virtual std::string row_reads(const RowReads& reads) const = 0;
  /// The lines (at 6 spaces' indent) reading the stats of query i (at index, an expression, lse
  /// there, D after it) where query holds; query_stat names the one named name (offset after
  /// index: "" or " + 1u"), 0 where query does not hold.
  virtual std::string query_stats(const std::string& index) const = 0;
  virtual std::string query_stat(const std::string& name, const std::string& offset) const = 0;

  /// The dispatch's count of invocations, ROWS a workgroup (no pass loops over them: each
  /// invocation takes one row).
  std::string invocations() const final { return workgroups() + " * ROWS"; }

  /// The head of a loop over the elements c of a row of size.
  std::string element_loop(const std::string& size) const {
    return for_loop(variable(word_type(), "c", "0u"), "c < " + size, increment("c"));
  }
};

/// The kernel of pass on geometry's case in syntax's spelling: what a backend's attention_source
/// returns.
std::string attention_source_of(AttentionPass pass, const AttentionGeometry& geometry,
                                const AttentionSyntax& syntax);

}  // namespace ember::shader
