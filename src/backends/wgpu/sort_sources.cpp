#include "backends/wgpu/sort_sources.h"

#include <string>
#include <string_view>

#include "backends/shader/kernel_syntax.h"
#include "backends/shader/sort_passes.h"
#include "backends/shader/sort_text.h"

namespace ember::wgpu {
namespace {

/// The WGSL spelling of the sort kernels (shader/sort_text.h). Every buffer but p is bound
/// read_write, whatever the kernel does with it; the builtins are the entry points' parameters.
class WgslSort final : public shader::WgslKernelSyntax<shader::SortSyntax> {
 public:
  std::string header() const override {
    return parameters_header("ember's wgpu sort (src/backends/wgpu/sort_sources.cpp)");
  }
  std::string shared_words(const std::string& name) const override {
    return "var<workgroup> " + name + ": array<u32, " + std::to_string(shader::kMaxSortLane) +
           ">;\n";
  }

  std::string network_entry() const override {
    return "@compute @workgroup_size(" + std::to_string(shader::kSortWorkgroup) +
           ")\n"
           "fn main(@builtin(workgroup_id) group: vec3<u32>, "
           "@builtin(num_workgroups) groups: vec3<u32>,\n"
           "        @builtin(local_invocation_id) local: vec3<u32>) {\n";
  }
  std::string entry() const override { return invocations_entry(shader::kSortWorkgroup); }
  std::string local_line() const override { return {}; }
  std::string local() const override { return "local.x"; }

  std::string int_of_bits(const std::string& bits) const override {
    return "bitcast<i32>(" + bits + ")";
  }

  std::string if_else(const std::string& indent, const std::string& condition,
                      const std::string& statement, const std::string& otherwise) const override {
    return indent + "if (" + condition + ") {\n" + indent + "  " + statement + "\n" + indent +
           "} else {\n" + indent + "  " + otherwise + "\n" + indent + "}\n";
  }
  std::string chosen(const std::string& indent, std::string_view type, const std::string& name,
                     const std::string& condition, const std::string& if_true,
                     const std::string& if_false) const override {
    return indent + "var " + name + ": " + std::string(type) + ";\n" +
           if_else(indent, condition, name + " = " + if_true + ";", name + " = " + if_false + ";");
  }
  std::string read_or_zero(const std::string& indent, const std::string& target,
                           const std::string& condition, const std::string& value) const override {
    return indent + variable(word_type(), "word", "0u") + ";\n" + indent +
           if_then(condition, "word = " + value + ";") + "\n" + indent + target + " = word;\n";
  }
};

}  // namespace

shader::SortSources sort_sources(DType dtype) {
  return shader::sort_sources_of(dtype, WgslSort());
}

}  // namespace ember::wgpu
