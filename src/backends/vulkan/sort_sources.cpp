#include "backends/vulkan/sort_sources.h"

#include <string>
#include <string_view>

#include "backends/shader/kernel_syntax.h"
#include "backends/shader/sort_passes.h"
#include "backends/shader/sort_text.h"

namespace ember::vulkan {
namespace {

/// The GLSL spelling of the sort kernels (shader/sort_text.h). Each buffer declares how the
/// kernel uses it; local is a constant of the builtin gl_LocalInvocationID.
class GlslSort final : public shader::GlslKernelSyntax<shader::SortSyntax> {
 public:
  std::string header() const override {
    return parameters_header("ember's vulkan sort (src/backends/vulkan/sort_sources.cpp)",
                             shader::kSortWorkgroup);
  }
  std::string shared_words(const std::string& name) const override {
    return "shared uint " + name + "[" + std::to_string(shader::kMaxSortLane) + "];\n";
  }

  std::string network_entry() const override { return entry(); }
  std::string entry() const override { return "void main() {\n"; }
  std::string local_line() const override {
    return "  " + constant(word_type(), "local", local_invocation()) + ";\n";
  }
  std::string local() const override { return "local"; }

  std::string int_of_bits(const std::string& bits) const override { return "int(" + bits + ")"; }

  std::string if_else(const std::string& indent, const std::string& condition,
                      const std::string& statement, const std::string& otherwise) const override {
    return indent + if_then(condition, statement) + "\n" + indent + "else " + otherwise + "\n";
  }
  std::string chosen(const std::string& indent, std::string_view type, const std::string& name,
                     const std::string& condition, const std::string& if_true,
                     const std::string& if_false) const override {
    return indent + constant(type, name, condition) + "\n" + indent + "    ? " + if_true + "\n" +
           indent + "    : " + if_false + ";\n";
  }
  std::string read_or_zero(const std::string& indent, const std::string& target,
                           const std::string& condition, const std::string& value) const override {
    return indent + target + " = " + select("0u", value, condition) + ";\n";
  }
};

}  // namespace

shader::SortSources sort_sources(DType dtype) {
  return shader::sort_sources_of(dtype, GlslSort());
}

}  // namespace ember::vulkan
