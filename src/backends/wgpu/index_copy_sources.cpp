#include "backends/wgpu/index_copy_sources.h"

#include <cstdint>
#include <string>
#include <string_view>

#include "backends/shader/index_copy_text.h"
#include "backends/shader/kernel_syntax.h"

namespace ember::wgpu {
namespace {

/// The WGSL spelling of the index-copy kernels (shader/index_copy_text.h). A buffer written in
/// parts is an array of atomic<u32>, the others of u32; E is an alias.
class WgslIndexCopy final : public shader::WgslKernelSyntax<shader::IndexCopySyntax> {
 public:
  std::string header() const override {
    return parameters_header(
        "ember's wgpu data movement (src/backends/wgpu/index_copy_sources.cpp)");
  }
  std::string words(int binding, const std::string& name, bool atomic) const override {
    return "@group(0) @binding(" + std::to_string(binding) + ") var<storage, read_write> " + name +
           ": array<" + (atomic ? "atomic<u32>" : "u32") + ">;\n";
  }
  std::string entry() const override { return invocations_entry(shader::kIndexCopyWorkgroup); }

  std::string_view pair_type() const override { return "vec2<u32>"; }
  std::string alias(const std::string& name, std::string_view type) const override {
    return "alias " + name + " = " + std::string(type) + ";\n";
  }

  std::string governing(const std::string& indent, const std::string& head,
                        const std::string& statement) const override {
    return indent + head + " {\n" + indent + "  " + statement + "\n" + indent + "}\n";
  }
  std::string read_unused(const std::string& name) const override { return "_ = " + name; }

  std::string invocations() const override {
    return "groups.x * " + std::to_string(shader::kIndexCopyWorkgroup) + "u";
  }

  std::string extract_bits(const std::string& word, const std::string& offset,
                           uint32_t bits) const override {
    return "extractBits(" + word + ", " + offset + ", " + std::to_string(bits) + "u)";
  }
  std::string atomic_word(const std::string& word) const override { return "&" + word; }
  std::string sign_word(const std::string& word) const override {
    return "bitcast<u32>(bitcast<i32>(" + word + ") >> 31u)";
  }
};

}  // namespace

shader::IndexCopySources index_copy_sources() {
  return shader::index_copy_sources_of<WgslIndexCopy>();
}

}  // namespace ember::wgpu
