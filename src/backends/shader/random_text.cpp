// The random kernel's text (random_text.h), in the spelling of a RandomSyntax.
#include "backends/shader/random_text.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "backends/shader/kernel_syntax.h"
#include "ir/philox.h"

namespace ember::shader {
// The kernel's helpers, named apart from the other kernels' (unity builds join the files).
namespace random_text {

/// word as a hexadecimal literal of an unsigned word, its digits upper case, as Random123
/// writes ir/philox.h's constants.
std::string word_literal(uint32_t word) {
  char digits[16];
  std::snprintf(digits, sizeof digits, "%X", word);
  return "0x" + std::string(digits) + "u";
}

/// philox(c, k0, k1): ir/philox.h's rounds, the key stepped between them, each multiplying
/// counter words 0 and 2 into their high and low words.
std::string philox_function(const RandomSyntax& s) {
  std::string text = s.philox_head();
  text += "  " +
          for_loop(s.variable(s.int_type(), "turn", "0"),
                   "turn < " + std::to_string(ir::kPhiloxRounds), s.increment("turn")) +
          " {\n";
  text += "    if (turn > 0) {\n";
  text += "      k0 += " + word_literal(ir::kPhiloxKeySteps[0]) + ";\n";
  text += "      k1 += " + word_literal(ir::kPhiloxKeySteps[1]) + ";\n    }\n";
  text += s.product_words();
  text += "    " + s.product(0, word_literal(ir::kPhiloxMultipliers[0]), "c.x") + ";\n";
  text += "    " + s.product(1, word_literal(ir::kPhiloxMultipliers[1]), "c.z") + ";\n";
  text += "    c = " + std::string(s.block_type()) + "(" + s.high(1) + " ^ c.y ^ k0, " + s.low(1) +
          ", " + s.high(0) + " ^ c.w ^ k1, " + s.low(0) + ");\n";
  return text + "  }\n  return c;\n}\n";
}

/// The entry point: each element's counter {i, 0, 0, 0} under the key p[1], p[2]; u from word
/// 0's top 24 bits (k 2^-24, ir/random.h's), or Bernoulli's 1 or 0 by k against the threshold
/// p[3] (above 2^24: the default distribution).
std::string entry(const RandomSyntax& s) {
  const std::string_view word = s.word_type();
  const std::string assignment = "    y[i] = ";
  const std::string bernoulli =
      s.select_term(s.float_literal("0.0"), s.float_literal("1.0"), "k < threshold");
  const std::string uniform =
      std::string(s.float_type()) + "(k) * " + s.float_of_bits("0x33800000u");
  std::string text = s.entry();
  text += "  " + s.constant(word, "n", "p[0]") + ";\n";
  text += "  " + s.constant(word, "threshold", "p[3]") + ";\n";
  text += "  " +
          for_loop(s.variable(word, "i", s.invocation()), "i < n", "i += " + s.invocations()) +
          " {\n";
  text += "    " +
          s.constant(word, "k",
                     "philox(" + std::string(s.block_type()) +
                         "(i, 0u, 0u, 0u), p[1], p[2]).x >> " + s.shift_count(8)) +
          ";\n";
  text += assignment +
          s.select_over_lines(bernoulli, uniform, "threshold > 0x1000000u", assignment.size()) +
          ";\n";
  return text + "  }\n}\n";
}

}  // namespace random_text

std::string random_source_of(const RandomSyntax& syntax) {
  return syntax.header() +
         syntax.buffer(1, "Out", "y", syntax.float_type(), RandomSyntax::Access::Write) +
         syntax.product_function() + random_text::philox_function(syntax) +
         random_text::entry(syntax);
}

}  // namespace ember::shader
