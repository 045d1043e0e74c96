// The cumulative kernels' text (cumulative_text.h), in the spelling of a CumulativeSyntax.
#include "backends/shader/cumulative_text.h"

#include <string>
#include <string_view>

#include "backends/shader/cumulative_scan.h"
#include "backends/shader/kernel_syntax.h"

namespace ember::shader {
// The kernels' helpers, named apart from the other kernels' (unity builds join the files).
namespace cumulative_text {

using Access = CumulativeSyntax::Access;
using ir::CumulativeOp;

/// The head of the entry point's loop of name over [0, count), every invocation one a turn.
std::string invocation_loop(const CumulativeSyntax& s, const std::string& name,
                            const std::string& count) {
  return "  " +
         for_loop(s.variable(s.word_type(), name, s.invocation()), name + " < " + count,
                  name + " += " + s.invocations()) +
         " {\n";
}

/// The loop over each block's elements (a whole lane: one block): item, the block's index among
/// all (its carry's); at, the element's index; before, after and body, what each block does
/// first and last and each element in between.
std::string block_loop(const CumulativeSyntax& s, const std::string& before,
                       const std::string& body, const std::string& after) {
  const std::string_view word = s.word_type();
  std::string text = s.entry() + constants(s, "  ", word,
                                           {{"lanes", "p[0]"},
                                            {"n", "p[1]"},
                                            {"inner", "p[2]"},
                                            {"block_len", "p[3]"},
                                            {"blocks", "p[4]"}});
  text += invocation_loop(s, "item", "lanes * blocks");
  text += constants(s, "    ", word,
                    {{"lane", "item / blocks"},
                     {"origin", "(item - lane * blocks) * block_len"},
                     {"row", "lane / inner"}});
  text += "    " +
          s.variable(word, "at", "row * n * inner + (lane - row * inner) + origin * inner") + ";\n";
  text += constants(s, "    ", word, {{"count", "min(block_len, n - origin)"}}) + before;
  text += "    " + for_loop(s.variable(word, "k", "0u"), "k < count", s.increment("k")) + " {\n";
  return text + body + "      at += inner;\n    }\n" + after + "  }\n}\n";
}

/// The loop over each lane's carries (CarryScan): before, then body on each carry c[at] in order.
std::string carry_loop(const CumulativeSyntax& s, const std::string& before,
                       const std::string& body) {
  const std::string_view word = s.word_type();
  std::string text = s.entry() + constants(s, "  ", word, {{"lanes", "p[0]"}, {"blocks", "p[4]"}}) +
                     invocation_loop(s, "lane", "lanes") + before;
  text += "    " +
          for_loop(s.variable(word, "at", "lane * blocks"), "at < (lane + 1u) * blocks",
                   s.increment("at")) +
          " {\n";
  return text + body + "    }\n  }\n}\n";
}

/// A running sum or product in the accumulator's type, each prefix converted.
std::string total_body(const CumulativeSyntax& s, CumulativeOp op, DType dtype, ScanPass pass) {
  const std::string type = s.element_type(dtype);
  const std::string acc = s.accumulator_type(op, dtype);
  const std::string identity = acc + "(" + (op == CumulativeOp::Sum ? "0" : "1") + ")";
  const std::string combine = op == CumulativeOp::Sum ? " + " : " * ";
  if (pass == ScanPass::CarryScan)
    return carry_loop(s, "    " + s.precise_variable(acc, "running", identity) + ";\n",
                      constants(s, "      ", acc, {{"total", "c[at]"}}) +
                          "      c[at] = running;\n      running = running" + combine + "total;\n");
  const std::string start = pass == ScanPass::FromCarries ? "c[item]" : identity;
  const std::string write =
      pass == ScanPass::BlockTotals ? "" : "      y[at] = " + s.converted(type, "total") + ";\n";
  return block_loop(s, "    " + s.precise_variable(acc, "total", start) + ";\n",
                    "      total = total" + combine + s.converted(acc, "x[at]") + ";\n" + write,
                    pass == ScanPass::BlockTotals ? "    c[item] = total;\n" : "");
}

/// better(v, best): whether v replaces the running maximum or minimum best (a NaN does, and
/// stays).
std::string better_function(const CumulativeSyntax& s, CumulativeOp op, DType dtype) {
  const std::string type = s.element_type(dtype);
  const std::string compare = op == CumulativeOp::Max ? "v > best" : "v < best";
  const std::string test =
      s.nan_tested(dtype)
          ? s.is_nan("nan", "v") + " || (!" + s.is_nan("nan", "best") + " && " + compare + ")"
          : compare;
  return s.function("bool", "better", {{type, "v"}, {type, "best"}}) + " { return " + test +
         "; }\n";
}

/// A running maximum or minimum: the first element, then each better one; a NaN stays (once a
/// block has a best: its carry's, or its first element).
std::string extreme_body(const CumulativeSyntax& s, CumulativeOp op, DType dtype, ScanPass pass) {
  const std::string type = s.element_type(dtype);
  const std::string text = better_function(s, op, dtype);
  if (pass == ScanPass::CarryScan)
    return text + carry_loop(s, "    " + s.variable(type, "best", "c[lane * blocks]") + ";\n",
                             constants(s, "      ", type, {{"v", "c[at]"}}) +
                                 "      c[at] = best;\n      " +
                                 s.if_then("better(v, best)", "best = v;") + "\n");
  const bool carried = pass == ScanPass::FromCarries;
  const std::string write = pass == ScanPass::BlockTotals ? "" : "      y[at] = best;\n";
  return text +
         block_loop(s,
                    "    " + s.variable(type, "best", carried ? "c[item]" : type + "(0)") +
                        ";\n    " +
                        s.variable("bool", "started", carried ? "origin > 0u" : "false") + ";\n",
                    constants(s, "      ", type, {{"v", "x[at]"}}) + "      " +
                        s.if_then("!started || better(v, best)", "best = v;") +
                        "\n      started = true;\n" + write,
                    pass == ScanPass::BlockTotals ? "    c[item] = best;\n" : "");
}

/// The buffers pass binds after the parameters: x, y and the carries as it reads or writes them.
std::string buffers(const CumulativeSyntax& s, CumulativeOp op, DType dtype, ScanPass pass) {
  const std::string type = s.element_type(dtype);
  const std::string carries = s.accumulator_type(op, dtype);
  const auto buffer = [&](int binding, const std::string& name, const std::string& of,
                          Access access) {
    return s.buffer(binding, "B" + std::to_string(binding), name, of, access);
  };
  switch (pass) {
    case ScanPass::Whole:
      return buffer(1, "x", type, Access::Read) + buffer(2, "y", type, Access::Write);
    case ScanPass::BlockTotals:
      return buffer(1, "x", type, Access::Read) + buffer(2, "c", carries, Access::Write);
    case ScanPass::CarryScan:
      return buffer(1, "c", carries, Access::ReadWrite);
    case ScanPass::FromCarries:
      return buffer(1, "x", type, Access::Read) + buffer(2, "y", type, Access::Write) +
             buffer(3, "c", carries, Access::Read);
  }
  return {};
}

}  // namespace cumulative_text

std::string cumulative_source_of(ir::CumulativeOp op, DType dtype, ScanPass pass,
                                 const CumulativeSyntax& syntax) {
  const bool total = op == ir::CumulativeOp::Sum || op == ir::CumulativeOp::Prod;
  return syntax.header() + syntax.nan_function("nan") +
         cumulative_text::buffers(syntax, op, dtype, pass) +
         (total ? cumulative_text::total_body(syntax, op, dtype, pass)
                : cumulative_text::extreme_body(syntax, op, dtype, pass));
}

}  // namespace ember::shader
