// The attention kernels' text (attention_text.h), in the spelling of an AttentionSyntax.
#include "backends/shader/attention_text.h"

#include <string>
#include <string_view>

#include "backends/shader/attention_passes.h"
#include "backends/shader/kernel_syntax.h"

namespace ember::shader {
// The kernels' helpers, named apart from the other kernels' (unity builds join the files).
namespace attention_text {

using Access = AttentionSyntax::Access;

/// What a streaming pass names its own: the buffers its tiles read (x E_ wide, y EV_ wide) and
/// the count of the rows its workgroups take.
struct Streamed {
  std::string x;
  std::string y;
  std::string n_rows;
};

/// Whether the case's constant name is nonzero.
std::string enabled(const AttentionSyntax& s, const std::string& name) {
  return name + " != " + s.specialisation_literal(0);
}

/// The source's first lines and the case's constants.
std::string specialised(const AttentionSyntax& s, const AttentionGeometry& geometry) {
  std::string text = s.header();
  for (const auto& [name, value] : geometry.constants())
    text += s.specialisation(name, value);
  return text;
}

/// mask_base(b): the mask's offset of batch entry b, its coordinates (innermost last) times their
/// strides.
std::string mask_base_function(const AttentionSyntax& s) {
  const std::string_view word = s.word_type();
  std::string text =
      "// The mask's offset of batch entry b: its coordinates (innermost last) times their "
      "strides.\n" +
      s.mask_base_head() + "  " + s.variable(word, "base", "0u") + ";\n";
  text += "  " + for_loop(s.variable(word, "d", "p[6]"), "d > 0u", s.decrement("d")) + " {\n";
  text += constants(s, "    ", word, {{"size", "p[5u + 2u * d]"}});
  return text +
         "    base += (b % size) * p[6u + 2u * d];\n    b /= size;\n  }\n  return base;\n}\n";
}

/// score(product, base, i, j, valid): the score of query i and key j from their dot product.
std::string score_function(const AttentionSyntax& s) {
  const std::string_view word = s.word_type();
  const std::string_view f32 = s.float_type();
  std::string text =
      "// The score of query i and key j from their dot product: -inf where masked out, or not "
      "valid.\n" +
      s.function(f32, "score",
                 {{f32, "product"}, {word, "base"}, {word, "i"}, {word, "j"}, {"bool", "valid"}}) +
      " {\n";
  text += "  " +
          s.if_then("!valid || (" + enabled(s, "CAUSAL") + " && j > i)",
                    "return " + s.neg_inf() + ";") +
          "\n";
  text += constants(s, "  ", word, {{"at", "base + i * p[3] + j * p[4]"}});
  text += constants(s, "  ", f32, {{"scaled", "product * " + s.float_of_bits("p[2]")}});
  text += "  if (MASK_KIND == " + s.specialisation_literal(1) + ") {\n" +
          s.masked_score("(mask_words[at >> 2u] >> ((at & 3u) * 8u)) & 0xffu") + "  }\n";
  text += "  " +
          s.if_then("MASK_KIND == " + s.specialisation_literal(2),
                    "return scaled + " + s.float_of_bits("mask_words[at]") + ";") +
          "\n";
  return text + "  return scaled;\n}\n";
}

/// name(a, r): the dot product of a row of size with row r of tile.
std::string dot_function(const AttentionSyntax& s, const std::string& name, const std::string& size,
                         const std::string& tile) {
  return s.row_function(name, size) + " {\n  " +
         s.variable(s.float_type(), "sum", s.float_literal("0.0")) + ";\n  " +
         s.headed(s.element_loop(size), "sum += a[c] * " + tile + "[r * " + size + " + c];") +
         "\n  return sum;\n}\n";
}

/// The bindings the forward and gradient passes share (q, k, v, the mask as words), the score of
/// a query and a key, and the two tiles of shared memory.
std::string common(const AttentionSyntax& s) {
  const std::string_view word = s.word_type();
  const std::string_view f32 = s.float_type();
  std::string text = "\n" + s.parameters() + s.buffer(1, "Q", "q", f32, Access::Read) +
                     s.buffer(2, "K", "k", f32, Access::Read) +
                     s.buffer(3, "V", "v", f32, Access::Read) +
                     s.buffer(4, "Mask", "mask_words", word, Access::Read);
  text += s.with_neg_inf(s.shared_floats("xs", "TILE * E_") + s.shared_floats("ys", "TILE * EV_"));
  text += s.function("bool", "is_neg_inf", {{f32, "x"}}) + " { return " + s.bits_of_float("x") +
          " == 0xff800000u; }\n";
  text += mask_base_function(s) + score_function(s) + s.block_function();
  text +=
      "// The dot products of a row of E_ with row r of xs, and of a row of EV_ with row r of "
      "ys.\n" +
      dot_function(s, "x_dot", "E_", "xs") + dot_function(s, "y_dot", "EV_", "ys");
  return text +
         "// The keys the queries [i0, i0 + ROWS) read: under CAUSAL none past its last query.\n" +
         s.function(word, "keys_of", {{word, "i0"}}) + " { return " +
         s.select("p[1]", "min(p[1], i0 + ROWS)", enabled(s, "CAUSAL")) + "; }\n";
}

/// The lines defining the pass's own names (GLSL's macros).
std::string pass_definitions(const AttentionSyntax& s, const Streamed& streamed) {
  return s.pass_definition("X_TILE", streamed.x) + s.pass_definition("Y_TILE", streamed.y) +
         s.pass_definition("N_ROWS", streamed.n_rows);
}

/// The lines loading one tile (of width size, from buffer into tile) in load_tiles.
std::string tile_load(const AttentionSyntax& s, const std::string& tile, const std::string& size,
                      const std::string& buffer) {
  return s.governed(
      "  ",
      for_loop(s.variable(s.word_type(), "t", s.tiles_local()), "t < TILE * " + size, "t += ROWS"),
      tile + "[t] = " +
          s.select("0.0", buffer + "[(first + r0) * " + size + " + t]",
                   "r0 + t / " + size + " < n") +
          ";");
}

/// load_tiles(first, r0, n): rows [r0, r0 + TILE) of the batch entry's rows from first of the
/// pass's x and y into xs and ys (zeros past n), between two barriers.
std::string tiles_function(const AttentionSyntax& s, const Streamed& streamed) {
  const std::string barrier = "  " + s.barrier() + ";\n";
  return "\n" + s.tiles_function() + " {\n" + barrier +
         tile_load(s, "xs", "E_", s.pass_name("X_TILE", streamed.x)) +
         tile_load(s, "ys", "EV_", s.pass_name("Y_TILE", streamed.y)) + barrier + "}\n";
}

/// The start of a streaming pass's entry point: where its workgroup stands, whether this
/// invocation's row is one, the batch entry's mask offset.
std::string entry(const AttentionSyntax& s, const Streamed& streamed) {
  const std::string n_rows = s.pass_name("N_ROWS", streamed.n_rows);
  return "\n" + s.entry() + s.block_lines(n_rows) +
         constants(s, "  ", "bool", {{"valid", s.block("r") + " < " + n_rows}}) +
         constants(s, "  ", s.word_type(), {{"base", "mask_base(" + s.block("b") + ")"}});
}

/// A pass streaming tiles: the common text, its bindings, load_tiles, its entry, then main.
std::string streaming(const AttentionSyntax& s, const AttentionGeometry& geometry,
                      const std::string& bindings, const Streamed& streamed,
                      const std::string& main) {
  return specialised(s, geometry) + common(s) + bindings + pass_definitions(s, streamed) +
         tiles_function(s, streamed) + entry(s, streamed) + main;
}

/// The head of the loop over a tile's rows, named name.
std::string tile_loop(const AttentionSyntax& s, const std::string& name) {
  return for_loop(s.variable(s.word_type(), name, "0u"), name + " < TILE", s.increment(name));
}

/// The head of the loop over the key tiles a query block reads, and its line loading them.
std::string key_tiles_loop(const AttentionSyntax& s) {
  return constants(s, "  ", s.word_type(), {{"keys", "keys_of(" + s.block("r0") + ")"}}) + "  " +
         for_loop(s.variable(s.word_type(), "j0", "0u"), "j0 < keys", "j0 += TILE") + " {\n    " +
         s.tiles_call(s.block("b") + " * p[1], j0, p[1]") + ";\n";
}

/// The score of this invocation's query with key j0 + jj of the tile.
std::string key_score(const AttentionSyntax& s) {
  return "score(x_dot(qr, jj), base, " + s.block("r") + ", j0 + jj, valid && j0 + jj < p[1])";
}

/// The gradient passes' end: nothing more where the row is not one, else scale (the scores'
/// scale) and the writes of the rows' gradients.
std::string scaled_writes(const AttentionSyntax& s, const std::string& writes) {
  return "  " + s.if_then("!valid", "return;") + "\n" +
         constants(s, "  ", s.float_type(), {{"scale", s.float_of_bits("p[2]")}}) + writes + "}\n";
}

/// The line (at indent) running statement on each element c of a row of size.
std::string each_element(const AttentionSyntax& s, const std::string& indent,
                         const std::string& size, const std::string& statement) {
  return indent + s.headed(s.element_loop(size), statement) + "\n";
}

/// The forward: each query's online softmax over the key tiles, its result and lse written once.
std::string forward_main(const AttentionSyntax& s) {
  const std::string_view word = s.word_type();
  const std::string_view f32 = s.float_type();
  std::string text =
      "\n" + constants(s, "  ", word, {{"row", s.block("b") + " * p[0] + " + s.block("r")}});
  text += s.row_reads({{{"qr", "E_", "q[row * E_ + c]"}}, {}, {}}) +
          s.row_reads({{{"acc", "EV_", ""}}, {}, {}});
  text += "  " + s.variable(f32, "m", s.neg_inf()) + ";\n  " +
          s.variable(f32, "sum", s.float_literal("0.0")) + ";\n" + key_tiles_loop(s);
  text += "    " + s.float_array("scores", "TILE") + ";\n    " +
          s.variable(f32, "tile_max", s.neg_inf()) + ";\n";
  text += "    " + tile_loop(s, "jj") + " {\n      scores[jj] = " + key_score(s) +
          ";\n      tile_max = max(tile_max, scores[jj]);\n    }\n";
  text += constants(s, "    ", f32, {{"m_new", "max(m, tile_max)"}}) +
          "    // Nothing to attend yet: exponents from 0 keep every weight 0 instead of NaN.\n";
  text += constants(
      s, "    ", f32,
      {{"shift", s.select("m_new", "0.0", "is_neg_inf(m_new)")}, {"rescale", "exp(m - shift)"}});
  text += "    sum *= rescale;\n" + each_element(s, "    ", "EV_", "acc[c] *= rescale;");
  text += "    " + tile_loop(s, "jj") + " {\n" +
          constants(s, "      ", f32, {{"weight", "exp(scores[jj] - shift)"}}) +
          "      sum += weight;\n" +
          each_element(s, "      ", "EV_", "acc[c] += weight * ys[jj * EV_ + c];") +
          "    }\n    m = m_new;\n  }\n";
  text += "  " + s.if_then("!valid", "return;") +
          "\n  // sum == 0 (nothing attended): 0 * inf is NaN, as the composite's softmax; lse is "
          "-inf.\n";
  text += constants(s, "  ", f32, {{"inverse", "1.0 / sum"}}) +
          each_element(s, "  ", "EV_", "result[row * EV_ + c] = acc[c] * inverse;");
  return text + "  lse[row] = m + log(sum);\n}\n";
}

/// The comment on the stats of a row past the end.
constexpr const char* kPastTheEnd = "// A query past the end weighs exp(-inf - 0) = 0.";

/// dQ: each query streams the key tiles, P recomputed from its lse.
std::string grad_q_main(const AttentionSyntax& s) {
  const std::string_view f32 = s.float_type();
  std::string text = "\n" + constants(s, "  ", s.word_type(),
                                      {{"row", s.block("b") + " * p[0] + " + s.block("r")}});
  text += s.row_reads(
      {{{"qr", "E_", "q[row * E_ + c]"}, {"acc", "E_", ""}, {"gr", "EV_", "grad[row * EV_ + c]"}},
       kPastTheEnd,
       {{"row_lse", "stats[2u * row]"}, {"d", "stats[2u * row + 1u]"}}});
  text += key_tiles_loop(s) + "    " + tile_loop(s, "jj") + " {\n";
  text += constants(s, "      ", f32,
                    {{"s", key_score(s)}, {"ds", "exp(s - row_lse) * (y_dot(gr, jj) - d)"}});
  text += each_element(s, "      ", "E_", "acc[c] += ds * xs[jj * E_ + c];") + "    }\n  }\n";
  return text + scaled_writes(s, each_element(s, "  ", "E_", "dq[row * E_ + c] = acc[c] * scale;"));
}

/// dK and dV: each key streams the query tiles (q and grad_out) with their rows' lse and D.
std::string grad_kv_main(const AttentionSyntax& s) {
  const std::string_view word = s.word_type();
  const std::string_view f32 = s.float_type();
  std::string text =
      "\n" + constants(s, "  ", word, {{"key", s.block("b") + " * p[1] + " + s.block("r")}});
  text += s.row_reads({{{"kr", "E_", "k[key * E_ + c]"},
                        {"dka", "E_", ""},
                        {"vr", "EV_", "v[key * EV_ + c]"},
                        {"dva", "EV_", ""}},
                       {},
                       {}});
  text += "  // Under CAUSAL, queries before the block's first key attend none of its keys.\n  " +
          for_loop(s.variable(word, "i0", s.select("0u", s.block("r0"), enabled(s, "CAUSAL"))),
                   "i0 < p[0]", "i0 += TILE") +
          " {\n    " + s.tiles_call(s.block("b") + " * p[0], i0, p[0]") + ";\n";
  text += "    " + tile_loop(s, "ii") + " {\n" + constants(s, "      ", word, {{"i", "i0 + ii"}}) +
          constants(s, "      ", "bool", {{"query", "i < p[0]"}});
  text += constants(s, "      ", f32,
                    {{"s", "score(x_dot(kr, ii), base, i, " + s.block("r") + ", valid && query)"}});
  text += std::string("      ") + kPastTheEnd + "\n" +
          s.query_stats("2u * (" + s.block("b") + " * p[0] + i)");
  text += constants(s, "      ", f32,
                    {{"weight", "exp(s - " + s.query_stat("row_lse", "") + ")"},
                     {"ds", "weight * (y_dot(vr, ii) - " + s.query_stat("d", " + 1u") + ")"}});
  text += each_element(s, "      ", "EV_", "dva[c] += weight * ys[ii * EV_ + c];") +
          each_element(s, "      ", "E_", "dka[c] += ds * xs[ii * E_ + c];") + "    }\n  }\n";
  return text + scaled_writes(s, each_element(s, "  ", "E_", "dk[key * E_ + c] = dka[c] * scale;") +
                                     each_element(s, "  ", "EV_", "dv[key * EV_ + c] = dva[c];"));
}

/// The stats pass: each query row's lse and D = rowsum(grad_out * out), side by side.
std::string stats_source(const AttentionSyntax& s, const AttentionGeometry& geometry) {
  const std::string_view f32 = s.float_type();
  std::string text = specialised(s, geometry) + "\n" + s.parameters() +
                     s.buffer(1, "Result", "result", f32, Access::Read) +
                     s.buffer(2, "Grad", "grad", f32, Access::Read) +
                     s.buffer(3, "Lse", "lse", f32, Access::Read) +
                     s.buffer(4, "Stats", "stats", f32, Access::Write) + s.stats_entry();
  text += constants(s, "  ", s.word_type(), {{"row", s.invocation()}}) + "  " +
          s.if_then("row >= p[5] * p[0]", "return;") + "\n  " +
          s.variable(f32, "d", s.float_literal("0.0")) + ";\n";
  text += each_element(s, "  ", "EV_", "d += grad[row * EV_ + c] * result[row * EV_ + c];");
  return text + "  stats[2u * row] = lse[row];\n  stats[2u * row + 1u] = d;\n}\n";
}

/// The bindings both gradient passes read after q, k, v and the mask: the stats and grad_out.
std::string grad_bindings(const AttentionSyntax& s) {
  return "\n" + s.buffer(5, "Stats", "stats", s.float_type(), Access::Read) +
         s.buffer(6, "Grad", "grad", s.float_type(), Access::Read) + "\n";
}

/// pass's source on geometry's case.
std::string source(const AttentionSyntax& s, AttentionPass pass,
                   const AttentionGeometry& geometry) {
  const std::string_view f32 = s.float_type();
  switch (pass) {
    case AttentionPass::Forward:
      return streaming(s, geometry,
                       "\n" + s.buffer(5, "Result", "result", f32, Access::Write) +
                           s.buffer(6, "Lse", "lse", f32, Access::Write),
                       {"k", "v", "p[0]"}, forward_main(s));
    case AttentionPass::Stats:
      return stats_source(s, geometry);
    case AttentionPass::GradQ:
      return streaming(s, geometry,
                       grad_bindings(s) + s.buffer(7, "GradQ", "dq", f32, Access::Write),
                       {"k", "v", "p[0]"}, grad_q_main(s));
    case AttentionPass::GradKV:
      return streaming(s, geometry,
                       grad_bindings(s) + s.buffer(7, "GradK", "dk", f32, Access::Write) +
                           s.buffer(8, "GradV", "dv", f32, Access::Write),
                       {"q", "grad", "p[1]"}, grad_kv_main(s));
  }
  return {};
}

}  // namespace attention_text

std::string attention_source_of(AttentionPass pass, const AttentionGeometry& geometry,
                                const AttentionSyntax& syntax) {
  return attention_text::source(syntax, pass, geometry);
}

}  // namespace ember::shader
