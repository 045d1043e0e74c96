#include "backends/wgpu/conv_pool_kernels.h"

#include <initializer_list>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>

#include "backends/shader/conv_pool_text.h"
#include "backends/shader/kernel_syntax.h"

namespace ember::wgpu {

const char* const kSpatialHeader =
    R"(// ember's wgpu convolution, pooling or interpolation
@group(0) @binding(0) var<storage, read> p: array<u32>;
// The element an invocation writes: workgroups are numbered y * (workgroups along x) + x.
fn element(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
  return gid.y * groups.x * 256u + gid.x;
}
// e's position (d, h, w) in the spatial extents p[at], p[at + 1], p[at + 2], row-major; rest:
// what is left of e above them (its plane, or its sample and channel).
struct Split { position: vec3<i32>, rest: u32 }
fn split(e: u32, at: u32) -> Split {
  var t = e;
  let w = i32(t % p[at + 2u]);
  t /= p[at + 2u];
  let h = i32(t % p[at + 1u]);
  t /= p[at + 1u];
  return Split(vec3<i32>(i32(t % p[at]), h, w), t / p[at]);
}
)";

std::string spatial_buffer(int binding, const std::string& elem, const std::string& name) {
  return "@group(0) @binding(" + std::to_string(binding) + ") var<storage, read_write> " + name +
         ": array<" + elem + ">;\n";
}

std::string spatial_entry(const std::string& size) {
  return "@compute @workgroup_size(" + size + ")\n" +
         R"(fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {
)";
}

namespace {

/// The WGSL spelling of the convolution and pooling kernels (shader/conv_pool_text.h): f32
/// throughout, a source written for its one case (bias or none, maximum or average), split()
/// returning a struct, and a tile's terms read only in range through a variable (a select would
/// read them regardless).
class WgslConvPool final : public shader::WgslKernelSyntax<shader::ConvPoolSyntax> {
 public:
  std::string header(DType /*dtype*/, bool /*averages*/, bool /*tiled*/) const override {
    return kSpatialHeader;
  }
  std::string tensor_type(DType /*dtype*/) const override { return "f32"; }
  std::string_view value_type() const override { return "f32"; }
  std::string_view accumulator_type() const override { return "f32"; }
  std::string converted(std::string_view /*type*/, const std::string& value) const override {
    return value;
  }
  std::string zero(std::string_view /*type*/) const override { return float_literal("0.0"); }
  bool doubles() const override { return false; }
  std::string flag(const std::string& /*name*/) const override { return {}; }
  std::string either(bool max, const std::string& max_lines,
                     const std::string& average_lines) const override {
    return max ? max_lines : average_lines;
  }

  std::string int_vector_type(int size) const override {
    return "vec" + std::to_string(size) + "<i32>";
  }
  std::string int_vector_of_words(const std::string& a, const std::string& b,
                                  const std::string& c) const override {
    return int_vector_type(3) + "(i32(" + a + "), i32(" + b + "), i32(" + c + "))";
  }
  std::string private_variables(std::string_view type,
                                std::initializer_list<std::string_view> names) const override {
    std::string text;
    for (const std::string_view name : names)
      text += "var<private> " + std::string(name) + ": " + std::string(type) + ";\n";
    return text;
  }
  std::string structure(const std::string& name, std::initializer_list<Parameter> fields,
                        bool /*wrapped*/) const override {
    std::string text = "struct " + name + " {";
    for (const Parameter& field : fields) {
      text += (&field == fields.begin() ? " " : ", ") + std::string(field.name) + ": " +
              std::string(field.type);
    }
    return text + " }\n";
  }
  std::string shared_array(const std::string& name,
                           std::initializer_list<int> sizes) const override {
    std::string type = "f32";
    for (auto size = std::rbegin(sizes); size != std::rend(sizes); ++size)
      type = "array<" + type + ", " + std::to_string(*size) + ">";
    return "var<workgroup> " + name + ": " + type + ";\n";
  }
  std::string section_break() const override { return {}; }
  std::string entry(const std::string& size) const override { return spatial_entry(size); }

  std::string split(const std::string& element, const std::string& at, const std::string& position,
                    const std::string& rest, bool named_position) const override {
    std::string text = "  let here = split(" + element + ", " + at + ");\n";
    if (named_position) text += "  let " + position + " = here.position;\n";
    return text + "  let " + rest + " = here.rest;\n";
  }
  std::string split_position(const std::string& /*position*/) const override {
    return "here.position";
  }
  std::string element_index() const override { return "element(gid, groups)"; }
  std::string group_count() const override { return "group_count"; }
  std::string workgroup_row() const override { return "group.y"; }
  std::string local_row() const override { return "local.y"; }
  std::string shared_barrier(const std::string& indent) const override {
    return indent + barrier() + ";\n";
  }
  std::string guarded(const std::string& indent, const std::string& condition,
                      const std::string& statement) const override {
    return indent + "if (" + condition + ") {\n" + indent + "  " + statement + "\n" + indent +
           "}\n";
  }

  std::string staged(const std::string& tile, const std::string& name, const std::string& condition,
                     const std::string& value) const override {
    const std::string indent = "      ";
    const std::string assignment = name + " = " + value + ";";
    const std::string line = indent + if_then(condition, assignment);
    // A line too long for the sources' width is the if's block.
    const std::string read = line.size() <= shader::kConvPoolColumns
                                 ? line + "\n"
                                 : guarded(indent, condition, assignment);
    return indent + variable(value_type(), name, zero(value_type())) + ";\n" + read + indent +
           tile + " = " + name + ";\n";
  }
  bool volume_first() const override { return true; }
  std::string store_function() const override { return {}; }
  std::string store(const std::string& element, bool bias) const override {
    const std::string named = element.empty() ? "" : "  let e = " + element + ";\n";
    return named + (bias ? "  y[e] = b[c] + acc;\n}\n" : "  y[e] = acc;\n}\n");
  }
  std::string windows_nan_function() const override { return nan_function("is_nan"); }
  std::string pool_nan_functions() const override { return {}; }
};

}  // namespace

shader::SpatialLimits spatial_limits(const Adapter& adapter, const shader::DeviceLimits& limits) {
  return {limits.max_binding,
          limits.max_groups,
          false,
          shader::tiled_conv_on(adapter.kind.type() == DeviceKind::Type::Cpu),
          true,
          limits.max_loop_turns};
}

ConvPoolKernels make_conv_pool_kernels(const Adapter& adapter, const KernelRunner& runner) {
  return ConvPoolKernels(spatial_limits(adapter, runner.limits()),
                         shader::conv_pool_sources_of(std::make_unique<WgslConvPool>()),
                         shader::spatial_dispatch<BufferRange>(runner));
}

}  // namespace ember::wgpu
