#include "backends/vulkan/index_copy_sources.h"

#include <cstdint>
#include <string>
#include <string_view>

#include "backends/shader/index_copy_text.h"
#include "backends/shader/kernel_syntax.h"

namespace ember::vulkan {
namespace {

/// The GLSL spelling of the index-copy kernels (shader/index_copy_text.h). Every buffer is an
/// array of uint (GLSL's atomics take any of its words); E is a macro.
class GlslIndexCopy final : public shader::GlslKernelSyntax<shader::IndexCopySyntax> {
 public:
  std::string header() const override {
    return parameters_header(
        "ember's vulkan data movement (src/backends/vulkan/index_copy_sources.cpp)",
        shader::kIndexCopyWorkgroup);
  }
  std::string words(int binding, const std::string& name, bool /*atomic*/) const override {
    return "layout(std430, set = 0, binding = " + std::to_string(binding) + ") buffer B" + name +
           " { uint " + name + "[]; };\n";
  }
  std::string entry() const override { return "void main() {\n"; }

  std::string_view pair_type() const override { return "uvec2"; }
  std::string alias(const std::string& name, std::string_view type) const override {
    return "#define " + name + " " + std::string(type) + "\n";
  }

  std::string governing(const std::string& indent, const std::string& head,
                        const std::string& statement) const override {
    return indent + head + " " + statement + "\n";
  }
  std::string read_unused(const std::string& /*name*/) const override { return {}; }

  std::string invocations() const override {
    return "gl_NumWorkGroups.x * " + std::to_string(shader::kIndexCopyWorkgroup) + "u";
  }

  std::string extract_bits(const std::string& word, const std::string& offset,
                           uint32_t bits) const override {
    return "bitfieldExtract(" + word + ", int(" + offset + "), " + std::to_string(bits) + ")";
  }
  std::string atomic_word(const std::string& word) const override { return word; }
  std::string sign_word(const std::string& word) const override {
    return "uint(int(" + word + ") >> 31)";
  }
};

}  // namespace

shader::IndexCopySources index_copy_sources() {
  return shader::index_copy_sources_of<GlslIndexCopy>();
}

}  // namespace ember::vulkan
