#include "backends/vulkan/conv_pool_kernels.h"

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include "backends/shader/conv_pool_text.h"
#include "backends/shader/kernel_syntax.h"

namespace ember::vulkan {

std::string spatial_header(const std::string& type, const std::string& accumulator,
                           const std::string& workgroup, const std::string& extensions) {
  return "#version 450\n" + extensions +
         "// ember's vulkan convolution, pooling or interpolation\n"
         "#define T " +
         type + "\n#define A " + accumulator + "\nlayout(" + workgroup + ") in;" + R"(
layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };
// The element this invocation writes: workgroups are numbered y * (workgroups along x) + x.
uint element() {
  return gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 256u + gl_GlobalInvocationID.x;
}
// e's position (d, h, w) in the spatial extents p[at], p[at + 1], p[at + 2], row-major; rest:
// what is left of e above them (its plane, or its sample and channel).
ivec3 split(uint e, uint at, out uint rest) {
  ivec3 position;
  position.z = int(e % p[at + 2u]);
  e /= p[at + 2u];
  position.y = int(e % p[at + 1u]);
  e /= p[at + 1u];
  position.x = int(e % p[at]);
  rest = e / p[at];
  return position;
}
)";
}

std::string spatial_buffer(int binding, const std::string& access, const std::string& elem,
                           const std::string& name) {
  return "layout(std430, set = 0, binding = " + std::to_string(binding) + ") " + access +
         " buffer B" + std::to_string(binding) + " { " + elem + " " + name + "[]; };\n";
}

namespace {

/// The tensors' type of dtype.
std::string type_of(DType dtype) {
  return dtype == DType::F64 ? "double" : "float";
}

/// The GLSL spelling of the convolution and pooling kernels (shader/conv_pool_text.h): the
/// tensors' type T and the accumulator's A are the header's defines, and a source chooses the
/// bias, the maximum or the average and double's NaN test by the preprocessor.
class GlslConvPool final : public shader::GlslKernelSyntax<shader::ConvPoolSyntax> {
 public:
  explicit GlslConvPool(bool doubles) : doubles_(doubles) {}

  std::string header(DType dtype, bool averages, bool tiled) const override {
    // Averages add in double where the device has it, as ndarray's do.
    return spatial_header(type_of(dtype), averages && doubles_ ? "double" : type_of(dtype),
                          tiled ? "local_size_x = 16, local_size_y = 16" : "local_size_x = 256");
  }
  std::string tensor_type(DType dtype) const override { return type_of(dtype); }
  std::string_view value_type() const override { return "T"; }
  std::string_view accumulator_type() const override { return "A"; }
  std::string converted(std::string_view type, const std::string& value) const override {
    return std::string(type) + "(" + value + ")";
  }
  std::string zero(std::string_view type) const override { return converted(type, "0"); }
  bool doubles() const override { return doubles_; }
  std::string flag(const std::string& name) const override { return "#define " + name + " 1\n"; }
  std::string either(bool /*max*/, const std::string& max_lines,
                     const std::string& average_lines) const override {
    return "#ifdef MAX\n" + max_lines + "#else\n" + average_lines + "#endif\n";
  }

  std::string int_vector_type(int size) const override { return "ivec" + std::to_string(size); }
  std::string int_vector_of_words(const std::string& a, const std::string& b,
                                  const std::string& c) const override {
    return int_vector_type(3) + "(" + a + ", " + b + ", " + c + ")";
  }
  std::string private_variables(std::string_view type,
                                std::initializer_list<std::string_view> names) const override {
    std::string text = std::string(type);
    for (const std::string_view& name : names)
      text += (&name == names.begin() ? " " : ", ") + std::string(name);
    return text + ";\n";
  }
  std::string structure(const std::string& name, std::initializer_list<Parameter> fields,
                        bool wrapped) const override {
    const std::string space = wrapped ? "\n  " : " ";
    std::string text = "struct " + name + " {";
    for (const Parameter& field : fields)
      text += space + std::string(field.type) + " " + std::string(field.name) + ";";
    return text + (wrapped ? "\n" : " ") + "};\n";
  }
  std::string shared_array(const std::string& name,
                           std::initializer_list<int> sizes) const override {
    std::string text = "shared A " + name;
    for (const int size : sizes)
      text += "[" + std::to_string(size) + "]";
    return text + ";\n";
  }
  std::string section_break() const override { return "\n"; }
  std::string entry(const std::string& /*size*/) const override { return "void main() {\n"; }

  std::string split(const std::string& element, const std::string& at, const std::string& position,
                    const std::string& rest, bool /*named_position*/) const override {
    return "  uint " + rest + ";\n  const ivec3 " + position + " = split(" + element + ", " + at +
           ", " + rest + ");\n";
  }
  std::string split_position(const std::string& position) const override { return position; }
  std::string element_index() const override { return "element()"; }
  std::string group_count() const override { return "groups"; }
  std::string workgroup_row() const override { return "gl_WorkGroupID.y"; }
  std::string local_row() const override { return "gl_LocalInvocationID.y"; }
  std::string shared_barrier(const std::string& indent) const override {
    return indent + "memoryBarrierShared();\n" + indent + barrier() + ";\n";
  }
  std::string guarded(const std::string& indent, const std::string& condition,
                      const std::string& statement) const override {
    return indent + "if (" + condition + ")\n" + indent + "  " + statement + "\n";
  }

  std::string staged(const std::string& tile, const std::string& /*name*/,
                     const std::string& condition, const std::string& value) const override {
    return "      " + tile + " =\n          " +
           select(zero("A"), converted("A", value), condition) + ";\n";
  }
  bool volume_first() const override { return false; }
  std::string store_function() const override {
    return "// y[e]: acc, plus output channel c's bias where there is one, rounded to T.\n"
           "void store(uint e, uint c, A acc) {\n#ifdef BIAS\n  y[e] = T(A(b[c]) + acc);\n"
           "#else\n  y[e] = T(acc);\n#endif\n}\n";
  }
  std::string store(const std::string& element, bool /*bias*/) const override {
    return "  store(" + (element.empty() ? std::string("e") : element) + ", c, acc);\n}\n";
  }
  std::string windows_nan_function() const override { return {}; }
  std::string pool_nan_functions() const override {
    return R"(bool is_nan(float v) { return (floatBitsToUint(v) & 0x7fffffffu) > 0x7f800000u; }
#ifdef DOUBLES
bool is_nan(double v) {
  const uvec2 u = unpackDouble2x32(v);
  const uint high = u.y & 0x7fffffffu;
  return high > 0x7ff00000u || (high == 0x7ff00000u && u.x != 0u);
}
#endif
)";
  }

 private:
  bool doubles_;
};

}  // namespace

shader::SpatialLimits spatial_limits(const PhysicalDevice& physical,
                                     const shader::DeviceLimits& limits) {
  const Features& features = physical.features;
  return {limits.max_binding,
          limits.max_groups,
          features.float64,
          shader::tiled_conv_on(physical.kind.type() == DeviceKind::Type::Cpu),
          features.float16 && features.storage16,
          limits.max_loop_turns};
}

ConvPoolKernels make_conv_pool_kernels(const PhysicalDevice& physical, const KernelRunner& runner) {
  return ConvPoolKernels(
      spatial_limits(physical, runner.limits()),
      shader::conv_pool_sources_of(std::make_unique<GlslConvPool>(physical.features.float64)),
      shader::spatial_dispatch<BufferRange>(runner));
}

}  // namespace ember::vulkan
