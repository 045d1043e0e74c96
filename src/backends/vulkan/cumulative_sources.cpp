#include "backends/vulkan/cumulative_sources.h"

#include <string>

#include "backends/shader/cumulative_scan.h"
#include "backends/shader/cumulative_text.h"
#include "backends/shader/index_copy.h"
#include "backends/shader/kernel_syntax.h"

namespace ember::vulkan {
namespace {

/// The GLSL spelling of the cumulative kernels (shader/cumulative_text.h). Float sums and
/// products accumulate in precise doubles, converted to and from the elements' type.
class GlslCumulative final : public shader::GlslKernelSyntax<shader::CumulativeSyntax> {
 public:
  std::string header() const override {
    return parameters_header(
        "ember's vulkan cumulative ops (src/backends/vulkan/cumulative_sources.cpp)",
        shader::kIndexCopyWorkgroup);
  }
  std::string entry() const override { return "void main() {\n"; }

  std::string element_type(DType dtype) const override {
    return dtype == DType::F64   ? "double"
           : dtype == DType::F32 ? "float"
           : dtype == DType::I32 ? "int"
                                 : "uint";
  }
  std::string accumulator_type(ir::CumulativeOp op, DType dtype) const override {
    return shader::scan_carry_bytes(op, dtype) == 8 ? "double" : element_type(dtype);
  }
  std::string converted(const std::string& type, const std::string& value) const override {
    return type + "(" + value + ")";
  }
  std::string precise_variable(const std::string& type, const std::string& name,
                               const std::string& value) const override {
    return "precise " + variable(type, name, value);
  }
  bool nan_tested(DType dtype) const override { return is_float(dtype); }
};

}  // namespace

std::string cumulative_source(ir::CumulativeOp op, DType dtype, shader::ScanPass pass) {
  return shader::cumulative_source_of(op, dtype, pass, GlslCumulative());
}

}  // namespace ember::vulkan
