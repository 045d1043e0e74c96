#include "backends/wgpu/cumulative_kernel.h"

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>

namespace ember::wgpu {
// The kernel's text, named apart from the other kernels' helpers (unity builds join the files).
namespace cumulative_text {

using ir::CumulativeOp;

/// The WGSL type of dtype's elements (f32, i32, u32).
std::string type_of(DType dtype) {
  return dtype == DType::F32 ? "f32" : dtype == DType::I32 ? "i32" : "u32";
}

/// The loop over a lane's elements: at, the element's index; body, what each one does.
std::string lane_loop(const std::string& before, const std::string& body) {
  return R"(@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let lanes = p[0];
  let n = p[1];
  let inner = p[2];
  for (var l = gid.x; l < lanes; l += groups.x * 256u) {
    let row = l / inner;
    var at = row * n * inner + (l - row * inner);
)" + before +
         "    for (var k = 0u; k < n; k++) {\n" + body + "      at += inner;\n    }\n  }\n}\n";
}

/// A running sum or product in wrapping 32-bit integers.
std::string total_body(CumulativeOp op, DType dtype) {
  const std::string type = type_of(dtype);
  const bool sum = op == CumulativeOp::Sum;
  return lane_loop(
      "    var total = " + type + "(" + (sum ? "0" : "1") + ");\n",
      "      total = total " + std::string(sum ? "+" : "*") + " x[at];\n      y[at] = total;\n");
}

/// A running maximum or minimum: the first element, then each better one; a NaN stays (the bit
/// test: WGSL has no isnan, and a compiler may fold v != v).
std::string extreme_body(CumulativeOp op, DType dtype) {
  const std::string type = type_of(dtype);
  const std::string better = op == CumulativeOp::Max ? "v > best" : "v < best";
  const std::string take = dtype == DType::F32
                               ? "k == 0u || nan(v) || (!nan(best) && " + better + ")"
                               : "k == 0u || " + better;
  return lane_loop(
      "    var best = " + type + "(0);\n",
      "      let v = x[at];\n      if (" + take + ") { best = v; }\n      y[at] = best;\n");
}

std::string source(CumulativeOp op, DType dtype) {
  const std::string type = type_of(dtype);
  std::string text = R"(// ember's wgpu cumulative ops (src/backends/wgpu/cumulative_kernel.cpp)
@group(0) @binding(0) var<storage, read> p: array<u32>;
fn nan(v: f32) -> bool { return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u; }
)";
  text += "@group(0) @binding(1) var<storage, read_write> x: array<" + type + ">;\n";
  text += "@group(0) @binding(2) var<storage, read_write> y: array<" + type + ">;\n";
  const bool total = op == CumulativeOp::Sum || op == CumulativeOp::Prod;
  return text + (total ? total_body(op, dtype) : extreme_body(op, dtype));
}

}  // namespace cumulative_text

CumulativeKernel::CumulativeKernel(const Adapter& adapter, KernelCache& kernels,
                                   CommandStream& stream)
    : max_binding_(adapter.limits.maxStorageBufferBindingSize),
      max_groups_(adapter.limits.maxComputeWorkgroupsPerDimension),
      kernels_(kernels),
      stream_(stream) {}

bool CumulativeKernel::takes(ir::CumulativeOp op, DType dtype) const {
  // Sums and products of floats accumulate in double in ndarray: the host's.
  const bool total = op == ir::CumulativeOp::Sum || op == ir::CumulativeOp::Prod;
  return dtype == DType::I32 || dtype == DType::U32 || (dtype == DType::F32 && !total);
}

void CumulativeKernel::run(const shader::ScanDispatch& dispatch, const BufferRange& x,
                           const BufferRange& out) {
  const BufferRange tensors[] = {x, out};
  stream_.dispatch(kernels_.kernel(cumulative_text::source(dispatch.op, dispatch.dtype)),
                   std::as_bytes(std::span(dispatch.words)), tensors,
                   shader::groups_for(dispatch.lanes, max_groups_));
}

}  // namespace ember::wgpu
