#include "backends/wgpu/softmax_sources.h"

#include <string>

#include "backends/shader/kernel_syntax.h"
#include "backends/shader/softmax_passes.h"
#include "backends/shader/softmax_text.h"

namespace ember::wgpu {
namespace {

/// The WGSL spelling of the softmax kernels (shader/softmax_text.h). The builtins are the entry
/// points' parameters, so the tree takes the invocation's index as one of its own.
class WgslSoftmax final : public shader::WgslKernelSyntax<shader::SoftmaxSyntax> {
 public:
  std::string header() const override {
    return parameters_header("ember's wgpu softmax (src/backends/wgpu/softmax_sources.cpp)");
  }
  std::string shared_floats(const std::string& name) const override {
    return "var<workgroup> " + name + ": array<f32, " + std::to_string(shader::kSoftmaxWorkgroup) +
           ">;\n";
  }
  std::string named_array(const std::string& name) const override { return name; }

  std::string short_entry() const override {
    return workgroup_size() +
           "fn main(@builtin(global_invocation_id) global: vec3<u32>,\n"
           "        @builtin(num_workgroups) groups: vec3<u32>) {\n";
  }
  std::string workgroup_entry() const override {
    return workgroup_size() +
           "fn main(@builtin(local_invocation_id) local: vec3<u32>, "
           "@builtin(workgroup_id) group: vec3<u32>,\n"
           "        @builtin(num_workgroups) groups: vec3<u32>) {\n";
  }
  std::string invocation() const override { return "global.x"; }

  std::string tree_function() const override {
    return function(float_type(), "tree", {{word_type(), "id"}, {"bool", "max_op"}}) + " {\n";
  }
  std::string tree_call(const std::string& max_op) const override {
    return "tree(id, " + max_op + ")";
  }
  std::string tree_step() const override {
    return "    if (id < half_size) {\n" +
           shader::constants(*this, "      ", float_type(),
                             {{"a", "part[id]"}, {"b", "part[id + half_size]"}}) +
           "      part[id] = " + select("a + b", "larger(a, b)", "max_op") + ";\n    }\n";
  }

 private:
  /// The entry points' first line.
  static std::string workgroup_size() {
    return "@compute @workgroup_size(" + std::to_string(shader::kSoftmaxWorkgroup) + ")\n";
  }
};

}  // namespace

shader::SoftmaxSources softmax_sources() {
  return shader::softmax_sources_of(WgslSoftmax());
}

}  // namespace ember::wgpu
