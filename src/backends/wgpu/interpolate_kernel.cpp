#include "backends/wgpu/interpolate_kernel.h"

#include <memory>
#include <string>

#include "backends/shader/interpolate_text.h"
#include "backends/shader/kernel_syntax.h"
#include "backends/shader/spatial_dispatch.h"
#include "backends/wgpu/conv_pool_kernels.h"
#include "codegen/wgsl_program.h"

namespace ember::wgpu {
namespace {

// f32: an invocation an element. f16, packed two to a word (the first the low half, as wgpu's
// other kernels store it): an invocation a word, each half rounded to nearest even from f32.
constexpr const char* kStoreF32 = R"(  let e = element(gid, groups);
  if (e >= p[0]) { return; }
  dst[e] = value(e);
}
)";
constexpr const char* kStoreF16 = R"(  let w = element(gid, groups);
  let e = 2u * w;
  if (e >= p[0]) { return; }
  var high = 0u;
  if (e + 1u < p[0]) { high = ember_f16_bits(value(e + 1u)); }
  dst[w] = ember_f16_bits(value(e)) | (high << 16u);
}
)";

/// The WGSL spelling of the interpolation kernels (shader/interpolate_text.h): coordinates,
/// weights and sums in f32 (ndarray's compute type of f32; WGSL has no f64), the gradient's terms
/// added in a compensated sum (a nearest upsampling by 2^16 adds 2^16 of them; the vulkan kernel
/// and ndarray add in double). value(e) is a function the entry point stores, src and dst of f16
/// two to a word.
class WgslInterpolate final : public shader::WgslKernelSyntax<shader::InterpolateSyntax> {
 public:
  std::string prelude(DType dtype, const std::string& /*input*/,
                      const std::string& /*output*/) const override {
    const bool half = dtype == DType::F16;
    const std::string element = half ? "u32" : "f32";
    std::string text = std::string(kSpatialHeader) + spatial_buffer(1, element, "src") +
                       spatial_buffer(2, element, "dst");
    text += half ? "fn load(i: u32) -> f32 { return unpack2x16float(src[i >> 1u])[i & 1u]; }\n"
                 : "fn load(i: u32) -> f32 { return src[i]; }\n";
    return half ? text + std::string(codegen::wgsl_f16_bits_helper()) : text;
  }
  std::string epilogue(DType dtype) const override {
    return spatial_entry(std::to_string(shader::kSpatialWorkgroup)) +
           (dtype == DType::F16 ? kStoreF16 : kStoreF32);
  }

  std::string_view coordinate_type() const override { return float_type(); }
  std::string_view sum_type() const override { return float_type(); }
  std::string coordinate_literal(const std::string& number) const override {
    return float_literal(number.find('.') == std::string::npos ? number + ".0" : number);
  }
  std::string summed(const std::string& value) const override { return value; }
  std::string sum_zero() const override { return float_literal("0.0"); }

  std::string pinned_constant(const std::string& name, const std::string& value) const override {
    return constant(float_type(), name, value);
  }
  std::string pinned(const std::string& /*indent*/, const std::string& /*name*/,
                     const std::string& /*value*/) const override {
    return {};
  }
  std::string pinned_value(const std::string& /*name*/, const std::string& value) const override {
    return value;
  }
  std::string declared(std::string_view type, const std::string& name) const override {
    return "var " + name + ": " + std::string(type);
  }
  std::string indexable(std::string_view type, const std::string& name,
                        const std::string& value) const override {
    return variable(type, name, value);
  }

  std::string ratio_body(const std::string& f32_return) const override { return f32_return; }
  std::string cubic_far() const override { return "((-0.75f * x + 3.75f) * x - 6.0f) * x + 3.0f"; }
  std::string taps_struct() const override {
    return "struct Taps { count: i32, index: array<i32, 4>, weight: array<f32, 4> }\n";
  }
  std::string locate_function(const std::string& plane_size) const override {
    return "struct Located { position: vec3<i32>, base: u32 }\n"
           "fn locate(e: u32, at: u32, other: u32) -> Located {\n"
           "  let here = split(e, at);\n"
           "  return Located(here.position, here.rest * " +
           plane_size + ");\n}\n";
  }
  std::string located(const std::string& name, const std::string& at,
                      const std::string& other) const override {
    return "  let here = locate(e, " + at + ", " + other + ");\n  let " + name +
           " = here.position;\n  let base = here.base;\n";
  }
  std::string edge_bound(const std::string& name, const std::string& edge,
                         const std::string& at_edge, const std::string& otherwise) const override {
    return "  " + variable(int_type(), name, at_edge) + ";\n  " +
           if_then("i != " + edge, name + " = " + otherwise + ";") + "\n";
  }
  std::string_view int_pair_type() const override { return "vec2<i32>"; }

  std::string value_head() const override { return "fn value(e: u32) -> f32 {\n"; }
  std::string input_term(const std::string& /*name*/, const std::string& index) const override {
    return "load(" + index + ")";
  }
  std::string value_end(const std::string& /*output*/, const std::string& sum) const override {
    return "  return " + sum + ";\n}\n";
  }
  std::string sum_helper() const override {
    return std::string(codegen::wgsl_compensated_sum_helper());
  }
  std::string gradient_sum_start() const override {
    return "  opaque_zero = p[0] >> 31u;\n  var total = Sum(0.0f, 0.0f);\n";
  }
  std::string gradient_add(const std::string& term) const override {
    return "total = add(total, " + term + ");";
  }
  std::string gradient_sum() const override { return "sum_value(total)"; }
  std::string gradient_gap() const override { return "\n"; }
  std::string loop_over(const std::string& indent, const std::string& head,
                        const std::string& statement) const override {
    return indent + head + " {\n" + indent + "  " + statement + "\n" + indent + "}\n";
  }
};

}  // namespace

InterpolateKernels make_interpolate_kernels(const Adapter& adapter, const KernelRunner& runner) {
  return InterpolateKernels(spatial_limits(adapter, runner.limits()),
                            std::make_unique<WgslInterpolate>(),
                            shader::spatial_dispatch<BufferRange>(runner));
}

}  // namespace ember::wgpu
