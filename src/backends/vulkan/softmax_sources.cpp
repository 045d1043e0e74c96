#include "backends/vulkan/softmax_sources.h"

#include <string>

#include "backends/shader/kernel_syntax.h"
#include "backends/shader/softmax_passes.h"
#include "backends/shader/softmax_text.h"

namespace ember::vulkan {
namespace {

/// The GLSL spelling of the softmax kernels (shader/softmax_text.h). The tree reads the
/// invocation's index from the builtin; its step reads part in place.
class GlslSoftmax final : public shader::GlslKernelSyntax<shader::SoftmaxSyntax> {
 public:
  std::string header() const override {
    return parameters_header("ember's vulkan softmax (src/backends/vulkan/softmax_sources.cpp)",
                             shader::kSoftmaxWorkgroup);
  }
  std::string shared_floats(const std::string& name) const override {
    return "shared float " + name + "[" + std::to_string(shader::kSoftmaxWorkgroup) + "];\n";
  }
  std::string named_array(const std::string& name) const override { return name + "[]"; }

  std::string short_entry() const override { return "void main() {\n"; }
  std::string workgroup_entry() const override { return short_entry(); }

  std::string tree_function() const override {
    return function(float_type(), "tree", {{"bool", "max_op"}}) + " {\n  " +
           constant(word_type(), "id", local_invocation()) + ";\n";
  }
  std::string tree_call(const std::string& max_op) const override { return "tree(" + max_op + ")"; }
  std::string tree_step() const override {
    return "    if (id < half_size)\n      part[id] = " +
           select("part[id] + part[id + half_size]", "larger(part[id], part[id + half_size])",
                  "max_op") +
           ";\n";
  }
};

}  // namespace

shader::SoftmaxSources softmax_sources() {
  return shader::softmax_sources_of(GlslSoftmax());
}

}  // namespace ember::vulkan
