// The sort kernels' text (sort_text.h), in the spelling of a SortSyntax.
#include "backends/shader/sort_text.h"

#include <string>
#include <string_view>

#include "backends/shader/sort_passes.h"

namespace ember::shader {
// The kernels' helpers, named apart from the other kernels' (unity builds join the files).
namespace sort_text {

using Access = SortSyntax::Access;

/// The loop's step over the elements of a block, every invocation of the workgroup one a turn.
std::string block_step() {
  return "t += " + std::to_string(kSortWorkgroup) + "u";
}

/// key(bits): the 32-bit word as the key's type; is_nan(bits) tests the word itself, so that no
/// compiler assumption about NaN comparisons (WGSL's may assume none) can change the order.
std::string key_functions(const SortSyntax& s, DType dtype) {
  const std::string_view word = s.word_type();
  const std::string is_nan = s.function("bool", "is_nan", {{word, "bits"}}) + " { return ";
  if (dtype == DType::F32)
    return s.function(s.float_type(), "key", {{word, "bits"}}) + " { return " +
           s.float_of_bits("bits") + "; }\n" + is_nan + "(bits & 0x7fffffffu) > 0x7f800000u; }\n";
  const std::string key = dtype == DType::I32
                              ? s.function(s.int_type(), "key", {{word, "bits"}}) + " { return " +
                                    s.int_of_bits("bits") + "; }\n"
                              : s.function(word, "key", {{word, "bits"}}) + " { return bits; }\n";
  return key + is_nan + "false; }\n";
}

/// Whether the element (a, at) comes before (b, bt) in the sorted lane (position >= n: padding,
/// which sorts last).
std::string before_function(const SortSyntax& s, DType dtype) {
  const std::string_view word = s.word_type();
  std::string text = key_functions(s, dtype) +
                     s.function("bool", "before",
                                {{word, "a"},
                                 {word, "at"},
                                 {word, "b"},
                                 {word, "bt"},
                                 {word, "n"},
                                 {"bool", "descending"}}) +
                     " {\n";
  text += "  " + s.if_then("at >= n", "return false;") + "\n";
  text += "  " + s.if_then("bt >= n", "return true;") + "\n";
  text += constants(s, "  ", "bool",
                    {{"a_nan", "is_nan(a)"},
                     {"b_nan", "is_nan(b)"},
                     {"less", "!a_nan && (b_nan || key(a) < key(b))"},
                     {"greater", "!b_nan && (a_nan || key(a) > key(b))"}});
  text += "  " + s.if_then(s.select("less", "greater", "descending"), "return true;") + "\n";
  text += "  " + s.if_then(s.select("greater", "less", "descending"), "return false;") + "\n";
  return text + "  return at < bt;\n}\n";
}

/// A workgroup's sort of each block (a whole lane: one block) of p[3] elements (padded), p[7]
/// blocks a lane, then write, the loop writing the sorted block's element t (t < padded, below n
/// in the lane: origin + t). The parameters come from a read-only buffer, so the loops around the
/// barriers are uniform.
std::string network(const SortSyntax& s, DType dtype, const std::string& write) {
  const std::string_view word = s.word_type();
  const std::string barrier = s.barrier() + ";\n";
  std::string text = before_function(s, dtype) + s.shared_words("words") +
                     s.shared_words("where_") + s.network_entry();
  text += constants(s, "  ", word,
                    {{"lanes", "p[0]"}, {"n", "p[1]"}, {"inner", "p[2]"}, {"padded", "p[3]"}});
  text += constants(s, "  ", "bool", {{"descending", "p[4] != 0u"}, {"wide", "p[5] != 0u"}});
  text += constants(s, "  ", word, {{"blocks", "p[7]"}}) + s.local_line();
  text += "  " +
          for_loop(s.variable(word, "item", s.workgroup()), "item < lanes * blocks",
                   "item += " + s.workgroups()) +
          " {\n";
  text += constants(s, "    ", word,
                    {{"lane", "item / blocks"},
                     {"origin", "(item - lane * blocks) * padded"},
                     {"row", "lane / inner"},
                     {"base", "row * n * inner + (lane - row * inner)"}});
  text += "    " + for_loop(s.variable(word, "t", s.local()), "t < padded", block_step()) + " {\n";
  text += "      where_[t] = origin + t;\n";
  text += s.read_or_zero("      ", "words[t]", "origin + t < n", "x[base + (origin + t) * inner]");
  text += "    }\n    " + barrier;
  text += "    " + for_loop(s.variable(word, "k", "2u"), "k <= padded", "k *= 2u") + " {\n";
  text += "      " + for_loop(s.variable(word, "j", "k / 2u"), "j > 0u", "j /= 2u") + " {\n";
  text +=
      "        " + for_loop(s.variable(word, "t", s.local()), "t < padded", block_step()) + " {\n";
  text += constants(s, "          ", word, {{"u", "t ^ j"}}) + "          if (u > t) {\n";
  text += s.chosen("            ", "bool", "swap", "(t & k) == 0u",
                   "before(words[u], where_[u], words[t], where_[t], n, descending)",
                   "before(words[t], where_[t], words[u], where_[u], n, descending)");
  text +=
      "            if (swap) {\n" + constants(s, "              ", word, {{"word", "words[t]"}});
  text += "              words[t] = words[u];\n              words[u] = word;\n";
  text += constants(s, "              ", word, {{"at", "where_[t]"}});
  text += "              where_[t] = where_[u];\n              where_[u] = at;\n";
  text += "            }\n          }\n        }\n        " + barrier + "      }\n    }\n";
  text += "    " +
          for_loop(s.variable(word, "t", s.local()), "t < padded && origin + t < n", block_step()) +
          " {\n";
  return text + write + "    }\n    " + barrier + "  }\n}\n";
}

/// A lane of at most kMaxSortLane elements, sorted by one workgroup into values (read from x
/// again: every bit) and positions.
std::string whole_source(const SortSyntax& s, DType dtype) {
  return s.header() + s.buffer(1, "X", "x", s.word_type(), Access::Read) +
         s.buffer(2, "Values", "values", s.word_type(), Access::Write) +
         s.buffer(3, "Positions", "positions", s.word_type(), Access::Write) +
         network(s, dtype,
                 constants(s, "      ", s.word_type(),
                           {{"dest", "base + t * inner"}, {"at", "where_[t]"}}) +
                     "      values[dest] = x[base + at * inner];\n" + kWriteSortPosition);
}

/// Each block of a long lane sorted by one workgroup into (key, position) pairs, the lane's
/// pairs contiguous.
std::string blocks_source(const SortSyntax& s, DType dtype) {
  return s.header() + s.buffer(1, "X", "x", s.word_type(), Access::Read) +
         s.buffer(2, "Pairs", "pairs", s.word_type(), Access::Write) +
         network(s, dtype,
                 constants(s, "      ", s.word_type(), {{"to", "2u * (lane * n + origin + t)"}}) +
                     "      pairs[to] = words[t];\n      pairs[to + 1u] = where_[t];\n");
}

/// The head of the merge's and the gather's loop over the pairs of all lanes, every invocation
/// one a turn.
std::string pairs_loop(const SortSyntax& s) {
  return "  " +
         for_loop(s.variable(s.word_type(), "g", s.invocation()), "g < total",
                  "g += " + s.invocations()) +
         " {\n";
}

/// Neighbouring sorted runs of p[6] pairs merged: each pair goes to its index in its run plus
/// the count of the other run's pairs before it (a binary search).
std::string merge_source(const SortSyntax& s, DType dtype) {
  const std::string_view word = s.word_type();
  std::string text = s.header() + s.buffer(1, "From", "from_", s.word_type(), Access::Read) +
                     s.buffer(2, "To", "to_", s.word_type(), Access::Write) +
                     before_function(s, dtype) + s.entry();
  text += constants(s, "  ", word, {{"n", "p[1]"}});
  text += constants(s, "  ", "bool", {{"descending", "p[4] != 0u"}});
  text += constants(s, "  ", word, {{"width", "p[6]"}, {"total", "p[0] * n"}}) + pairs_loop(s);
  text += constants(s, "    ", word,
                    {{"lane_first", "g - g % n"},
                     {"i", "g - lane_first"},
                     {"start", "i - i % (2u * width)"},
                     {"mid", "start + min(width, n - start)"},
                     {"stop", "start + min(2u * width, n - start)"}});
  text += constants(s, "    ", "bool", {{"in_first", "i < mid"}});
  text += constants(s, "    ", word, {{"word", "from_[2u * g]"}, {"at", "from_[2u * g + 1u]"}});
  text += "    " + s.variable(word, "low", s.select("start", "mid", "in_first")) + ";\n";
  text += constants(s, "    ", word, {{"other", "low"}});
  text += "    " + s.variable(word, "high", s.select("mid", "stop", "in_first")) + ";\n";
  text += "    while (low < high) {\n";
  text += constants(s, "      ", word,
                    {{"middle", "low + (high - low) / 2u"}, {"m", "2u * (lane_first + middle)"}});
  text += s.if_else("      ", "before(from_[m], from_[m + 1u], word, at, n, descending)",
                    "low = middle + 1u;", "high = middle;");
  text += "    }\n";
  text +=
      constants(s, "    ", word,
                {{"dest", "2u * (lane_first + start + (i - " +
                              s.select_term("mid", "start", "in_first") + ") + (low - other))"}});
  return text + "    to_[dest] = word;\n    to_[dest + 1u] = at;\n  }\n}\n";
}

/// The sorted pairs of long lanes into values (the keys: x's words) and positions.
std::string gather_source(const SortSyntax& s) {
  const std::string_view word = s.word_type();
  std::string text = s.header() + s.buffer(1, "Pairs", "pairs", s.word_type(), Access::Read) +
                     s.buffer(2, "Values", "values", s.word_type(), Access::Write) +
                     s.buffer(3, "Positions", "positions", s.word_type(), Access::Write) +
                     s.entry();
  text += constants(s, "  ", word, {{"n", "p[1]"}, {"inner", "p[2]"}});
  text += constants(s, "  ", "bool", {{"wide", "p[5] != 0u"}});
  text += constants(s, "  ", word, {{"total", "p[0] * n"}}) + pairs_loop(s);
  text += constants(s, "    ", word,
                    {{"lane", "g / n"},
                     {"row", "lane / inner"},
                     {"dest", "row * n * inner + (lane - row * inner) + (g - lane * n) * inner"},
                     {"at", "pairs[2u * g + 1u]"}});
  return text + "    values[dest] = pairs[2u * g];\n" + kWriteSortPosition + "  }\n}\n";
}

}  // namespace sort_text

SortSources sort_sources_of(DType dtype, const SortSyntax& syntax) {
  return {sort_text::whole_source(syntax, dtype), sort_text::blocks_source(syntax, dtype),
          sort_text::merge_source(syntax, dtype), sort_text::gather_source(syntax)};
}

}  // namespace ember::shader
