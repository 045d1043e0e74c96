#include "backends/wgpu/attention_source.h"

#include <cstdint>
#include <string>
#include <vector>

#include "backends/shader/attention_passes.h"
#include "backends/shader/attention_text.h"
#include "backends/shader/kernel_syntax.h"

namespace ember::wgpu {
namespace {

/// The WGSL spelling of the attention kernels (shader/attention_text.h). Every tensor is bound
/// read_write (slices of one page may be bound together); functions take no buffers, so each pass
/// writes its own in place; the builtins are the entry points' parameters, so the entry point
/// finds where its workgroup stands and passes load_tiles its index; a row's reads are one if on
/// zero-initialised arrays and variables.
class WgslAttention final : public shader::WgslKernelSyntax<shader::AttentionSyntax> {
 public:
  std::string header() const override {
    return "// ember's wgpu attention (src/backends/wgpu/attention_source.cpp)\n";
  }
  std::string specialisation(const std::string& name, uint64_t value) const override {
    return "const " + name + ": u32 = " + std::to_string(value) + "u;\n";
  }
  std::string specialisation_literal(uint64_t value) const override {
    return std::to_string(value) + "u";
  }
  std::string parameters() const override {
    return "@group(0) @binding(0) var<storage, read> p: array<u32>;\n";
  }

  std::string shared_floats(const std::string& name, const std::string& size) const override {
    return "var<workgroup> " + name + ": array<f32, " + size + ">;\n";
  }
  std::string float_array(const std::string& name, const std::string& size) const override {
    return "var " + name + ": array<f32, " + size + ">";
  }
  std::string neg_inf() const override { return "neg_inf()"; }
  std::string with_neg_inf(const std::string& tiles) const override {
    return tiles + function(float_type(), "neg_inf", {}) + " { return " +
           float_of_bits("0xff800000u") + "; }\n";
  }

  std::string mask_base_head() const override {
    return function(word_type(), "mask_base", {{word_type(), "entry"}}) + " {\n  " +
           variable(word_type(), "b", "entry") + ";\n";
  }
  std::string masked_score(const std::string& byte) const override {
    return "    return " + select(neg_inf(), "scaled", "(" + byte + ") != 0u") + ";\n";
  }
  std::string block_function() const override { return {}; }
  std::string row_function(const std::string& name, const std::string& size) const override {
    return function(float_type(), name, {{"array<f32, " + size + ">", "a"}, {word_type(), "r"}});
  }

  std::string tiles_function() const override {
    return function(
        "", "load_tiles",
        {{word_type(), "id"}, {word_type(), "first"}, {word_type(), "r0"}, {word_type(), "n"}});
  }
  std::string tiles_local() const override { return "id"; }
  std::string tiles_call(const std::string& args) const override {
    return "load_tiles(" + local_invocation() + ", " + args + ")";
  }
  std::string governed(const std::string& indent, const std::string& head,
                       const std::string& statement) const override {
    return indent + head + " {\n" + indent + "  " + statement + "\n" + indent + "}\n";
  }
  std::string pass_definition(const std::string& /*macro*/,
                              const std::string& /*value*/) const override {
    return {};
  }
  std::string pass_name(const std::string& /*macro*/, const std::string& value) const override {
    return value;
  }

  std::string entry() const override {
    return "@compute @workgroup_size(ROWS)\n"
           "fn main(@builtin(local_invocation_id) local: vec3<u32>, "
           "@builtin(workgroup_id) group: vec3<u32>) {\n";
  }
  std::string block_lines(const std::string& n_rows) const override {
    return shader::constants(*this, "  ", word_type(),
                             {{"blocks", "(" + n_rows + " + ROWS - 1u) / ROWS"},
                              {"b", workgroup() + " / blocks"},
                              {"r0", "(" + workgroup() + " % blocks) * ROWS"},
                              {"r", "r0 + " + local_invocation()}});
  }
  std::string block(const std::string& field) const override { return field; }
  std::string stats_entry() const override {
    return "@compute @workgroup_size(ROWS)\n"
           "fn main(@builtin(global_invocation_id) global: vec3<u32>) {\n";
  }
  std::string invocation() const override { return "global.x"; }

  std::string row_reads(const shader::RowReads& reads) const override {
    std::string text;
    std::string loads;
    for (const shader::RowReads::Array& array : reads.arrays) {
      text += "  " + float_array(array.name, array.size) + ";\n";
      if (!array.element.empty())
        loads += "    " +
                 headed(element_loop(array.size), array.name + "[c] = " + array.element + ";") +
                 "\n";
    }
    if (!reads.comment.empty()) text += "  " + reads.comment + "\n";
    return text + read_where("  ", "valid", loads, reads.scalars);
  }
  std::string query_stats(const std::string& index) const override {
    return read_where("      ", "query", {},
                      {{"row_lse", "stats[" + index + "]"}, {"d", "stats[" + index + " + 1u]"}});
  }
  std::string query_stat(const std::string& name, const std::string& /*offset*/) const override {
    return name;
  }

 private:
  /// The lines (at indent) declaring scalars as 0, then, where condition holds, running loads
  /// (lines at indent and 2 spaces) and reading the scalars.
  std::string read_where(const std::string& indent, const std::string& condition,
                         const std::string& loads,
                         const std::vector<shader::RowReads::Scalar>& scalars) const {
    std::string text;
    std::string reads = loads;
    for (const shader::RowReads::Scalar& scalar : scalars) {
      text += indent + variable(float_type(), scalar.name, float_literal("0.0")) + ";\n";
      reads += indent + "  " + scalar.name + " = " + scalar.value + ";\n";
    }
    if (reads.empty()) return text;
    return text + indent + "if (" + condition + ") {\n" + reads + indent + "}\n";
  }
};

}  // namespace

std::string attention_source(shader::AttentionPass pass,
                             const shader::AttentionGeometry& geometry) {
  return shader::attention_source_of(pass, geometry, WgslAttention());
}

}  // namespace ember::wgpu
