// The row kernels' text (row_text.h), in the spelling of a RowSyntax.
#include "backends/shader/row_text.h"

#include <cstdint>
#include <string>
#include <string_view>

#include "backends/shader/row_passes.h"

namespace ember::shader {
// The kernels' helpers, named apart from the other kernels' (unity builds join the files).
namespace row_text {

using Term = RowSyntax::Term;

/// The test of flag's bit in the flags word p[3].
std::string flag_test(uint32_t flag) {
  return "(p[3] & " + std::to_string(flag) + "u) != 0u";
}

/// The f32 literals 0 and 1, and n (the row's length) as an f32.
std::string zero(const RowSyntax& s) {
  return s.float_literal("0.0");
}
std::string one(const RowSyntax& s) {
  return s.float_literal("1.0");
}
std::string length(const RowSyntax& s) {
  return std::string(s.float_type()) + "(n)";
}

/// The weight of the element at index (1 without a weight), as an expression of its own and as a
/// term of a larger one.
std::string weight(const RowSyntax& s, const std::string& index) {
  return s.select(one(s), "w[" + index + "]", "weighted");
}
std::string weight_term(const RowSyntax& s, const std::string& index) {
  return s.select_term(one(s), "w[" + index + "]", "weighted");
}

/// The vector of first and three zeros.
std::string vector_of(const RowSyntax& s, const std::string& first) {
  const std::string rest = ", " + zero(s);
  return std::string(s.vector_type()) + "(" + first + rest + rest + rest + ")";
}

/// The line declaring the vector s of sums, zero.
std::string sums_line(const RowSyntax& s) {
  return "    " +
         s.variable(s.vector_type(), "s", std::string(s.vector_type()) + "(" + zero(s) + ")") +
         ";\n";
}

/// The line summing the vector s over the workgroup.
std::string tree_sum_line(const RowSyntax& s) {
  return "    s = " + s.tree_call("tree_sum", "s") + ";\n";
}

/// The head of the loop over a row's elements k, every invocation of the workgroup one a turn.
std::string elements_loop(const RowSyntax& s) {
  return for_loop(s.variable(s.word_type(), "k", "id"), "k < n",
                  "k += " + std::to_string(kRowWorkgroup) + "u");
}

/// The line of the head of the loop over the rows (lanes) name, one workgroup a row a turn.
std::string rows_loop(const RowSyntax& s, const std::string& name) {
  return "  " +
         for_loop(s.variable(s.word_type(), name, s.workgroup()), name + " < p[0]",
                  name + " += " + s.workgroups()) +
         " {\n";
}

/// The line of the first element of row r.
std::string first_line(const RowSyntax& s) {
  return constants(s, "    ", s.word_type(), {{"first", "r * n"}});
}

/// The line of the label smoothing, p[4]'s f32.
std::string smoothing_line(const RowSyntax& s) {
  return constants(s, "  ", s.float_type(), {{"smoothing", s.float_of_bits("p[4]")}});
}

/// The tree's function name over the workgroup: each invocation's v (of type, at
/// part[id] + component) combined by combine (a statement over part[id] and part[id + half_size])
/// in halving steps, the result in every invocation.
std::string tree(const RowSyntax& s, std::string_view type, const std::string& name,
                 const std::string& component, const std::string& combine) {
  const std::string barrier = s.barrier() + ";\n";
  std::string text = s.tree_function(type, name) + "  part[id]" + component + " = v;\n  " + barrier;
  text += "  " +
          for_loop(s.variable(s.word_type(), "half_size", std::to_string(kRowWorkgroup / 2) + "u"),
                   "half_size > 0u", s.halve("half_size")) +
          " {\n";
  text += "    " + s.if_then("id < half_size", combine) + "\n    " + barrier + "  }\n";
  return text + "  " + s.constant(type, "result", "part[0]" + component) + ";\n  " + barrier +
         "  return result;\n}\n";
}

/// The workgroup's trees: a sum of vectors, and a maximum where a NaN wins (as ndarray's).
std::string trees(const RowSyntax& s) {
  const std::string_view f32 = s.float_type();
  const std::string larger =
      s.function(f32, "larger", {{f32, "a"}, {f32, "b"}}) + " { return " +
      s.select("b", "a",
               s.is_nan("is_nan", "a") + " || (!" + s.is_nan("is_nan", "b") + " && a >= b)") +
      "; }\n";
  return s.shared_array(s.vector_type(), "part", kRowWorkgroup) + s.nan_function("is_nan") +
         larger + tree(s, s.vector_type(), "tree_sum", "", "part[id] += part[id + half_size];") +
         tree(s, f32, "tree_max", ".x", "part[id].x = larger(part[id].x, part[id + half_size].x);");
}

/// Row r's target: its class in [0, n), -1 for ignore_index, -2 for any other value.
std::string target_of(const RowSyntax& s) {
  const std::string_view word = s.word_type();
  const std::string signed_low = std::string(s.int_type()) + "(low)";
  const std::string high = s.select(s.select_term("0u", "0xffffffffu", signed_low + " < 0"),
                                    "t[r * words + 1u]", "words == 2u");
  std::string text = s.function(s.int_type(), "target_of", {{word, "r"}}) + " {\n";
  text += constants(s, "  ", word, {{"words", "p[7]"}, {"low", "t[r * words]"}, {"high", high}});
  text += "  " + s.if_then("low == p[5] && high == p[6]", "return -1;") + "\n";
  return text + "  return " + s.select("-2", signed_low, "high == 0u && low < p[1]") + ";\n}\n";
}

/// The start of every kernel's main: the parameter words it reads by name.
std::string main_start(const RowSyntax& s) {
  const std::string parameters = constants(s, "  ", s.word_type(), {{"n", "p[1]"}}) +
                                 constants(s, "  ", "bool",
                                           {{"weighted", flag_test(kRowFlagWeight)},
                                            {"biased", flag_test(kRowFlagBias)},
                                            {"rms", flag_test(kRowFlagRms)}});
  return s.main_start(constants(s, "  ", s.word_type(), {{"id", s.local_invocation()}}),
                      parameters);
}

/// mean and variance from sums shifted by the row's first element (no mean for rms; no shift by
/// an infinity, which would make the mean of a row of them NaN rather than ndarray's infinity).
std::string layer_norm(const RowSyntax& s) {
  const std::string_view f32 = s.float_type();
  const Term infinite = s.term("    ", "bool", "first_is_inf", s.is_inf("x[first]"));
  std::string text = rows_loop(s, "r") + first_line(s) + infinite.lines;
  text += constants(s, "    ", f32,
                    {{"shift", s.select("x[first]", zero(s), "rms || " + infinite.expression)}});
  text += sums_line(s) + "    " + elements_loop(s) + " {\n";
  text += constants(s, "      ", f32, {{"d", "x[first + k] - shift"}});
  text += "      " + s.add_to_vector("s", {"d", "d * d"}) + ";\n    }\n" + tree_sum_line(s);
  text += constants(s, "    ", f32,
                    {{"shifted_mean", s.select("s.x / " + length(s), zero(s), "rms")},
                     {"m", "shift + shifted_mean"},
                     {"variance", "s.y / " + length(s) + " - shifted_mean * shifted_mean"},
                     {"rstd", one(s) + " / sqrt(variance + " + s.float_of_bits("p[4]") + ")"}});
  const Term scaled =
      s.term("      ", f32, "scaled", "(x[first + k] - m) * rstd * " + weight_term(s, "k"));
  text += s.loop_over("    ", elements_loop(s),
                      scaled.lines + "      y[first + k] = " + scaled.expression + " + " +
                          s.select_term(zero(s), "b[k]", "biased") + ";\n");
  text += "    if (id == 0u) {\n      " + s.if_then("!rms", "mean[r] = m;") + "\n";
  return text + "      rstd_out[r] = rstd;\n    }\n  }\n}\n";
}

/// dx = rstd (g - mean(g) - xhat mean(g xhat)), g = grad_y weight (no mean(g) for rms).
std::string layer_norm_grad_rows(const RowSyntax& s) {
  const std::string_view f32 = s.float_type();
  const std::string g =
      constants(s, "      ", f32, {{"g", "dy[first + k] * " + weight_term(s, "k")}});
  std::string text = rows_loop(s, "r") + first_line(s);
  text +=
      constants(s, "    ", f32, {{"m", s.select("mean[r]", zero(s), "rms")}, {"rs", "rstd[r]"}});
  text += sums_line(s) + "    " + elements_loop(s) + " {\n" + g;
  text += "      " + s.add_to_vector("s", {"g", "g * (x[first + k] - m) * rs"}) + ";\n    }\n";
  text += tree_sum_line(s);
  text += constants(s, "    ", f32,
                    {{"g_mean", s.select("s.x / " + length(s), zero(s), "rms")},
                     {"g_xhat_mean", "s.y / " + length(s)}});
  text += "    " + elements_loop(s) + " {\n" + g;
  return text +
         "      dx[first + k] = rs * (g - g_mean - (x[first + k] - m) * rs * g_xhat_mean);\n" +
         "    }\n  }\n}\n";
}

/// One invocation a column: the sums over rows of grad_y xhat and of grad_y.
std::string layer_norm_grad_columns(const RowSyntax& s) {
  const std::string_view word = s.word_type();
  std::string text = constants(s, "  ", word, {{"rows", "p[0]"}});
  text += "  " +
          for_loop(s.variable(word, "c", s.invocation()), "c < n", "c += " + s.invocations()) +
          " {\n";
  text += "    " + s.variable(s.float_type(), "dw_sum", zero(s)) + ";\n";
  text += "    " + s.variable(s.float_type(), "db_sum", zero(s)) + ";\n";
  text += "    " + for_loop(s.variable(word, "r", "0u"), "r < rows", s.increment("r")) + " {\n";
  text += constants(s, "      ", s.float_type(), {{"g", "dy[r * n + c]"}});
  text += "      dw_sum += g * (x[r * n + c] - " + s.select_term("mean[r]", zero(s), "rms") +
          ") * rstd[r];\n      db_sum += g;\n    }\n";
  text += "    " +
          s.if_then(s.column_flag("weighted", flag_test(kRowFlagWeight)), "dw[c] = dw_sum;") + "\n";
  text += "    " + s.if_then(s.column_flag("biased", flag_test(kRowFlagBias)), "db[c] = db_sum;") +
          "\n";
  return text + "  }\n}\n";
}

/// The lines (at indent) of the row's target c, and of bad[0] set where test holds (c is -2:
/// neither a class nor ignored; one invocation's test where the whole workgroup knows c).
std::string target_lines(const RowSyntax& s, const std::string& indent, const std::string& test) {
  return constants(s, indent, s.int_type(), {{"c", "target_of(r)"}}) + indent +
         s.if_then(test, "bad[0] = 1u;") + "\n";
}

/// lse = m + log sum exp(x - m) (-inf for a row of -inf); the smoothing's sum_c w_c (lse - x_c)
/// as W log(sum) - sum_c w_c (x_c - m).
std::string cross_entropy(const RowSyntax& s) {
  const std::string_view f32 = s.float_type();
  std::string text = smoothing_line(s) + rows_loop(s, "r") + first_line(s);
  text += "    " + s.variable(f32, "m", s.float_of_bits("0xff800000u")) + ";\n";
  text += "    " + s.headed(elements_loop(s), "m = larger(m, x[first + k]);") + "\n";
  text += "    m = " + s.tree_call("tree_max", "m") + ";\n" + sums_line(s);
  text += "    " + elements_loop(s) + " {\n";
  text += constants(s, "      ", f32, {{"shifted", "x[first + k] - m"}, {"wk", weight(s, "k")}});
  text += "      " + s.add_to_vector("s", {"exp(shifted)", "wk * shifted", "wk"}) + ";\n    }\n";
  text += tree_sum_line(s) + "    if (id == 0u) {\n";
  text += constants(
      s, "      ", f32,
      {{"log_sum", "log(s.x)"}, {"l", s.select("m + log_sum", "m", s.is_negative_infinity("m"))}});
  text += "      lse[r] = l;\n" + target_lines(s, "      ", "c == -2");
  text += "      " + s.variable(f32, "value", zero(s)) + ";\n      if (c >= 0) {\n";
  text += "        value = (" + one(s) + " - smoothing) * " + weight_term(s, s.class_index("c")) +
          " * (l - x[first + " + std::string(s.word_type()) + "(c)]);\n";
  text += "        " +
          s.if_then("smoothing != " + zero(s),
                    "value += smoothing / " + length(s) + " * (s.z * log_sum - s.y);") +
          "\n";
  return text + "      }\n      loss[r] = value;\n    }\n  }\n}\n";
}

/// grad_loss ((1 - s) w[t] (p - onehot(t)) + s / C (W p - w)), p = exp(x - lse); 0 for an
/// ignored row.
std::string cross_entropy_grad(const RowSyntax& s) {
  const std::string_view f32 = s.float_type();
  std::string text = smoothing_line(s) + rows_loop(s, "r") + first_line(s);
  text += "    " + s.variable(f32, "w_share", zero(s)) + ";\n";
  text += "    " + s.headed(elements_loop(s), "w_share += " + weight(s, "k") + ";") + "\n";
  text += constants(s, "    ", f32,
                    {{"w_sum", s.tree_call("tree_sum", vector_of(s, "w_share")) + ".x"}});
  text += target_lines(s, "    ", "c == -2 && id == 0u");
  const Term target_weight =
      s.term("    ", f32, "target_weight", weight_term(s, s.eager_index("c")));
  text +=
      target_weight.lines +
      constants(s, "    ", f32,
                {{"picked",
                  s.select(zero(s), "(" + one(s) + " - smoothing) * " + target_weight.expression,
                           "c >= 0")},
                 {"per_class", "smoothing / " + length(s)},
                 {"l", "lse[r]"},
                 {"g", "grad[r]"}});
  text += "    " + elements_loop(s) + " {\n";
  text += constants(s, "      ", f32, {{"prob", "exp(x[first + k] - l)"}});
  // d's second line lines up with its value's first.
  const std::string d = "      " + s.constant(f32, "d", "");
  text += d + "picked * (prob - " +
          s.select_term(zero(s), one(s), std::string(s.int_type()) + "(k) == c") + ") +\n";
  text +=
      std::string(d.size(), ' ') + "per_class * (w_sum * prob - " + weight_term(s, "k") + ");\n";
  text += "      dx[first + k] = " + s.select(zero(s), "g * d", "c >= 0") + ";\n";
  return text + "    }\n  }\n}\n";
}

/// y (grad_y - sum(grad_y y)), or grad_y - exp(y) sum(grad_y) for log-softmax, along lanes
/// strided by inner.
std::string softmax_grad(const RowSyntax& s) {
  const std::string_view word = s.word_type();
  std::string text = constants(s, "  ", word, {{"inner", "p[2]"}}) +
                     constants(s, "  ", "bool", {{"log_softmax", flag_test(kRowFlagLog)}});
  text += rows_loop(s, "lane");
  text += constants(s, "    ", word,
                    {{"row", "lane / inner"}, {"first", "row * n * inner + (lane - row * inner)"}});
  text += "    " + s.variable(s.float_type(), "share", zero(s)) + ";\n";
  const Term at = s.term("      ", word, "at", "first + k * inner");
  const std::string dy = "dy[" + at.expression + "]";
  text += s.loop_over("    ", elements_loop(s),
                      at.lines + "      share += " +
                          s.select(dy + " * y[" + at.expression + "]", dy, "log_softmax") + ";\n");
  text += constants(s, "    ", s.float_type(),
                    {{"sum", s.tree_call("tree_sum", vector_of(s, "share")) + ".x"}});
  text += "    " + elements_loop(s) + " {\n" +
          constants(s, "      ", word, {{"at", "first + k * inner"}});
  text += "      dx[at] = " +
          s.select("y[at] * (dy[at] - sum)", "dy[at] - exp(y[at]) * sum", "log_softmax") + ";\n";
  return text + "    }\n  }\n}\n";
}

}  // namespace row_text

RowSources row_sources_of(const RowSyntax& syntax) {
  return {syntax.header(),
          row_text::trees(syntax),
          row_text::target_of(syntax),
          row_text::main_start(syntax),
          {row_text::layer_norm(syntax), row_text::layer_norm_grad_rows(syntax),
           row_text::layer_norm_grad_columns(syntax), row_text::cross_entropy(syntax),
           row_text::cross_entropy_grad(syntax), row_text::softmax_grad(syntax)}};
}

}  // namespace ember::shader
