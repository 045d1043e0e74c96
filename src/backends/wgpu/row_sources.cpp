#include "backends/wgpu/row_sources.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "backends/shader/kernel_syntax.h"
#include "backends/shader/row_passes.h"
#include "backends/shader/row_text.h"

namespace ember::wgpu {

/// A tensor's binding: an array of f32 or of words.
std::string declare_row_tensor(uint32_t binding, const shader::RowBinding& tensor) {
  return "@group(0) @binding(" + std::to_string(binding) + ") var<storage, read_write> " +
         tensor.name + ": array<" + (tensor.words ? "u32" : "f32") + ">;\n";
}

namespace {

/// The WGSL spelling of the row kernels (shader/row_text.h): the builtins are main's parameters
/// (the trees take id), infinities are bit tests (the compiler may assume no NaN or infinity of a
/// comparison), and a term that a select or a bit test makes long is named on a line of its own.
class WgslRow final : public shader::WgslKernelSyntax<shader::RowSyntax> {
 public:
  std::string header() const override {
    return parameters_header("ember's wgpu fused row ops (src/backends/wgpu/row_sources.cpp)");
  }
  std::string shared_array(std::string_view type, const std::string& name,
                           uint64_t count) const override {
    return "var<workgroup> " + name + ": array<" + std::string(type) + ", " +
           std::to_string(count) + ">;\n";
  }
  std::string main_start(const std::string& id_line, const std::string& parameters) const override {
    return "@compute @workgroup_size(" + std::to_string(shader::kRowWorkgroup) +
           ")\n"
           "fn main(@builtin(local_invocation_id) local: vec3<u32>, "
           "@builtin(workgroup_id) group: vec3<u32>,\n"
           "        @builtin(global_invocation_id) global: vec3<u32>,\n"
           "        @builtin(num_workgroups) groups: vec3<u32>) {\n" +
           id_line + parameters;
  }
  std::string invocation() const override { return "global.x"; }

  std::string tree_function(std::string_view type, const std::string& name) const override {
    return function(type, name, {{word_type(), "id"}, {type, "v"}}) + " {\n";
  }
  std::string tree_call(const std::string& name, const std::string& value) const override {
    return name + "(id, " + value + ")";
  }

  std::string_view vector_type() const override { return "vec4<f32>"; }
  std::string add_to_vector(const std::string& name,
                            std::initializer_list<std::string> parts) const override {
    std::string zeros;
    for (std::size_t rest = parts.size(); rest < 4; ++rest)
      zeros += ", " + float_literal("0.0");
    return name + " += " + std::string(vector_type()) + "(" + components(parts) + zeros + ")";
  }

  std::string is_inf(const std::string& value) const override {
    return "(" + bits_of_float(value) + " & 0x7fffffffu) == 0x7f800000u";
  }
  std::string is_negative_infinity(const std::string& value) const override {
    return bits_of_float(value) + " == 0xff800000u";
  }

  Term term(const std::string& indent, std::string_view type, const std::string& name,
            const std::string& value) const override {
    return {indent + constant(type, name, value) + ";\n", name};
  }
  std::string loop_over(const std::string& indent, const std::string& head,
                        const std::string& lines) const override {
    return indent + head + " {\n" + lines + indent + "}\n";
  }

  std::string class_index(const std::string& name) const override {
    return std::string(word_type()) + "(" + name + ")";
  }
  std::string eager_index(const std::string& name) const override {
    return class_index("max(" + name + ", 0)");
  }
  std::string column_flag(const std::string& name, const std::string& /*test*/) const override {
    return name;
  }
};

}  // namespace

shader::RowSources row_sources() {
  return shader::row_sources_of(WgslRow());
}

}  // namespace ember::wgpu
