// The convolution and pooling kernels' text (conv_pool_text.h), in the spelling of a
// ConvPoolSyntax.
#include "backends/shader/conv_pool_text.h"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backends/shader/conv_pool_kernels.h"
#include "backends/shader/kernel_syntax.h"

namespace ember::shader {
// The kernels' helpers, named apart from the other kernels' (unity builds join the files).
namespace conv_pool_text {

using Access = ConvPoolSyntax::Access;

/// value as an i32, and as a word.
std::string int_of(const ConvPoolSyntax& s, const std::string& value) {
  return std::string(s.int_type()) + "(" + value + ")";
}
std::string word_of(const ConvPoolSyntax& s, const std::string& value) {
  return std::string(s.word_type()) + "(" + value + ")";
}

/// The line (at 2 spaces' indent) naming the constant name, of type, as value.
std::string constant_line(const ConvPoolSyntax& s, std::string_view type, const std::string& name,
                          const std::string& value) {
  return "  " + s.constant(type, name, value) + ";\n";
}

/// head (from column, where its line's indent ends), then pieces joined by separator, then tail,
/// broken after a separator where a line would pass kConvPoolColumns, each following line lined up
/// under the first piece (as clang-format wrapped the sources).
std::string packed(std::size_t column, const std::string& head,
                   const std::vector<std::string>& pieces, const std::string& separator,
                   const std::string& tail) {
  const std::string trimmed = separator.substr(0, separator.find_last_not_of(' ') + 1);
  std::string text = head + pieces.front();
  std::size_t line_start = 0;
  std::size_t line_column = column;
  for (std::size_t i = 1; i < pieces.size(); ++i) {
    const std::string& end = i + 1 == pieces.size() ? tail : trimmed;
    if (line_column + text.size() - line_start + separator.size() + pieces[i].size() + end.size() <=
        kConvPoolColumns) {
      text += separator + pieces[i];
      continue;
    }
    text += trimmed + "\n";
    line_start = text.size();
    line_column = 0;
    text += std::string(column + head.size(), ' ') + pieces[i];
  }
  return text + tail;
}

/// The head of the constant name's declaration, of type, whose value follows on the next line.
std::string wrapped_constant(const ConvPoolSyntax& s, std::string_view type,
                             const std::string& name) {
  const std::string head = s.constant(type, name, "");
  return head.substr(0, head.size() - 1) + "\n";
}

/// A storage buffer at binding, its block named by the binding, of tensors of type.
std::string tensor_buffer(const ConvPoolSyntax& s, int binding, const std::string& name,
                          std::string_view type, Access access) {
  return s.buffer(binding, "B" + std::to_string(binding), name, type, access);
}

// Conv (words: conv_passes.h). tap() is ndarray's conv_plan.h: along dim a, output o meets input
// i = o s - p + k d (transposed: o = i s - p + k d, i = (o + p - k d) / s where exact).

/// The geometry's variables and load_geometry, which reads them from the parameters once.
std::string geometry(const ConvPoolSyntax& s) {
  const std::string vector = s.int_vector_type(3);
  std::string text =
      "\n// The geometry, read from the parameters once (load_geometry) rather than at every "
      "tap.\n" +
      s.private_variables(vector, {"stride_of", "padding_of", "dilation_of", "extent_of"}) +
      s.private_variables("bool", {"transposed_conv"}) + s.function("", "load_geometry", {}) +
      " {\n";
  text += "  stride_of = " + s.int_vector_of_words("p[15]", "p[16]", "p[17]") + ";\n";
  text += "  padding_of = " + s.int_vector_of_words("p[18]", "p[19]", "p[20]") + ";\n";
  text += "  dilation_of = " + s.int_vector_of_words("p[21]", "p[22]", "p[23]") + ";\n";
  text += "  extent_of = " + s.int_vector_of_words("p[6]", "p[7]", "p[8]") + ";\n";
  return text + "  transposed_conv = p[1] != 0u;\n}\n";
}

/// tap(a, o, k): the input position output o meets at kernel position k along dim a, or -1.
std::string tap_function(const ConvPoolSyntax& s) {
  const std::string_view i32 = s.int_type();
  std::string text = s.function(i32, "tap", {{s.word_type(), "a"}, {i32, "o"}, {i32, "k"}}) +
                     " {\n" +
                     constants(s, "  ", i32,
                               {{"stride", "stride_of[a]"},
                                {"padding", "padding_of[a]"},
                                {"dilation", "dilation_of[a]"},
                                {"extent", "extent_of[a]"}}) +
                     "  if (!transposed_conv) {\n";
  text += constants(s, "    ", i32, {{"i", "o * stride - padding + k * dilation"}});
  text += "    return " + s.select("-1", "i", "i >= 0 && i < extent") + ";\n  }\n";
  text += constant_line(s, i32, "shifted", "o - k * dilation + padding");
  text += "  " +
          s.if_then("shifted < 0 || shifted % stride != 0 || shifted / stride >= extent",
                    "return -1;") +
          "\n";
  return text + "  return shifted / stride;\n}\n";
}

/// Terms and terms_of(n, g, oc).
std::string terms_function(const ConvPoolSyntax& s) {
  const std::string_view word = s.word_type();
  std::string text =
      "// Where the terms of output channel oc of group g of sample n start: x0 in x (then "
      "in_volume on\n// for each input channel), w0 in the weight (then w_step on).\n" +
      s.structure("Terms", {{word, "x0"}, {word, "in_volume"}, {word, "w0"}, {word, "w_step"}},
                  true) +
      s.function("Terms", "terms_of", {{word, "n"}, {word, "g"}, {word, "oc"}}) + " {\n";
  text += constants(s, "  ", word,
                    {{"ipg", "p[4]"},
                     {"opg", "p[5]"},
                     {"in_volume", "p[6] * p[7] * p[8]"},
                     {"kernel_volume", "p[12] * p[13] * p[14]"},
                     {"x0", "(n * p[3] + g) * ipg * in_volume"}});
  text +=
      "  // weight [C_out, C_in / groups, *kernel]; transposed [C_in, C_out / groups, *kernel]\n";
  text += s.guarded(
      "  ", "transposed_conv",
      "return Terms(x0, in_volume, (g * ipg * opg + oc) * kernel_volume, opg * kernel_volume);");
  return text +
         "  return Terms(x0, in_volume, (g * opg + oc) * ipg * kernel_volume, kernel_volume);\n}\n";
}

/// Every Conv kernel's bindings and helpers.
std::string conv_common(const ConvPoolSyntax& s, DType dtype, bool bias, bool tiled) {
  const std::string type = s.tensor_type(dtype);
  std::string text = s.header(dtype, false, tiled) + tensor_buffer(s, 1, "x", type, Access::Read) +
                     tensor_buffer(s, 2, "w", type, Access::Read);
  if (bias) text += s.flag("BIAS") + tensor_buffer(s, 3, "b", type, Access::Read);
  return text + tensor_buffer(s, bias ? 4 : 3, "y", type, Access::Write) + geometry(s) +
         tap_function(s) + terms_function(s) + s.store_function();
}

/// The direct kernel's loop (at indent) over kernel position k along dim (axis x, y or z), whose
/// input position i it skips where outside x.
std::string tap_loop(const ConvPoolSyntax& s, const std::string& indent, const std::string& k,
                     const std::string& i, char axis, int dim) {
  const std::string kernel = std::string("kernel.") + axis;
  return indent + for_loop(s.variable(s.int_type(), k, "0"), k + " < " + kernel, s.increment(k)) +
         " {\n" + indent + "  " +
         s.constant(s.int_type(), i,
                    "tap(" + std::to_string(dim) + "u, o." + axis + ", " + k + ")") +
         ";\n" + indent + "  " + s.if_then(i + " < 0", "continue;") + "\n";
}

/// The direct Conv kernel: an invocation an output element.
std::string direct_conv(const ConvPoolSyntax& s, DType dtype, bool bias) {
  const std::string_view word = s.word_type();
  const std::string groups = s.group_count();
  std::string text = conv_common(s, dtype, bias, false) + s.section_break() + s.entry("256") +
                     constant_line(s, word, "e", s.element_index()) + "  " +
                     s.if_then("e >= p[0]", "return;") + "\n  load_geometry();\n" +
                     s.split("e", "9u", "o", "t", true);
  text += constants(s, "  ", word,
                    {{groups, "p[3]"},
                     {"ipg", "p[4]"},
                     {"opg", "p[5]"},
                     {"c", "t % (" + groups + " * opg)"},
                     {"n", "t / (" + groups + " * opg)"},
                     {"g", "c / opg"},
                     {"oc", "c - g * opg"}});
  text += constant_line(s, "Terms", "terms", "terms_of(n, g, oc)") +
          constant_line(s, s.int_vector_type(3), "kernel",
                        s.int_vector_of_words("p[12]", "p[13]", "p[14]")) +
          "  " + s.variable(s.accumulator_type(), "acc", s.zero(s.accumulator_type())) + ";\n";
  text += tap_loop(s, "  ", "kd", "id", 'x', 0) + tap_loop(s, "    ", "kh", "ih", 'y', 1) +
          tap_loop(s, "      ", "kw", "iw", 'z', 2);
  text +=
      "        " +
      s.variable(word, "xi",
                 "terms.x0 + " + word_of(s, "(id * extent_of.y + ih) * extent_of.z + iw")) +
      ";\n        " +
      s.variable(word, "wi", "terms.w0 + " + word_of(s, "(kd * kernel.y + kh) * kernel.z + kw")) +
      ";\n";
  text +=
      "        " + for_loop(s.variable(word, "ic", "0u"), "ic < ipg", s.increment("ic")) + " {\n";
  const std::string_view a = s.accumulator_type();
  text += "          acc = fma(" + s.converted(a, "x[xi]") + ", " + s.converted(a, "w[wi]") +
          ", acc);\n          xi += terms.in_volume;\n          wi += terms.w_step;\n";
  return text + "        }\n      }\n    }\n  }\n" + s.store("", bias);
}

/// The tap (at) of the tiled kernel's invocation's position at kernel position k, if inside x.
std::string tiled_tap(const ConvPoolSyntax& s) {
  const std::string_view i32 = s.int_type();
  std::string text =
      "    // The tap of this invocation's position (its column's) at kernel position k, if inside "
      "x.\n    " +
      s.variable(i32, "at", "-1") + ";\n    if (position < positions) {\n";
  text += constants(s, "      ", i32,
                    {{"id", "tap(0u, o.x, " + int_of(s, "k / kh_kw") + ")"},
                     {"ih", "tap(1u, o.y, " + int_of(s, "k / p[14] % p[13]") + ")"},
                     {"iw", "tap(2u, o.z, " + int_of(s, "k % p[14]") + ")"}});
  const std::string at =
      "(" + word_of(s, "id") + " * p[7] + " + word_of(s, "ih") + ") * p[8] + " + word_of(s, "iw");
  return text + "      " +
         s.if_then("id >= 0 && ih >= 0 && iw >= 0", "at = " + int_of(s, at) + ";") + "\n    }\n";
}

/// The tiled kernel's steps over the input channels 16 at a time, staged through the tiles.
std::string tiled_steps(const ConvPoolSyntax& s) {
  const std::string_view word = s.word_type();
  std::string text =
      "    " + for_loop(s.variable(word, "c0", "0u"), "c0 < ipg", "c0 += 16u") + " {\n" +
      s.staged("weight_tile[ly][lx]", "weight", "oc < opg && c0 + lx < ipg",
               "w[terms.w0 + (c0 + lx) * terms.w_step + k]") +
      s.staged("patch_tile[ly][lx]", "gathered", "at >= 0 && c0 + ly < ipg",
               "x[terms.x0 + (c0 + ly) * terms.in_volume + " + word_of(s, "at") + "]");
  text += s.shared_barrier("      ") + "      if (at >= 0) {\n" +
          constants(s, "        ", word, {{"steps", "min(16u, ipg - c0)"}}) + "        " +
          s.headed(for_loop(s.variable(word, "j", "0u"), "j < steps", s.increment("j")),
                   "acc = fma(weight_tile[ly][j], patch_tile[j][lx], acc);") +
          "\n      }\n";
  return text + s.shared_barrier("      ") + "    }\n";
}

/// The tiled Conv kernel: a workgroup of 16 x 16 writes 16 output channels (rows, y) of a group at
/// 16 output positions (columns, x). For each kernel position, each invocation finds its column's
/// tap once (a tap in the padding is skipped, as ndarray skips it, not multiplied by 0); then the
/// weight's and the gathered patch's terms of 16 input channels at a time are staged through
/// shared memory.
std::string tiled_conv(const ConvPoolSyntax& s, DType dtype, bool bias) {
  const std::string_view word = s.word_type();
  const std::string groups = s.group_count();
  const std::pair<std::string, std::string> out_volume = {"out_volume", "p[9] * p[10] * p[11]"};
  std::string text = conv_common(s, dtype, bias, true) + s.section_break() +
                     s.shared_array("weight_tile", {16, 16}) +
                     s.shared_array("patch_tile", {16, 16}) + s.entry("16, 16");
  text += constants(s, "  ", word,
                    {{groups, "p[3]"},
                     {"ipg", "p[4]"},
                     {"opg", "p[5]"},
                     {"positions", "p[24]"},
                     {"position_tiles", "p[25]"},
                     {"channel_tiles", "p[26]"},
                     {"tile", s.workgroup_row() + " * " + s.workgroups() + " + " + s.workgroup()}});
  text += "  " + s.if_then("tile >= " + groups + " * channel_tiles * position_tiles", "return;") +
          "  // the whole workgroup\n  load_geometry();\n";
  text += constants(s, "  ", word,
                    {{"g", "tile / position_tiles / channel_tiles"},
                     {"lx", s.local_invocation()},
                     {"ly", s.local_row()},
                     {"oc", "(tile / position_tiles % channel_tiles) * 16u + ly"},
                     {"position", "tile % position_tiles * 16u + lx"}});
  text += s.split("position", "9u", "o", "n", true) +
          constant_line(s, "Terms", "terms", "terms_of(n, g, oc)");
  if (s.volume_first()) text += constants(s, "  ", word, {out_volume});
  text +=
      constants(s, "  ", word, {{"kh_kw", "p[13] * p[14]"}, {"kernel_volume", "p[12] * kh_kw"}});
  text += "  " + s.variable(s.accumulator_type(), "acc", s.zero(s.accumulator_type())) + ";\n  " +
          for_loop(s.variable(word, "k", "0u"), "k < kernel_volume", s.increment("k")) + " {\n" +
          tiled_tap(s) + tiled_steps(s) + "  }\n";
  text += "  " + s.if_then("oc >= opg || position >= positions", "return;") + "\n" +
          constant_line(s, word, "c", "g * opg + oc");
  if (!s.volume_first()) text += constants(s, "  ", word, {out_volume});
  return text +
         s.store("(n * " + groups + " * opg + c) * out_volume + position % out_volume", bias);
}

// ConvWeightGrad (words: conv_passes.h): a workgroup a weight element, its lanes each adding
// rows of (sample, near d, near h) along near w, then the lanes' sums in shared memory.

/// The weight gradient's words: its element's channels, kernel position and the geometry, near
/// (the output's positions; x's, transposed) and far.
std::string weight_grad_words(const ConvPoolSyntax& s) {
  const std::string_view word = s.word_type();
  const std::string vector = s.int_vector_type(3);
  std::string text = constant_line(s, "bool", "transposed", "p[1] != 0u") +
                     constants(s, "  ", word,
                               {{s.group_count(), "p[3]"},
                                {"ipg", "p[4]"},
                                {"opg", "p[5]"},
                                {"kh_kw", "p[13] * p[14]"},
                                {"kernel_volume", "p[12] * kh_kw"},
                                {"k", "wi % kernel_volume"},
                                {"pair", "wi / kernel_volume"}});
  text +=
      "  // weight [C_out, C_in / groups, *kernel]; transposed [C_in, C_out / groups, *kernel]\n";
  text += constants(s, "  ", word,
                    {{"second", s.select("ipg", "opg", "transposed")},
                     {"first", "pair / second"},
                     {"g", "first / " + s.select_term("opg", "ipg", "transposed")},
                     {"ic", s.select("pair % second", "first % ipg", "transposed")},
                     {"oc", s.select("first % opg", "pair % second", "transposed")}});
  text +=
      "  // Near position q meets far position q s - p + k d (ndarray's kernel_taps): far = near "
      "s + shift.\n" +
      constant_line(s, vector, "stride", s.int_vector_of_words("p[15]", "p[16]", "p[17]")) +
      constant_line(s, vector, "kernel",
                    vector + "(" + int_of(s, "k / kh_kw") + ", " + int_of(s, "k / p[14] % p[13]") +
                        ", " + int_of(s, "k % p[14]") + ")");
  text += packed(0, "  " + s.constant(vector, "shift", ""),
                 {"kernel * " + s.int_vector_of_words("p[21]", "p[22]", "p[23]"),
                  s.int_vector_of_words("p[18]", "p[19]", "p[20]")},
                 " - ", ";") +
          "\n";
  text += "  // The near side: the output's positions (x's, transposed); the far side the other.\n";
  text += constants(s, "  ", vector,
                    {{"in_extent", s.int_vector_of_words("p[6]", "p[7]", "p[8]")},
                     {"out_extent", s.int_vector_of_words("p[9]", "p[10]", "p[11]")},
                     {"near", s.select("out_extent", "in_extent", "transposed")},
                     {"far", s.select("in_extent", "out_extent", "transposed")}});
  return text +
         constants(s, "  ", word,
                   {{"in_volume", word_of(s, "in_extent.x * in_extent.y * in_extent.z")},
                    {"out_volume", word_of(s, "out_extent.x * out_extent.y * out_extent.z")}});
}

/// The weight gradient's lane's rows (sample, near d, near h), each walked along w.
std::string weight_grad_rows(const ConvPoolSyntax& s) {
  const std::string_view word = s.word_type();
  const std::string_view i32 = s.int_type();
  const std::string groups = s.group_count();
  const std::string_view a = s.accumulator_type();
  std::string text = "  // A lane takes rows (sample, near d, near h) and walks each along w.\n" +
                     constants(s, "  ", word,
                               {{"rows", "p[2] * " + word_of(s, "near.x * near.y")},
                                {"lane", s.local_invocation()}}) +
                     "  " + s.variable(a, "acc", s.zero(a)) + ";\n  " +
                     for_loop(s.variable(word, "r", "lane"), "r < rows", "r += 256u") + " {\n";
  text += "    " + s.constant(i32, "nh", int_of(s, "r % " + word_of(s, "near.y"))) + ";\n    " +
          s.constant(word, "t", "r / " + word_of(s, "near.y")) + ";\n    " +
          s.constant(i32, "nd", int_of(s, "t % " + word_of(s, "near.x"))) + ";\n    " +
          s.constant(word, "n", "t / " + word_of(s, "near.x")) + ";\n";
  text += constants(s, "    ", i32,
                    {{"fd", "nd * stride.x + shift.x"}, {"fh", "nh * stride.y + shift.y"}});
  text += "    " + s.if_then("fd < 0 || fd >= far.x || fh < 0 || fh >= far.y", "continue;") + "\n";
  text += constants(s, "    ", word,
                    {{"near_row", word_of(s, "(nd * near.y + nh) * near.z")},
                     {"far_row", word_of(s, "(fd * far.y + fh) * far.z")}});
  text += "    " + wrapped_constant(s, word, "x_row") + "        ((n * " + groups +
          " + g) * ipg + ic) * in_volume + " + s.select_term("far_row", "near_row", "transposed") +
          ";\n";
  text += "    " + wrapped_constant(s, word, "g_row") + "        ((n * " + groups +
          " + g) * opg + oc) * out_volume + " + s.select_term("near_row", "far_row", "transposed") +
          ";\n";
  text += "    " + for_loop(s.variable(i32, "nw", "0"), "nw < near.z", s.increment("nw")) + " {\n" +
          constants(s, "      ", i32, {{"fw", "nw * stride.z + shift.z"}}) + "      " +
          s.if_then("fw < 0 || fw >= far.z", "continue;") + "\n";
  text +=
      packed(0, "      acc = fma(",
             {s.converted(a, "x[x_row + " + word_of(s, s.select("fw", "nw", "transposed")) + "]"),
              s.converted(a, "dy[g_row + " + word_of(s, s.select("nw", "fw", "transposed")) + "]"),
              "acc"},
             ", ", ");") +
      "\n";
  return text + "    }\n  }\n";
}

/// ConvWeightGrad's kernel: the lanes' sums added in a tree over partial.
std::string conv_weight_grad(const ConvPoolSyntax& s, DType dtype) {
  const std::string type = s.tensor_type(dtype);
  const std::string_view word = s.word_type();
  std::string text =
      s.header(dtype, false, false) + tensor_buffer(s, 1, "x", type, Access::Read) +
      tensor_buffer(s, 2, "dy", type, Access::Read) +
      tensor_buffer(s, 3, "dw", type, Access::Write) + s.section_break() +
      s.shared_array("partial", {256}) + s.entry("256") +
      constant_line(s, word, "wi",
                    s.workgroup_row() + " * " + s.workgroups() + " + " + s.workgroup()) +
      "  " + s.if_then("wi >= p[0]", "return;") +
      "  // the whole workgroup: the barriers stay uniform\n";
  text += weight_grad_words(s) + weight_grad_rows(s) + "  partial[lane] = acc;\n" +
          s.shared_barrier("  ") + "  " +
          for_loop(s.variable(word, "s", "128u"), "s > 0u", s.halve("s")) + " {\n    " +
          s.if_then("lane < s", "partial[lane] += partial[lane + s];") + "\n" +
          s.shared_barrier("    ") + "  }\n";
  return text + "  " +
         s.if_then("lane == 0u", "dw[wi] = " + s.converted(s.value_type(), "partial[0]") + ";") +
         "\n}\n";
}

// The windows of pooling (words: pool_passes.h), as ndarray's pool_windows.cpp makes them.

/// Window and window(a, o): the window of output o along dim a.
std::string window_function(const ConvPoolSyntax& s) {
  const std::string_view i32 = s.int_type();
  std::string text =
      "\n" +
      s.structure("Window", {{i32, "first"}, {i32, "count"}, {i32, "padded"}, {i32, "step"}},
                  false) +
      s.function("Window", "window", {{s.word_type(), "a"}, {i32, "o"}}) + " {\n" +
      constant_line(s, i32, "extent", int_of(s, "p[5u + a]")) + "  if (p[1] != 0u) {\n";
  text += constants(s, "    ", i32,
                    {{"out_extent", int_of(s, "p[8u + a]")},
                     {"start", "o * extent / out_extent"},
                     {"end", "((o + 1) * extent + out_extent - 1) / out_extent"}});
  text += "    return Window(start, end - start, end - start, 1);\n  }\n";
  text += constants(s, "  ", i32,
                    {{"kernel", int_of(s, "p[11u + a]")},
                     {"stride", int_of(s, "p[14u + a]")},
                     {"padding", int_of(s, "p[17u + a]")},
                     {"dilation", int_of(s, "p[20u + a]")},
                     {"start", "o * stride - padding"},
                     {"skipped", s.select("0", "(dilation - 1 - start) / dilation", "start < 0")},
                     {"before_end", "(extent - start + dilation - 1) / dilation"}});
  return text +
         "  return Window(start + skipped * dilation, min(kernel, before_end) - skipped,\n"
         "                min(kernel, extent + padding - start), dilation);\n}\n";
}

/// divisor(a, b, c): what a window's average divides its sum by.
std::string divisor_function(const ConvPoolSyntax& s) {
  const std::string_view a = s.accumulator_type();
  const auto product = [&](const std::string& field) {
    const std::string type(a);
    return type + "(a." + field + ") * " + type + "(b." + field + ") * " + type + "(c." + field +
           ")";
  };
  return s.function(a, "divisor", {{"Window", "a"}, {"Window", "b"}, {"Window", "c"}}) + " {\n  " +
         s.if_then("p[3] != 0u", "return " + std::string(a) + "(p[3]);") + "\n  " +
         s.if_then("p[2] != 0u", "return " + product("padded") + ";") + "\n  return " +
         product("count") + ";\n}\n";
}

/// The windows, their divisor and WGSL's NaN test.
std::string windows(const ConvPoolSyntax& s) {
  return window_function(s) + divisor_function(s) + s.windows_nan_function();
}

/// The pool's loop over its window's elements, each v at position at of x.
std::string window_loop(const ConvPoolSyntax& s) {
  const std::string_view i32 = s.int_type();
  const std::string head = "    " + s.constant(i32, "at", "");
  std::string text =
      "  " +
      for_loop(s.variable(i32, "j", "0"), "j < a.count * b.count * c.count", s.increment("j")) +
      " {\n" +
      constants(s, "    ", i32,
                {{"i0", "j / (b.count * c.count)"},
                 {"i1", "j / c.count % b.count"},
                 {"i2", "j % c.count"}});
  text += head + "((a.first + i0 * a.step) * " + int_of(s, "p[6]") +
          " + b.first + i1 * b.step) * " + int_of(s, "p[7]") + " +\n" +
          std::string(head.size(), ' ') + "c.first + i2 * c.step;\n";
  return text + "    " + s.constant(s.value_type(), "v", "x[base + " + word_of(s, "at") + "]") +
         ";\n";
}

/// Pool and AdaptivePool: the first maximum (a NaN replaces any value) or the average of a window.
std::string pool(const ConvPoolSyntax& s, DType dtype, ir::PoolOp op) {
  const std::string type = s.tensor_type(dtype);
  const std::string_view word = s.word_type();
  const bool max = op == ir::PoolOp::Max;
  std::string text = s.header(dtype, true, false) + tensor_buffer(s, 1, "x", type, Access::Read) +
                     tensor_buffer(s, 2, "y", type, Access::Write);
  if (s.doubles()) text += s.flag("DOUBLES");
  if (max) text += s.flag("MAX") + tensor_buffer(s, 3, "index", word, Access::Write);
  text += windows(s) + s.section_break() + s.pool_nan_functions() + s.entry("256") +
          constant_line(s, word, "e", s.element_index()) + "  " +
          s.if_then("e >= p[0]", "return;") + "\n" + s.split("e", "8u", "o", "plane", false);
  const std::string position = s.split_position("o");
  text += constants(s, "  ", "Window",
                    {{"a", "window(0u, " + position + ".x)"},
                     {"b", "window(1u, " + position + ".y)"},
                     {"c", "window(2u, " + position + ".z)"}}) +
          constant_line(s, word, "base", "plane * p[5] * p[6] * p[7]");
  const std::string_view value = s.value_type();
  const std::string_view a = s.accumulator_type();
  text += "  " + s.variable(s.int_type(), "best", "-1") + ";\n  " +
          s.variable(value, "best_value", s.zero(value)) + ";\n  " +
          s.variable(a, "sum", s.zero(a)) + ";\n" + window_loop(s);
  text += s.either(max,
                   "    if (best < 0 || is_nan(v) || v > best_value) {\n      best = at;\n"
                   "      best_value = v;\n    }\n",
                   "    sum += " + s.converted(a, "v") + ";\n") +
          "  }\n";
  const std::string best = word_of(s, "best");
  return text +
         s.either(max,
                  "  y[e] = best_value;\n  if (p[4] == 2u) {\n    index[2u * e] = " + best +
                      ";\n    index[2u * e + 1u] = 0u;\n  } else {\n    index[e] = " + best +
                      ";\n  }\n",
                  "  y[e] = " + s.converted(value, "sum / divisor(a, b, c)") + ";\n") +
         "}\n";
}

/// candidates(a, i): the first and last outputs along dim a whose windows may hold input i.
std::string candidates_function(const ConvPoolSyntax& s) {
  const std::string_view i32 = s.int_type();
  const std::string pair = s.int_vector_type(2);
  std::string text =
      "\n" + s.function(pair, "candidates", {{s.word_type(), "a"}, {i32, "i"}}) + " {\n" +
      constants(s, "  ", i32,
                {{"extent", int_of(s, "p[5u + a]")}, {"out_extent", int_of(s, "p[8u + a]")}});
  text += s.guarded("  ", "p[1] != 0u",
                    packed(4, "return " + pair + "(",
                           {"i * out_extent / extent",
                            "min(out_extent - 1, ((i + 1) * out_extent - 1) / extent)"},
                           ", ", ");"));
  text += constants(s, "  ", i32,
                    {{"padding", int_of(s, "p[17u + a]")},
                     {"stride", int_of(s, "p[14u + a]")},
                     {"reach", "i + padding - (" + int_of(s, "p[11u + a]") + " - 1) * " +
                                   int_of(s, "p[20u + a]")},
                     {"first", s.select("(reach + stride - 1) / stride", "0", "reach <= 0")}});
  return text + "  return " + pair + "(first, min(out_extent - 1, (i + padding) / stride));\n}\n";
}

/// holds(w, i): whether window w holds input position i.
std::string holds_function(const ConvPoolSyntax& s) {
  const std::string_view i32 = s.int_type();
  return s.function("bool", "holds", {{"Window", "w"}, {i32, "i"}}) + " {\n" +
         constant_line(s, i32, "offset", "i - w.first") +
         "  return offset >= 0 && offset % w.step == 0 && offset / w.step < w.count;\n}\n";
}

/// AvgPoolGrad and AdaptiveAvgPoolGrad: an input element gathers the shares of the windows that
/// hold it, in their row-major order.
std::string avg_pool_grad(const ConvPoolSyntax& s, DType dtype) {
  const std::string type = s.tensor_type(dtype);
  const std::string_view word = s.word_type();
  const std::string_view i32 = s.int_type();
  const std::string_view a = s.accumulator_type();
  std::string text =
      s.header(dtype, true, false) + tensor_buffer(s, 1, "dy", type, Access::Read) +
      tensor_buffer(s, 2, "dx", type, Access::Write) + windows(s) + candidates_function(s) +
      holds_function(s) + s.entry("256") + constant_line(s, word, "e", s.element_index()) + "  " +
      s.if_then("e >= p[0]", "return;") + "\n" + s.split("e", "5u", "i", "plane", true);
  text += constants(s, "  ", s.int_vector_type(2),
                    {{"ra", "candidates(0u, i.x)"},
                     {"rb", "candidates(1u, i.y)"},
                     {"rc", "candidates(2u, i.z)"}}) +
          constants(s, "  ", i32,
                    {{"na", "max(ra.y - ra.x + 1, 0)"},
                     {"nb", "max(rb.y - rb.x + 1, 0)"},
                     {"nc", "max(rc.y - rc.x + 1, 0)"}}) +
          constant_line(s, word, "base", "plane * p[8] * p[9] * p[10]") + "  " +
          s.variable(a, "sum", s.zero(a)) + ";\n  " +
          for_loop(s.variable(i32, "j", "0"), "j < na * nb * nc", s.increment("j")) + " {\n";
  text +=
      constants(
          s, "    ", i32,
          {{"o0", "ra.x + j / (nb * nc)"}, {"o1", "rb.x + j / nc % nb"}, {"o2", "rc.x + j % nc"}}) +
      constants(s, "    ", "Window",
                {{"a", "window(0u, o0)"}, {"b", "window(1u, o1)"}, {"c", "window(2u, o2)"}});
  text +=
      "    " + s.if_then("!holds(a, i.x) || !holds(b, i.y) || !holds(c, i.z)", "continue;") + "\n";
  const std::string at = "(o0 * " + int_of(s, "p[9]") + " + o1) * " + int_of(s, "p[10]") + " + o2";
  text += "    sum += " + s.converted(a, "dy[base + " + word_of(s, at) + "]") +
          " / divisor(a, b, c);\n  }\n";
  return text + "  dx[e] = " + s.converted(s.value_type(), "sum") + ";\n}\n";
}

/// The sources of a syntax, held for the kernels' life.
class ConvPoolText final : public ConvPoolSources {
 public:
  explicit ConvPoolText(std::unique_ptr<const ConvPoolSyntax> syntax)
      : syntax_(std::move(syntax)) {}

  std::string conv(DType dtype, bool bias, bool tiled) const override {
    return tiled ? tiled_conv(*syntax_, dtype, bias) : direct_conv(*syntax_, dtype, bias);
  }
  std::string conv_weight_grad(DType dtype) const override {
    return conv_pool_text::conv_weight_grad(*syntax_, dtype);
  }
  std::string pool(DType dtype, ir::PoolOp op) const override {
    return conv_pool_text::pool(*syntax_, dtype, op);
  }
  std::string avg_pool_grad(DType dtype) const override {
    return conv_pool_text::avg_pool_grad(*syntax_, dtype);
  }

 private:
  std::unique_ptr<const ConvPoolSyntax> syntax_;
};

}  // namespace conv_pool_text

std::unique_ptr<const ConvPoolSources> conv_pool_sources_of(
    std::unique_ptr<const ConvPoolSyntax> syntax) {
  return std::make_unique<conv_pool_text::ConvPoolText>(std::move(syntax));
}

}  // namespace ember::shader
