// The reduction kernels' text (reduce_text.h), in the spelling of a ReduceSyntax.
#include "backends/shader/reduce_text.h"

#include <string>
#include <string_view>

namespace ember::shader {
// The kernels' helpers, named apart from the other kernels' (unity builds join the files).
namespace reduce_text {

using ir::ReduceOp;

/// Whether b (at index ib) replaces a (at ia) as the lane's extreme so far: the first NaN, else a
/// greater (smaller) value, the first index of equal ones (ndarray's extreme_index).
std::string replaces(const ReduceSyntax& s, ReduceOp op) {
  const std::string order = op == ReduceOp::Max || op == ReduceOp::ArgMax ? ">" : "<";
  const std::string_view value = s.value_type();
  const std::string_view index = s.index_type();
  return s.function("bool", "replaces",
                    {{value, "b"}, {index, "ib"}, {value, "a"}, {index, "ia"}}) +
         " {\n" +
         s.return_either("  ", "is_nan(a)", "is_nan(b) && ib < ia",
                         "is_nan(b) || b " + order + " a || (b == a && ib < ia)") +
         "}\n";
}

/// The lines of outputs (the lanes' count, p[0]) and what follows it, both passes' first.
std::string outputs_lines(const ReduceSyntax& s) {
  return constants(s, "  ", s.word_type(), {{"outputs", "p[0]"}}) + s.after_outputs();
}

/// The body that reduces a chunk of op's lane into a and b.
std::string chunk(const ReduceSyntax& s, ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean:
      return s.sum_chunk();
    case ReduceOp::Prod:
      return s.product_chunk();
    case ReduceOp::Max:
    case ReduceOp::Min:
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin:
      return s.extreme_chunk();
    case ReduceOp::Any:
    case ReduceOp::All:
      return s.constant("bool", "any_op", op == ReduceOp::Any ? "true" : "false") + ";\n" +
             s.truth_chunk();
    case ReduceOp::Var:
      return s.variance_chunk();
  }
  return "";
}

/// The first pass: each chunk of each lane (chunk c: its elements c, c + chunks, ..., so that
/// neighbouring invocations read neighbouring elements) reduced in order into the partial
/// results 2w and 2w + 1.
std::string partial_source(const ReduceSyntax& s, ReduceOp op, DType x) {
  const std::string_view word = s.word_type();
  std::string text = s.declarations(x, x) + replaces(s, op) + s.partial_declarations(x) +
                     s.entry() + outputs_lines(s);
  text += constants(s, "  ", word, {{"n", "p[1]"}, {"inner", "p[2]"}, {"chunks", "p[3]"}});
  text += "  " +
          for_loop(s.variable(word, "w", s.invocation()), "w < outputs * chunks",
                   "w += " + s.invocations()) +
          " {\n";
  text += constants(s, "    ", word,
                    {{"o", "w / chunks"},
                     {"begin", "w - o * chunks"},
                     {"step", "chunks"},
                     {"row", "o / inner"},
                     {"first", "row * n * inner + (o - row * inner)"}});
  for (const char* partial : {"a", "b"})
    text += "    " + s.variable(s.partial_type(), partial, s.partial_zero()) + ";\n";
  const std::string partials = "    " + s.partials();
  return text + chunk(s, op) + partials + "[2u * w] = a;\n" + partials +
         "[2u * w + 1u] = b;\n  }\n}\n";
}

/// The second pass: each lane's chunks combined in order into its result.
std::string finish_source(const ReduceSyntax& s, ReduceOp op, DType x, DType out) {
  return s.declarations(x, out) + replaces(s, op) + s.finish_declarations(op, out) + s.entry() +
         outputs_lines(s) + s.finish_lanes(op, x, out) + "}\n";
}

}  // namespace reduce_text

std::string reduce_partial_text(ir::ReduceOp op, DType x, const ReduceSyntax& syntax) {
  return reduce_text::partial_source(syntax, op, x);
}

std::string reduce_finish_text(ir::ReduceOp op, DType x, DType out, const ReduceSyntax& syntax) {
  return reduce_text::finish_source(syntax, op, x, out);
}

}  // namespace ember::shader
