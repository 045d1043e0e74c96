#include "backends/vulkan/cumulative_kernel.h"

#include <algorithm>
#include <cstddef>
#include <string>

namespace ember::vulkan {
// The kernel's text, named apart from the other kernels' helpers (unity builds join the files).
namespace cumulative_text {

using ir::CumulativeOp;

/// The GLSL type of dtype's elements (f32, f64, i32, u32).
std::string type_of(DType dtype) {
  return dtype == DType::F64   ? "double"
         : dtype == DType::F32 ? "float"
         : dtype == DType::I32 ? "int"
                               : "uint";
}

/// The loop over a lane's elements: at, the element's index; body, what each one does.
std::string lane_loop(const std::string& before, const std::string& body) {
  return R"(void main() {
  const uint lanes = p[0];
  const uint n = p[1];
  const uint inner = p[2];
  for (uint l = gl_GlobalInvocationID.x; l < lanes; l += gl_NumWorkGroups.x * 256u) {
    const uint row = l / inner;
    uint at = row * n * inner + (l - row * inner);
)" + before +
         "    for (uint k = 0u; k < n; ++k) {\n" + body + "      at += inner;\n    }\n  }\n}\n";
}

/// A running sum or product in the accumulator type (double for floats), each prefix converted.
std::string total_body(CumulativeOp op, DType dtype) {
  const std::string type = type_of(dtype);
  const std::string acc = is_float(dtype) ? "double" : type;
  const bool sum = op == CumulativeOp::Sum;
  return lane_loop("    precise " + acc + " total = " + acc + "(" + (sum ? "0" : "1") + ");\n",
                   "      total = total " + std::string(sum ? "+" : "*") + " " + acc +
                       "(x[at]);\n      y[at] = " + type + "(total);\n");
}

/// A running maximum or minimum: the first element, then each better one; a NaN stays.
std::string extreme_body(CumulativeOp op, DType dtype) {
  const std::string type = type_of(dtype);
  const std::string better = op == CumulativeOp::Max ? "v > best" : "v < best";
  const std::string take = is_float(dtype)
                               ? "k == 0u || isnan(v) || (!isnan(best) && " + better + ")"
                               : "k == 0u || " + better;
  return lane_loop("    " + type + " best = " + type + "(0);\n",
                   "      const " + type + " v = x[at];\n      if (" + take +
                       ") best = v;\n      y[at] = best;\n");
}

std::string source(CumulativeOp op, DType dtype) {
  const std::string type = type_of(dtype);
  std::string text = R"(#version 450
// ember's vulkan cumulative ops (src/backends/vulkan/cumulative_kernel.cpp)
)";
  text += R"(layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };
)";
  text += "layout(std430, set = 0, binding = 1) readonly buffer X { " + type + " x[]; };\n";
  text += "layout(std430, set = 0, binding = 2) writeonly buffer Y { " + type + " y[]; };\n";
  const bool total = op == CumulativeOp::Sum || op == CumulativeOp::Prod;
  return text + (total ? total_body(op, dtype) : extreme_body(op, dtype));
}

}  // namespace cumulative_text

CumulativeKernel::CumulativeKernel(const Features& features, KernelCache& kernels,
                                   CommandStream& stream)
    : float64_(features.float64),
      max_range_(features.max_storage_range),
      max_groups_(features.max_groups_x),
      kernels_(kernels),
      stream_(stream) {}

bool CumulativeKernel::takes(ir::CumulativeOp op, DType dtype) const {
  // Sums and products of floats accumulate in double, as ndarray's.
  const bool total = op == ir::CumulativeOp::Sum || op == ir::CumulativeOp::Prod;
  if (dtype == DType::I32 || dtype == DType::U32) return true;
  if (dtype == DType::F64) return float64_;
  return dtype == DType::F32 && (float64_ || !total);
}

void CumulativeKernel::run(const shader::ScanDispatch& dispatch, const BufferRange& x,
                           const BufferRange& out) {
  const BufferRange tensors[] = {x, out};
  stream_.dispatch(kernels_.kernel(cumulative_text::source(dispatch.op, dispatch.dtype), 2),
                   std::as_bytes(std::span(dispatch.words)), tensors,
                   shader::groups_for(dispatch.lanes, max_groups_));
}

}  // namespace ember::vulkan
