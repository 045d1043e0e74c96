// The softmax kernels' text (softmax_text.h), in the spelling of a SoftmaxSyntax.
#include "backends/shader/softmax_text.h"

#include <string>
#include <string_view>

#include "backends/shader/kernel_syntax.h"
#include "backends/shader/softmax_kernels.h"
#include "backends/shader/softmax_passes.h"

namespace ember::shader {
// The kernels' helpers, named apart from the other kernels' (unity builds join the files).
namespace softmax_text {

using Access = SoftmaxSyntax::Access;

/// larger(a, b): the maximum of two, a NaN winning (ndarray's lane_max; WGSL tests the bits, as
/// its compiler may assume no NaN of a comparison).
std::string larger_function(const SoftmaxSyntax& s) {
  const std::string_view f32 = s.float_type();
  const std::string a_wins =
      s.is_nan("is_nan", "a") + " || (!" + s.is_nan("is_nan", "b") + " && a >= b)";
  return s.nan_function("is_nan") + s.function(f32, "larger", {{f32, "a"}, {f32, "b"}}) +
         " { return " + s.select("b", "a", a_wins) + "; }\n";
}

/// The loop over a lane's share: elements start, start + step, ... of its n.
std::string share_loop(const SoftmaxSyntax& s) {
  return for_loop(s.variable(s.word_type(), "k", "start"), "k < n", "k += step");
}

/// lane_max and lane_sum: a lane's share of its maximum, and of its sum of exp(x - m).
std::string reduce_functions(const SoftmaxSyntax& s) {
  const std::string_view word = s.word_type();
  const std::string_view f32 = s.float_type();
  std::string text =
      s.function(f32, "lane_max",
                 {{word, "first"}, {word, "inner"}, {word, "n"}, {word, "start"}, {word, "step"}}) +
      " {\n";
  text += "  " + s.variable(f32, "m", s.float_of_bits("0xff800000u")) + ";\n";
  text += "  " + s.headed(share_loop(s), "m = larger(m, x[first + k * inner]);") + "\n";
  text += "  return m;\n}\n";
  text += s.function(f32, "lane_sum",
                     {{word, "first"},
                      {word, "inner"},
                      {word, "n"},
                      {word, "start"},
                      {word, "step"},
                      {f32, "m"}}) +
          " {\n";
  text += "  " + s.variable(f32, "s", s.float_literal("0.0")) + ";\n";
  text += "  " + s.headed(share_loop(s), "s += exp(x[first + k * inner] - m);") + "\n";
  return text + "  return s;\n}\n";
}

/// lane_write: a lane's share of its writes, exp(x - m) / sum or (p[3]: log-softmax)
/// x - m - log(sum).
std::string write_function(const SoftmaxSyntax& s) {
  const std::string_view word = s.word_type();
  const std::string_view f32 = s.float_type();
  std::string text = s.function("", "lane_write",
                                {{word, "first"},
                                 {word, "inner"},
                                 {word, "n"},
                                 {word, "start"},
                                 {word, "step"},
                                 {f32, "m"},
                                 {f32, "sum"}}) +
                     " {\n";
  text += constants(s, "  ", f32, {{"log_sum", "log(sum)"}}) + "  " + share_loop(s) + " {\n";
  text += constants(s, "    ", f32, {{"shifted", "x[first + k * inner] - m"}});
  text += "    y[first + k * inner] = " +
          s.select("exp(shifted) / sum", "shifted - log_sum", "p[3] != 0u") + ";\n";
  return text + "  }\n}\n";
}

/// first_of(lane, n, inner): the index of the lane's first element in x seen as [rows, n, inner].
std::string first_function(const SoftmaxSyntax& s) {
  const std::string_view word = s.word_type();
  return s.function(word, "first_of", {{word, "lane"}, {word, "n"}, {word, "inner"}}) + " {\n" +
         constants(s, "  ", word, {{"row", "lane / inner"}}) +
         "  return row * n * inner + (lane - row * inner);\n}\n";
}

/// The bindings and the functions both kernels call.
std::string common(const SoftmaxSyntax& s) {
  return s.header() + s.buffer(1, "X", "x", s.float_type(), Access::Read) +
         s.buffer(2, "Y", "y", s.float_type(), Access::Write) + larger_function(s) +
         reduce_functions(s) + write_function(s) + first_function(s);
}

/// The entry point's lines naming its parameter words: lanes, n, inner.
std::string parameter_lines(const SoftmaxSyntax& s) {
  return constants(s, "  ", s.word_type(), {{"lanes", "p[0]"}, {"n", "p[1]"}, {"inner", "p[2]"}});
}

/// The head of the entry point's loop over the lanes from first, by step, and its line naming
/// the lane's first element.
std::string lanes_loop(const SoftmaxSyntax& s, const std::string& first, const std::string& step) {
  return "  " +
         for_loop(s.variable(s.word_type(), "lane", first), "lane < lanes", "lane += " + step) +
         " {\n" + constants(s, "    ", s.word_type(), {{"first", "first_of(lane, n, inner)"}});
}

/// Short lanes: one invocation a lane, in order. (Apart from the workgroup kernel: lavapipe runs
/// a kernel with barriers far slower, even where none is reached.)
std::string short_source(const SoftmaxSyntax& s) {
  return common(s) + s.short_entry() + parameter_lines(s) +
         lanes_loop(s, s.invocation(), s.invocations()) +
         constants(s, "    ", s.float_type(), {{"m", "lane_max(first, inner, n, 0u, 1u)"}}) +
         "    lane_write(first, inner, n, 0u, 1u, m, lane_sum(first, inner, n, 0u, 1u, m));\n"
         "  }\n}\n";
}

/// tree(max_op): the tree over part, its combination by larger (max) or addition (sum), between
/// barriers, its result in every invocation.
std::string tree_function(const SoftmaxSyntax& s) {
  const std::string barrier = "  " + s.barrier() + ";\n";
  std::string text = s.shared_floats("part") + "// The tree over " + s.named_array("part") +
                     ": its combination by larger (max) or addition (sum), in every invocation.\n" +
                     s.tree_function() + barrier;
  text +=
      "  " +
      for_loop(s.variable(s.word_type(), "half_size", std::to_string(kSoftmaxWorkgroup / 2) + "u"),
               "half_size > 0u", s.halve("half_size")) +
      " {\n";
  text += s.tree_step() + "  " + barrier + "  }\n";
  text += constants(s, "  ", s.float_type(), {{"result", "part[0]"}});
  return text + barrier + "  return result;\n}\n";
}

/// One workgroup a lane (looping over lanes past the dispatch): each invocation's share of the
/// maximum and the sum, then trees over part.
std::string workgroup_source(const SoftmaxSyntax& s) {
  const std::string share = "first, inner, n, id, " + std::to_string(kSoftmaxWorkgroup) + "u";
  std::string text = common(s) + tree_function(s) + s.workgroup_entry() + parameter_lines(s) +
                     constants(s, "  ", s.word_type(), {{"id", s.local_invocation()}}) +
                     lanes_loop(s, s.workgroup(), s.workgroups());
  text += "    part[id] = lane_max(" + share + ");\n";
  text += constants(s, "    ", s.float_type(), {{"m", s.tree_call("true")}});
  text += "    part[id] = lane_sum(" + share + ", m);\n";
  return text + "    lane_write(" + share + ", m, " + s.tree_call("false") + ");\n  }\n}\n";
}

}  // namespace softmax_text

SoftmaxSources softmax_sources_of(const SoftmaxSyntax& syntax) {
  return {softmax_text::short_source(syntax), softmax_text::workgroup_source(syntax)};
}

}  // namespace ember::shader
