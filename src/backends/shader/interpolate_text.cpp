// The interpolation kernels' text (interpolate_text.h), in the spelling of an InterpolateSyntax.
#include "backends/shader/interpolate_text.h"

#include <string>
#include <string_view>

#include "backends/shader/kernel_syntax.h"
#include "ember/dtype.h"

namespace ember::shader {
// The kernels' helpers, named apart from the other kernels' (unity builds join the files).
namespace interpolate_text {

/// ratio_of(a), the ratio along dim a, and floor_index(x, extent).
std::string floor_functions(const InterpolateSyntax& s) {
  const std::string_view i32 = s.int_type();
  const std::string_view f = s.coordinate_type();
  std::string text = "\n" + s.function(f, "ratio_of", {{s.word_type(), "a"}}) + " {\n" +
                     s.ratio_body("  return " + s.float_of_bits("p[11u + 2u * a]") + ";\n") + "}\n";
  text += "// floor(x) as an index, at most extent - 1.\n" +
          s.function(i32, "floor_index", {{f, "x"}, {i32, "extent"}}) + " {\n";
  text += "  " + s.constant(f, "floored", "floor(x)") + ";\n";
  return text + "  return " +
         s.select("extent - 1", std::string(i32) + "(floored)",
                  "floored < " + std::string(f) + "(extent - 1)") +
         ";\n}\n";
}

/// coordinate(a, o): output index o's coordinate along dim a, as ndarray's plan computes it.
std::string coordinate_function(const InterpolateSyntax& s) {
  const std::string_view word = s.word_type();
  const std::string_view f = s.coordinate_type();
  const std::string of_o = std::string(f) + "(o)";
  std::string text = "// Output index o's coordinate along dim a (nearest: o * ratio).\n" +
                     s.function(f, "coordinate", {{word, "a"}, {s.int_type(), "o"}}) + " {\n";
  text += "  " + s.constant(f, "ratio", "ratio_of(a)") + ";\n";
  text += "  " + s.constant(word, "mode", "p[8u + a]") + ";\n";
  const std::string aligned = "mode == 0u || p[1] != 0u";
  const std::string scaled = "ratio * " + of_o;
  const std::string pin = s.pinned("    ", "scaled", scaled);
  const std::string scaled_return = "return " + s.pinned_value("scaled", scaled) + ";";
  // Where nothing needs pinning, the if fits on its line.
  text += pin.empty() ? "  " + s.if_then(aligned, scaled_return) + "\n"
                      : "  if (" + aligned + ") {\n" + pin + "    " + scaled_return + "\n  }\n";
  const std::string half = s.coordinate_literal("0.5");
  text +=
      "  " + s.pinned_constant("centre", "ratio * (" + of_o + " + " + half + ") - " + half) + ";\n";
  return text + "  return " +
         s.select("centre", "max(centre, " + s.coordinate_literal("0") + ")", "mode == 1u") +
         ";\n}\n";
}

/// base_of(a, o): the first input index output index o reads along dim a.
std::string base_function(const InterpolateSyntax& s) {
  const std::string_view i32 = s.int_type();
  return "// The first input index o reads along dim a (nearest: the one; cubic: one more lies "
         "below).\n" +
         s.function(i32, "base_of", {{s.word_type(), "a"}, {i32, "o"}}) +
         " {\n  return floor_index(coordinate(a, o), " + std::string(i32) + "(p[2u + a]));\n}\n";
}

/// A function of x returning value, pinned where an expression could fuse.
std::string pinned_function(const InterpolateSyntax& s, const std::string& name,
                            const std::string& value) {
  const std::string_view f = s.coordinate_type();
  return s.function(f, name, {{f, "x"}}) + " {\n" + s.pinned("  ", "y", value) + "  return " +
         s.pinned_value("y", value) + ";\n}\n";
}

/// unit_clamp and Keys' cubic convolution kernel.
std::string weight_functions(const InterpolateSyntax& s) {
  const std::string_view f = s.coordinate_type();
  const auto number = [&s](const std::string& n) { return s.coordinate_literal(n); };
  std::string text = s.function(f, "unit_clamp", {{f, "x"}}) + " {\n  return min(max(x, " +
                     number("0") + "), " + number("1") + ");\n}\n";
  text +=
      "// Keys' cubic convolution kernel (A = -0.75) at distance x: |x| <= 1 and 1 < |x| < 2.\n";
  text += pinned_function(
      s, "cubic_near",
      "((" + number("1.25") + " * x - " + number("2.25") + ") * x) * x + " + number("1"));
  return text + pinned_function(s, "cubic_far", s.cubic_far());
}

/// The line (at 4 spaces' indent) setting taps' weight number k to value.
std::string weight_line(int k, const std::string& value) {
  return "    result.weight[" + std::to_string(k) + "] = " + value + ";\n";
}

/// The linear branch of taps (mode 1): base and the next index, weighed 1 - t and t.
std::string linear_taps(const InterpolateSyntax& s) {
  const std::string rest = s.coordinate_literal("1") + " - t";
  return "  } else if (mode == 1u) {\n    result.count = 2;\n    result.index[0] = base;\n" +
         ("    result.index[1] = " + s.select("base", "base + 1", "base < extent - 1") + ";\n") +
         s.pinned("    ", "rest", rest) + weight_line(0, s.pinned_value("rest", rest)) +
         weight_line(1, "t");
}

/// The cubic branch of taps (mode 2): base - 1 to base + 2, clamped to the extent, weighed by
/// Keys' kernel at their distances t + 1, t, 1 - t and 2 - t.
std::string cubic_taps(const InterpolateSyntax& s) {
  std::string text = "  } else {\n    result.count = 4;\n";
  for (int k = 0; k < 4; ++k) {
    const std::string offset = k == 0 ? " - 1" : k == 1 ? "" : " + " + std::to_string(k - 1);
    text +=
        "    result.index[" + std::to_string(k) + "] = clamp(base" + offset + ", 0, extent - 1);\n";
  }
  const std::string one = s.coordinate_literal("1");
  const std::string t1 = "t + " + one;
  const std::string t2 = one + " - t";
  const std::string t3 = s.coordinate_literal("2") + " - t";
  text += s.pinned("    ", "t1", t1) + s.pinned("    ", "t2", t2) + s.pinned("    ", "t3", t3);
  text += weight_line(0, "cubic_far(" + s.pinned_value("t1", t1) + ")");
  text += weight_line(1, "cubic_near(t)");
  text += weight_line(2, "cubic_near(" + s.pinned_value("t2", t2) + ")");
  return text + weight_line(3, "cubic_far(" + s.pinned_value("t3", t3) + ")");
}

/// taps(a, o): the input indices output index o reads along dim a, and their weights.
std::string taps_function(const InterpolateSyntax& s) {
  const std::string_view i32 = s.int_type();
  const std::string_view f = s.coordinate_type();
  const std::string one = s.coordinate_literal("1");
  std::string text = s.taps_struct() +
                     "// The input indices output index o reads along dim a, and their weights.\n" +
                     s.function("Taps", "taps", {{s.word_type(), "a"}, {i32, "o"}}) + " {\n";
  text += constants(s, "  ", i32, {{"extent", std::string(i32) + "(p[2u + a])"}});
  text += constants(s, "  ", s.word_type(), {{"mode", "p[8u + a]"}});
  text += constants(s, "  ", f, {{"c", "coordinate(a, o)"}});
  text += constants(s, "  ", i32, {{"base", "floor_index(c, extent)"}});
  text += "  " + s.pinned_constant("t", "unit_clamp(c - " + std::string(f) + "(base))") + ";\n";
  text += "  " + s.declared("Taps", "result") + ";\n";
  text += "  if (mode == 0u) {\n    result.count = 1;\n    result.index[0] = base;\n";
  text += weight_line(0, one);
  text += linear_taps(s) + cubic_taps(s);
  return text + "  }\n  return result;\n}\n";
}

/// What both kernels start from: the coordinates, the weights, the taps and locate.
std::string taps_text(const InterpolateSyntax& s) {
  return floor_functions(s) + coordinate_function(s) + base_function(s) + weight_functions(s) +
         taps_function(s) +
         "// Element e's spatial position in the extents at p[at]; base: where its sample and "
         "channel start\n// in the other tensor, of the extents at p[other].\n" +
         s.locate_function("p[other] * p[other + 1u] * p[other + 2u]");
}

/// The loops (from 2 spaces' indent) over outer and middle (loop heads), each with its lines
/// first, then the innermost loop over one statement.
std::string nested_loops(const InterpolateSyntax& s, const std::string& outer,
                         const std::string& outer_lines, const std::string& middle,
                         const std::string& middle_lines, const std::string& inner,
                         const std::string& statement) {
  return "  " + outer + " {\n" + outer_lines + "    " + middle + " {\n" + middle_lines +
         s.loop_over("      ", inner, statement) + "    }\n  }\n";
}

/// value(e) of the forward: the taps' products, summed.
std::string forward_value(const InterpolateSyntax& s, const std::string& input,
                          const std::string& output) {
  const std::string_view word = s.word_type();
  const std::string_view a = s.sum_type();
  std::string text = "\n" + s.value_head() + s.located("o", "5u", "2u");
  for (int dim = 0; dim < 3; ++dim) {
    text += "  " +
            s.indexable("Taps", std::string("t") + "abc"[dim],
                        "taps(" + std::to_string(dim) + "u, o." + "xyz"[dim] + ")") +
            ";\n";
  }
  text += "  " + s.variable(a, "sum", s.sum_zero()) + ";\n";
  const auto counted = [&s](const std::string& name, const std::string& taps) {
    return for_loop(s.variable(s.int_type(), name, "0"), name + " < " + taps + ".count",
                    s.increment(name));
  };
  const std::string i32 = std::string(s.int_type());
  const std::string middle_lines =
      "      " + s.constant(a, "wab", s.summed("ta.weight[i]") + " * " + s.summed("tb.weight[j]")) +
      ";\n      " +
      s.constant(word, "row",
                 "base + " + std::string(word) + "((ta.index[i] * " + i32 +
                     "(p[3]) + tb.index[j]) * " + i32 + "(p[4]))") +
      ";\n";
  text +=
      nested_loops(s, counted("i", "ta"), "", counted("j", "tb"), middle_lines, counted("k", "tc"),
                   "sum += wab * " + s.summed("tc.weight[k]") + " * " +
                       s.input_term(input, "row + " + std::string(word) + "(tc.index[k])") + ";");
  return text + s.value_end(output, "sum");
}

/// first_reaching, readers and weight_on: the gradient gathers. Along dim a, the output indices
/// reading input index i are those whose base lies in [i - below, i + above] (the taps' reach: 0
/// and 0 nearest, 1 and 0 linear, 2 and 1 cubic; unbounded past an edge, where the taps clamp), a
/// range (base rises with o) that two binary searches find; weight_on adds an output's taps on i.
std::string gradient_functions(const InterpolateSyntax& s) {
  const std::string_view word = s.word_type();
  const std::string_view i32 = s.int_type();
  const std::string_view a = s.sum_type();
  std::string text =
      "\n// The first output index along dim a whose base is at least key (the extent if none).\n" +
      s.function(i32, "first_reaching", {{word, "a"}, {i32, "key"}}) + " {\n";
  text += "  " + s.variable(i32, "low", "0") + ";\n";
  text += "  " + s.variable(i32, "high", std::string(i32) + "(p[5u + a])") + ";\n";
  text += "  while (low < high) {\n    " + s.constant(i32, "middle", "(low + high) / 2") + ";\n";
  text += "    " + s.headed("if (base_of(a, middle) < key)", "low = middle + 1;") + " " +
          s.headed("else", "high = middle;") + "\n  }\n  return low;\n}\n";
  text += "// The output indices [x, y) that read input index i along dim a.\n" +
          s.function(s.int_pair_type(), "readers", {{word, "a"}, {i32, "i"}}) + " {\n";
  text += constants(s, "  ", word, {{"mode", "p[8u + a]"}});
  text += constants(
      s, "  ", i32,
      {{"below", std::string(i32) + "(mode)"}, {"above", s.select("0", "1", "mode == 2u")}});
  text += s.edge_bound("first", "0", "0", "first_reaching(a, i - below)");
  text += s.edge_bound("end", std::string(i32) + "(p[2u + a]) - 1",
                       std::string(i32) + "(p[5u + a])", "first_reaching(a, i + above + 1)");
  text += "  return " + std::string(s.int_pair_type()) + "(first, end);\n}\n";
  text +=
      "// The weight of output index o on input index i along dim a: its taps' there, added.\n" +
      s.function(a, "weight_on", {{word, "a"}, {i32, "o"}, {i32, "i"}}) + " {\n";
  text += "  " + s.indexable("Taps", "t", "taps(a, o)") + ";\n";
  text += "  " + s.variable(a, "w", s.sum_zero()) + ";\n";
  text += s.loop_over("  ", for_loop(s.variable(i32, "j", "0"), "j < t.count", s.increment("j")),
                      s.headed("if (t.index[j] == i)", "w += " + s.summed("t.weight[j]") + ";"));
  return text + "  return w;\n}\n";
}

/// value(e) of the gradient: the gradients of the outputs reading input element e, weighed and
/// added.
std::string gradient_value(const InterpolateSyntax& s, const std::string& input,
                           const std::string& output) {
  const std::string_view word = s.word_type();
  const std::string_view a = s.sum_type();
  const std::string i32 = std::string(s.int_type());
  std::string text = s.value_head() + s.located("i", "2u", "5u");
  text += constants(
      s, "  ", s.int_pair_type(),
      {{"ra", "readers(0u, i.x)"}, {"rb", "readers(1u, i.y)"}, {"rc", "readers(2u, i.z)"}});
  text += s.gradient_sum_start();
  const auto ranged = [&s](const std::string& name, const std::string& range) {
    return for_loop(s.variable(s.int_type(), name, range + ".x"), name + " < " + range + ".y",
                    s.increment(name));
  };
  const std::string outer_lines = "    " + s.constant(a, "wa", "weight_on(0u, oa, i.x)") + ";\n";
  const std::string middle_lines =
      "      " + s.constant(a, "wab", "wa * weight_on(1u, ob, i.y)") + ";\n      " +
      s.constant(
          word, "row",
          "base + " + std::string(word) + "((oa * " + i32 + "(p[6]) + ob) * " + i32 + "(p[7]))") +
      ";\n";
  text += nested_loops(s, ranged("oa", "ra"), outer_lines, ranged("ob", "rb"), middle_lines,
                       ranged("oc", "rc"),
                       s.gradient_add("wab * weight_on(2u, oc, i.z) * " +
                                      s.input_term(input, "row + " + std::string(word) + "(oc)")));
  return text + s.value_end(output, s.gradient_sum());
}

}  // namespace interpolate_text

std::string InterpolateSyntax::forward(DType dtype) const {
  return prelude(dtype, "x", "y") + interpolate_text::taps_text(*this) +
         interpolate_text::forward_value(*this, "x", "y") + epilogue(dtype);
}

std::string InterpolateSyntax::gradient(DType dtype) const {
  return prelude(dtype, "dy", "dx") + interpolate_text::taps_text(*this) + sum_helper() +
         interpolate_text::gradient_functions(*this) + gradient_gap() +
         interpolate_text::gradient_value(*this, "dy", "dx") + epilogue(dtype);
}

}  // namespace ember::shader
