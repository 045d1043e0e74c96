#include "backends/wgpu/cumulative_sources.h"

#include <string>

#include "backends/shader/cumulative_scan.h"
#include "backends/shader/cumulative_text.h"
#include "backends/shader/index_copy.h"
#include "backends/shader/kernel_syntax.h"

namespace ember::wgpu {
namespace {

/// The WGSL spelling of the cumulative kernels (shader/cumulative_text.h). WGSL has no double, so
/// the kernels take no float sums or products: the accumulator is the element's type; NaN is a
/// bit test (WGSL has no isnan, and a compiler may fold v != v).
class WgslCumulative final : public shader::WgslKernelSyntax<shader::CumulativeSyntax> {
 public:
  std::string header() const override {
    return parameters_header(
        "ember's wgpu cumulative ops (src/backends/wgpu/cumulative_sources.cpp)");
  }
  std::string entry() const override { return invocations_entry(shader::kIndexCopyWorkgroup); }

  std::string element_type(DType dtype) const override {
    return dtype == DType::F32 ? "f32" : dtype == DType::I32 ? "i32" : "u32";
  }
  std::string accumulator_type(ir::CumulativeOp /*op*/, DType dtype) const override {
    return element_type(dtype);
  }
  std::string converted(const std::string& /*type*/, const std::string& value) const override {
    return value;
  }
  std::string precise_variable(const std::string& type, const std::string& name,
                               const std::string& value) const override {
    return variable(type, name, value);
  }
  bool nan_tested(DType dtype) const override { return dtype == DType::F32; }
};

}  // namespace

std::string cumulative_source(ir::CumulativeOp op, DType dtype, shader::ScanPass pass) {
  return shader::cumulative_source_of(op, dtype, pass, WgslCumulative());
}

}  // namespace ember::wgpu
