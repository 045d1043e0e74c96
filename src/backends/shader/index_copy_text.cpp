// The index-copy kernels' text (index_copy_text.h), in the spelling of an IndexCopySyntax.
#include "backends/shader/index_copy_text.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ember::shader {
namespace {

/// A pair of words (an 8-byte element) of the expressions low and high.
std::string pair(const IndexCopySyntax& s, const std::string& low, const std::string& high) {
  return std::string(s.pair_type()) + "(" + low + ", " + high + ")";
}

/// The entry point's first line: n, the count its loop covers (parameter word 0).
std::string count_line(const IndexCopySyntax& s) {
  return "  " + s.constant(s.word_type(), "n", "p[0]") + ";\n";
}

/// The head of the entry point's loop of name over [0, n), every invocation one element a turn.
std::string invocation_loop(const IndexCopySyntax& s, const std::string& name) {
  return "  " +
         for_loop(s.variable(s.word_type(), name, s.invocation()), name + " < n",
                  name + " += " + s.invocations()) +
         " {\n";
}

/// E (an element's bits: a word, or a pair of words for 8 bytes) and load_<name>(i) for each
/// buffer read.
std::string loads(const IndexCopySyntax& s, uint32_t bytes, const std::vector<std::string>& names) {
  std::string text = s.alias("E", bytes == 8 ? s.pair_type() : s.word_type());
  for (const std::string& b : names) {
    text += s.function("E", "load_" + b, {{s.word_type(), "i"}}) + " { return ";
    if (bytes == 8) {
      text += pair(s, b + "[2u * i]", b + "[2u * i + 1u]");
    } else if (bytes == 4) {
      text += b + "[i]";
    } else {
      const std::string per = std::to_string(4 / bytes);
      text += s.extract_bits(b + "[i / " + per + "u]",
                             "(i % " + per + "u) * " + std::to_string(8 * bytes) + "u", 8 * bytes);
    }
    text += "; }\n";
  }
  return text;
}

/// store(i, v) into the buffer named d: a 1- or 2-byte element by clearing and setting its bits
/// atomically (other invocations write the rest of its word).
std::string store(const IndexCopySyntax& s, uint32_t bytes) {
  const std::string head = s.function("", "store", {{s.word_type(), "i"}, {"E", "v"}}) + " {";
  if (bytes == 8) return head + " d[2u * i] = v.x; d[2u * i + 1u] = v.y; }\n";
  if (bytes == 4) return head + " d[i] = v; }\n";
  const std::string per = std::to_string(4 / bytes);
  const std::string shift = "((i % " + per + "u) * " + std::to_string(8 * bytes) + "u)";
  const std::string mask = bytes == 1 ? "0xffu" : "0xffffu";
  const std::string word = s.atomic_word("d[i / " + per + "u]");
  return head + "\n  atomicAnd(" + word + ", ~(" + mask + " << " + shift + "));\n  atomicOr(" +
         word + ", (v & " + mask + ") << " + shift + ");\n}\n";
}

/// index_at(i): the low word of index element i (checked in range before: the high word is 0).
std::string index_at(const IndexCopySyntax& s, uint32_t index_bytes) {
  return s.function(s.word_type(), "index_at", {{s.word_type(), "i"}}) + " { return ix[i * " +
         std::to_string(index_bytes / 4) + "u]; }\n";
}

/// combine(a, v): what is there (a) updated by v.
std::string combine(const IndexCopySyntax& s, Combine how) {
  const std::string head = s.function("E", "combine", {{"E", "a"}, {"E", "v"}}) + " { return ";
  switch (how) {
    case Combine::Assign:
      return head + "v; }\n";
    case Combine::AddF32:
      return head + s.bits_of_float(s.float_of_bits("a") + " + " + s.float_of_bits("v")) + "; }\n";
    case Combine::AddInt32:
      return head + "a + v; }\n";
  }
  return {};
}

/// A kernel that writes each element i of d from i alone: body, given i and E, stores it.
std::string generate_kernel_text(const IndexCopyKey& key, const IndexCopySyntax& s,
                                 const std::string& body) {
  return s.header() + s.words(1, "d", key.element_bytes < 4) + loads(s, key.element_bytes, {}) +
         store(s, key.element_bytes) + s.entry() + count_line(s) + invocation_loop(s, "i") + body +
         "  }\n}\n";
}

}  // namespace

std::string copy_kernel_text(const IndexCopyKey& key, const IndexCopySyntax& s) {
  const std::string_view word = s.word_type();
  std::string text = s.header() + s.words(1, "s", false) + s.words(2, "d", key.element_bytes < 4);
  if (key.index_bytes != 0) text += s.words(3, "ix", false) + index_at(s, key.index_bytes);
  text += loads(s, key.element_bytes, {"s"}) + store(s, key.element_bytes) + s.entry();
  text += count_line(s) + invocation_loop(s, "e");
  text += "    " + s.variable(word, "rest", "e") + ";\n";
  text += "    " + s.variable(word, "read_at", "p[2]") + ";\n";
  text += "    " + s.variable(word, "write_at", "p[3]") + ";\n";
  text += "    " + s.variable(word, "at", "0u") + ";\n";
  text += "    " + for_loop(s.variable(word, "k", "p[1]"), "k > 0u", s.decrement("k")) + " {\n";
  text += "      " + s.constant(word, "c", "rest % p[7u + k]") + ";\n";
  text += R"(      rest /= p[7u + k];
      read_at += c * p[15u + k];
      write_at += c * p[23u + k];
      at += c * p[31u + k];
    }
)";
  if (key.index_bytes != 0) {
    text += "    read_at += index_at(at) * p[4];\n";
  } else if (const std::string read = s.read_unused("at"); !read.empty()) {
    text += "    " + read + ";\n";
  }
  return text + "    store(write_at, load_s(read_at));\n  }\n}\n";
}

std::string update_kernel_text(const IndexCopyKey& key, const IndexCopySyntax& s) {
  const std::string_view word = s.word_type();
  std::string text = s.header() + s.words(1, "x", false) + s.words(2, "ix", false) +
                     s.words(3, "v", false) + s.words(4, "d", key.element_bytes < 4);
  text += index_at(s, key.index_bytes) + loads(s, key.element_bytes, {"x", "v"}) +
          store(s, key.element_bytes) + combine(s, key.combine) + s.entry();
  text += count_line(s);
  text += "  " + s.constant(word, "dim", "p[2]") + ";\n";
  text += "  " + s.constant(word, "lane", "p[3]") + ";\n";
  text += "  " + s.constant(word, "index_step", "p[24u + dim]") + ";\n";
  text += "  " + s.constant(word, "value_step", "p[32u + dim]") + ";\n";
  text += invocation_loop(s, "t");
  text += "    " + s.variable(word, "rest", "t") + ";\n";
  for (const char* name : {"k", "write_at", "at", "read_at"})
    text += "    " + s.variable(word, name, "0u") + ";\n";
  text += "    " + for_loop(s.variable(word, "r", "p[1]"), "r > 0u", s.decrement("r")) + " {\n";
  text += "      " + s.constant(word, "c", "rest % p[7u + r]") + ";\n";
  text += R"(      rest /= p[7u + r];
      if (r - 1u == dim) {
        k = c;
      } else {
        write_at += c * p[15u + r];
        at += c * p[23u + r];
        read_at += c * p[31u + r];
      }
    }
)";
  text += "    " + s.constant(word, "slot", "index_at(at + k * index_step)") + ";\n";
  text += "    " + s.variable("bool", "first", "true") + ";\n";
  text +=
      s.governing("    ", for_loop(s.variable(word, "j", "0u"), "first && j < k", s.increment("j")),
                  "first = index_at(at + j * index_step) != slot;");
  text += s.governing("    ", "if (!first)", "continue;");
  text += "    write_at += slot * p[16u + dim];\n";
  text += "    " + s.variable("E", "value", "load_x(write_at)") + ";\n";
  text += "    " + for_loop(s.variable(word, "j", "k"), "j < lane", s.increment("j")) + " {\n";
  text += s.governing("      ", "if (index_at(at + j * index_step) == slot)",
                      "value = combine(value, load_v(read_at + j * value_step));");
  return text + "    }\n    store(write_at, value);\n  }\n}\n";
}

/// The first index outside [0, size) as n - its position (0: none), by atomicMax.
std::string check_indices_kernel_text(const IndexCopyKey& key, const IndexCopySyntax& s) {
  std::string text = s.header() + s.words(1, "ix", false) + s.words(2, "flag", true) + s.entry();
  text += count_line(s) + invocation_loop(s, "i");
  const bool wide = key.index_bytes == 8;
  text += "    " +
          s.constant("bool", "bad",
                     wide ? "ix[2u * i] >= p[1] || ix[2u * i + 1u] != 0u" : "ix[i] >= p[1]") +
          ";\n";
  text += "    " + s.if_then("bad", "atomicMax(" + s.atomic_word("flag[0]") + ", n - i);") + "\n";
  return text + "  }\n}\n";
}

/// start + i * step in 32-bit wrapping arithmetic (exact: every value fits 32 bits), an 8-byte
/// element's high word the sign's.
std::string arange_kernel_text(const IndexCopyKey& key, const IndexCopySyntax& s) {
  const std::string value = "    " + s.constant(s.word_type(), "v", "p[1] + i * p[2]") + ";\n";
  return generate_kernel_text(key, s,
                              value + "    store(i, " +
                                  (key.element_bytes == 8 ? pair(s, "v", s.sign_word("v")) : "v") +
                                  ");\n");
}

/// The value's bits (words 1 and 2) over every element.
std::string fill_kernel_text(const IndexCopyKey& key, const IndexCopySyntax& s) {
  return generate_kernel_text(
      key, s,
      "    store(i, " + (key.element_bytes == 8 ? pair(s, "p[1]", "p[2]") : "p[1]") + ");\n");
}

}  // namespace ember::shader
