#include "backends/vulkan/row_sources.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "backends/shader/kernel_syntax.h"
#include "backends/shader/row_passes.h"
#include "backends/shader/row_text.h"

namespace ember::vulkan {

/// A tensor's binding: a buffer of floats or of words.
std::string declare_row_tensor(uint32_t binding, const shader::RowBinding& tensor) {
  const std::string at = std::to_string(binding);
  return "layout(std430, set = 0, binding = " + at + ") buffer B" + at + " { " +
         (tensor.words ? "uint " : "float ") + tensor.name + "[]; };\n";
}

namespace {

/// The GLSL spelling of the row kernels (shader/row_text.h): GLSL's builtins, its test of infinity,
/// its vectors of two and three f32 added to the sums' leading components.
class GlslRow final : public shader::GlslKernelSyntax<shader::RowSyntax> {
 public:
  std::string header() const override {
    return parameters_header("ember's vulkan fused row ops (src/backends/vulkan/row_sources.cpp)",
                             shader::kRowWorkgroup);
  }
  std::string shared_array(std::string_view type, const std::string& name,
                           uint64_t count) const override {
    return "shared " + std::string(type) + " " + name + "[" + std::to_string(count) + "];\n";
  }
  std::string main_start(const std::string& id_line, const std::string& parameters) const override {
    return "void main() {\n" + parameters + id_line;
  }

  std::string tree_function(std::string_view type, const std::string& name) const override {
    return function(type, name, {{type, "v"}}) + " {\n  " +
           constant(word_type(), "id", local_invocation()) + ";\n";
  }
  std::string tree_call(const std::string& name, const std::string& value) const override {
    return name + "(" + value + ")";
  }

  std::string_view vector_type() const override { return "vec4"; }
  std::string add_to_vector(const std::string& name,
                            std::initializer_list<std::string> parts) const override {
    return name + "." + std::string("xyzw").substr(0, parts.size()) + " += vec" +
           std::to_string(parts.size()) + "(" + components(parts) + ")";
  }

  std::string is_inf(const std::string& value) const override { return "isinf(" + value + ")"; }
  std::string is_negative_infinity(const std::string& value) const override {
    return is_inf(value) + " && " + value + " < 0.0";
  }

  Term term(const std::string& /*indent*/, std::string_view /*type*/, const std::string& /*name*/,
            const std::string& value) const override {
    return {{}, value};
  }
  std::string loop_over(const std::string& indent, const std::string& head,
                        const std::string& lines) const override {
    return indent + head + "\n" + lines;
  }

  std::string class_index(const std::string& name) const override { return name; }
  std::string eager_index(const std::string& name) const override { return name; }
  std::string column_flag(const std::string& /*name*/, const std::string& test) const override {
    return test;
  }
};

}  // namespace

shader::RowSources row_sources() {
  return shader::row_sources_of(GlslRow());
}

}  // namespace ember::vulkan
