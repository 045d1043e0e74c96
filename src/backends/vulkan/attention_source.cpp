#include "backends/vulkan/attention_source.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/shader/attention_passes.h"
#include "backends/shader/attention_text.h"
#include "backends/shader/kernel_syntax.h"

namespace ember::vulkan {
namespace {

/// The GLSL spelling of the attention kernels (shader/attention_text.h). The case's constants,
/// -inf and each pass's tiles and rows are macros; where a workgroup stands is a Block that any
/// function finds from the builtins; a row's reads choose 0 element by element.
class GlslAttention final : public shader::GlslKernelSyntax<shader::AttentionSyntax> {
 public:
  std::string header() const override {
    return "#version 450\n// ember's vulkan attention (src/backends/vulkan/attention_source.cpp)\n";
  }
  std::string specialisation(const std::string& name, uint64_t value) const override {
    return macro(name, std::to_string(value) + "u");
  }
  std::string specialisation_literal(uint64_t value) const override {
    return std::to_string(value);
  }
  std::string parameters() const override {
    return "layout(local_size_x = ROWS) in;\n" +
           buffer(0, "Parameters", "p", word_type(), Access::Read);
  }

  std::string shared_floats(const std::string& name, const std::string& size) const override {
    return "shared float " + name + "[" + size + "];\n";
  }
  std::string float_array(const std::string& name, const std::string& size) const override {
    return "float " + name + "[" + size + "]";
  }
  std::string neg_inf() const override { return "NEG_INF"; }
  std::string with_neg_inf(const std::string& tiles) const override {
    return macro(neg_inf(), float_of_bits("0xff800000u")) + tiles;
  }

  std::string mask_base_head() const override {
    return function(word_type(), "mask_base", {{word_type(), "b"}}) + " {\n";
  }
  std::string masked_score(const std::string& byte) const override {
    return "    " + constant(word_type(), "byte", byte) + ";\n    return " +
           select(neg_inf(), "scaled", "byte != 0u") + ";\n";
  }
  std::string block_function() const override {
    return "// Where a workgroup of ROWS rows (queries, or keys) of n stands: its batch entry, its "
           "first row,\n// this invocation's row.\nstruct Block { uint b; uint r0; uint r; };\n" +
           function("Block", "block_of", {{word_type(), "n"}}) + " {\n" +
           shader::constants(*this, "  ", word_type(),
                             {{"blocks", "(n + ROWS - 1u) / ROWS"},
                              {"r0", "(" + workgroup() + " % blocks) * ROWS"}}) +
           "  return Block(" + workgroup() + " / blocks, r0, r0 + " + local_invocation() +
           ");\n}\n";
  }
  std::string row_function(const std::string& name, const std::string& size) const override {
    return function(float_type(), name, {{"const float", "a[" + size + "]"}, {word_type(), "r"}});
  }

  std::string tiles_function() const override {
    return function("", "load_tiles",
                    {{word_type(), "first"}, {word_type(), "r0"}, {word_type(), "n"}});
  }
  std::string tiles_local() const override { return local_invocation(); }
  std::string tiles_call(const std::string& args) const override {
    return "load_tiles(" + args + ")";
  }
  std::string governed(const std::string& indent, const std::string& head,
                       const std::string& statement) const override {
    return indent + head + "\n" + indent + "  " + statement + "\n";
  }
  std::string pass_definition(const std::string& name, const std::string& value) const override {
    return macro(name, value);
  }
  std::string pass_name(const std::string& name, const std::string& /*value*/) const override {
    return name;
  }

  std::string entry() const override { return "void main() {\n"; }
  std::string block_lines(const std::string& n_rows) const override {
    return shader::constants(*this, "  ", "Block", {{"at", "block_of(" + n_rows + ")"}});
  }
  std::string block(const std::string& field) const override { return "at." + field; }
  std::string stats_entry() const override { return entry(); }

  std::string row_reads(const shader::RowReads& reads) const override {
    std::string text;
    for (auto first = reads.arrays.begin(); first != reads.arrays.end();) {
      const auto last = std::find_if(first, reads.arrays.end(),
                                     [&](const auto& array) { return array.size != first->size; });
      text += same_size_reads(first, last);
      first = last;
    }
    if (!reads.comment.empty()) text += "  " + reads.comment + "\n";
    for (const shader::RowReads::Scalar& scalar : reads.scalars)
      text += shader::constants(*this, "  ", float_type(),
                                {{scalar.name, select("0.0", scalar.value, "valid")}});
    return text;
  }
  std::string query_stats(const std::string& index) const override {
    return shader::constants(*this, "      ", word_type(), {{"stat", index}});
  }
  std::string query_stat(const std::string& /*name*/, const std::string& offset) const override {
    return "(" + select("0.0", "stats[stat" + offset + "]", "query") + ")";
  }

 private:
  /// The line defining the macro name as value.
  static std::string macro(const std::string& name, const std::string& value) {
    return "#define " + name + " " + value + "\n";
  }

  using Arrays = std::vector<shader::RowReads::Array>::const_iterator;

  /// The reads of the arrays [first, last), all of one size: their declarations, then one loop
  /// over their elements (on its head's line where it has one statement).
  std::string same_size_reads(Arrays first, Arrays last) const {
    std::string declarations;
    std::vector<std::string> statements;
    for (Arrays array = first; array != last; ++array) {
      declarations += "  " + float_array(array->name, array->size) + ";\n";
      statements.push_back(
          array->name + "[c] = " +
          (array->element.empty() ? "0.0" : select("0.0", array->element, "valid")) + ";");
    }
    const std::string loop = element_loop(first->size);
    if (statements.size() == 1) return declarations + "  " + headed(loop, statements[0]) + "\n";
    std::string text = declarations + "  " + loop + " {\n";
    for (const std::string& statement : statements)
      text += "    " + statement + "\n";
    return text + "  }\n";
  }
};

}  // namespace

std::string attention_source(shader::AttentionPass pass,
                             const shader::AttentionGeometry& geometry) {
  return shader::attention_source_of(pass, geometry, GlslAttention());
}

}  // namespace ember::vulkan
