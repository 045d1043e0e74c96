#include "backends/vulkan/interpolate_kernel.h"

#include <memory>
#include <string>

#include "backends/shader/interpolate_text.h"
#include "backends/shader/kernel_syntax.h"
#include "backends/shader/spatial_dispatch.h"
#include "backends/vulkan/conv_pool_kernels.h"

namespace ember::vulkan {
namespace {

/// The GLSL spelling of the interpolation kernels (shader/interpolate_text.h). T: the tensors'
/// type, F: the coordinates' (x's compute type, ndarray's), A: the sums' (double where the device
/// has it, as ndarray sums); `precise` keeps the compiler from fusing the coordinates' and
/// weights' operations into fma, which rounds once.
class GlslInterpolate final : public shader::GlslKernelSyntax<shader::InterpolateSyntax> {
 public:
  explicit GlslInterpolate(bool doubles) : doubles_(doubles) {}

  std::string prelude(DType dtype, const std::string& input,
                      const std::string& output) const override {
    return header(dtype) + spatial_buffer(1, "readonly", type_of(dtype), input) +
           spatial_buffer(2, "writeonly", type_of(dtype), output);
  }
  std::string epilogue(DType /*dtype*/) const override { return {}; }

  std::string_view coordinate_type() const override { return "F"; }
  std::string_view sum_type() const override { return "A"; }
  std::string coordinate_literal(const std::string& number) const override {
    return "F(" + number + ")";
  }
  std::string summed(const std::string& value) const override { return "A(" + value + ")"; }
  std::string sum_zero() const override { return summed("0"); }

  std::string pinned_constant(const std::string& name, const std::string& value) const override {
    return "precise " + variable(coordinate_type(), name, value);
  }
  std::string pinned(const std::string& indent, const std::string& name,
                     const std::string& value) const override {
    return indent + pinned_constant(name, value) + ";\n";
  }
  std::string pinned_value(const std::string& name, const std::string& /*value*/) const override {
    return name;
  }
  std::string declared(std::string_view type, const std::string& name) const override {
    return std::string(type) + " " + name;
  }
  std::string indexable(std::string_view type, const std::string& name,
                        const std::string& value) const override {
    return constant(type, name, value);
  }

  std::string ratio_body(const std::string& f32_return) const override {
    return "#ifdef F64\n  return packDouble2x32(uvec2(p[11u + 2u * a], p[12u + 2u * "
           "a]));\n#else\n" +
           f32_return + "#endif\n";
  }
  std::string cubic_far() const override {
    return "((F(-0.75) * x - F(-3.75)) * x + F(-6)) * x - F(-3)";
  }
  std::string taps_struct() const override {
    return "struct Taps {\n  int count;\n  int index[4];\n  F weight[4];\n};\n";
  }
  std::string locate_function(const std::string& plane_size) const override {
    return "ivec3 locate(uint e, uint at, uint other, out uint base) {\n"
           "  uint plane;\n"
           "  const ivec3 position = split(e, at, plane);\n"
           "  base = plane * " +
           plane_size + ";\n  return position;\n}\n";
  }
  std::string located(const std::string& name, const std::string& at,
                      const std::string& other) const override {
    return "  uint base;\n  " +
           constant("ivec3", name, "locate(e, " + at + ", " + other + ", base)") + ";\n";
  }
  std::string edge_bound(const std::string& name, const std::string& edge,
                         const std::string& at_edge, const std::string& otherwise) const override {
    return "  " + constant(int_type(), name, select(otherwise, at_edge, "i == " + edge)) + ";\n";
  }
  std::string_view int_pair_type() const override { return "ivec2"; }

  std::string value_head() const override {
    return "void main() {\n  " + constant(word_type(), "e", "element()") + ";\n  " +
           if_then("e >= p[0]", "return;") + "\n";
  }
  std::string input_term(const std::string& name, const std::string& index) const override {
    return summed(name + "[" + index + "]");
  }
  std::string value_end(const std::string& output, const std::string& sum) const override {
    return "  " + output + "[e] = T(" + sum + ");\n}\n";
  }
  std::string sum_helper() const override { return {}; }
  std::string gradient_sum_start() const override {
    return "  " + variable(sum_type(), "sum", sum_zero()) + ";\n";
  }
  std::string gradient_add(const std::string& term) const override {
    return "sum += " + term + ";";
  }
  std::string gradient_sum() const override { return "sum"; }
  std::string gradient_gap() const override { return {}; }
  std::string loop_over(const std::string& indent, const std::string& head,
                        const std::string& statement) const override {
    return indent + head + "\n" + indent + "  " + statement + "\n";
  }

 private:
  /// The tensors' type; f16 is stored as float16_t.
  static std::string type_of(DType dtype) {
    if (dtype == DType::F16) return "float16_t";
    return dtype == DType::F64 ? "double" : "float";
  }

  /// The parameter block and the types: coordinates in ndarray's compute type (f32 for f16),
  /// sums in double where the device has it.
  std::string header(DType dtype) const {
    const std::string type = type_of(dtype);
    const std::string coordinates = dtype == DType::F64 ? "double" : "float";
    const std::string extensions =
        dtype == DType::F16 ? "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : "
                              "require\n#extension GL_EXT_shader_16bit_storage : require\n"
                            : "";
    return spatial_header(type, doubles_ ? "double" : coordinates,
                          "local_size_x = " + std::to_string(shader::kSpatialWorkgroup),
                          extensions) +
           "#define F " + coordinates + "\n" + (dtype == DType::F64 ? "#define F64 1\n" : "");
  }

  bool doubles_;
};

}  // namespace

InterpolateKernels make_interpolate_kernels(const PhysicalDevice& physical,
                                            const KernelRunner& runner) {
  return InterpolateKernels(spatial_limits(physical, runner.limits()),
                            std::make_unique<GlslInterpolate>(physical.features.float64),
                            shader::spatial_dispatch<BufferRange>(runner));
}

}  // namespace ember::vulkan
