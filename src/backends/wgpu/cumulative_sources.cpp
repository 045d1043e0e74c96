#include "backends/wgpu/cumulative_sources.h"

#include <string>

namespace ember::wgpu {
// The kernel's text, named apart from the other kernels' helpers (unity builds join the files).
namespace cumulative_text {

using ir::CumulativeOp;
using shader::ScanPass;

/// The WGSL type of dtype's elements (f32, i32, u32).
std::string type_of(DType dtype) {
  return dtype == DType::F32 ? "f32" : dtype == DType::I32 ? "i32" : "u32";
}

/// The loop over each block's elements (a whole lane: one block): item, the block's index among
/// all (its carry's); at, the element's index; before, after and body, what each block does
/// first and last and each element in between.
std::string block_loop(const std::string& before, const std::string& body,
                       const std::string& after) {
  return R"(@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let lanes = p[0];
  let n = p[1];
  let inner = p[2];
  let block_len = p[3];
  let blocks = p[4];
  for (var item = gid.x; item < lanes * blocks; item += groups.x * 256u) {
    let lane = item / blocks;
    let origin = (item - lane * blocks) * block_len;
    let row = lane / inner;
    var at = row * n * inner + (lane - row * inner) + origin * inner;
    let count = min(block_len, n - origin);
)" + before +
         "    for (var k = 0u; k < count; k++) {\n" + body + "      at += inner;\n    }\n" + after +
         "  }\n}\n";
}

/// The loop over each lane's carries (CarryScan): before, then body on each carry c[at] in order.
std::string carry_loop(const std::string& before, const std::string& body) {
  return R"(@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let lanes = p[0];
  let blocks = p[4];
  for (var lane = gid.x; lane < lanes; lane += groups.x * 256u) {
)" + before +
         R"(    for (var at = lane * blocks; at < (lane + 1u) * blocks; at++) {
)" + body +
         "    }\n  }\n}\n";
}

/// A running sum or product in wrapping 32-bit integers.
std::string total_body(CumulativeOp op, DType dtype, ScanPass pass) {
  const std::string type = type_of(dtype);
  const std::string identity = type + "(" + (op == CumulativeOp::Sum ? "0" : "1") + ")";
  const std::string combine = op == CumulativeOp::Sum ? " + " : " * ";
  if (pass == ScanPass::CarryScan)
    return carry_loop("    var running = " + identity + ";\n",
                      "      let total = c[at];\n      c[at] = running;\n"
                      "      running = running" +
                          combine + "total;\n");
  const std::string start = pass == ScanPass::FromCarries ? "c[item]" : identity;
  const std::string write = pass == ScanPass::BlockTotals ? "" : "      y[at] = total;\n";
  return block_loop("    var total = " + start + ";\n",
                    "      total = total" + combine + "x[at];\n" + write,
                    pass == ScanPass::BlockTotals ? "    c[item] = total;\n" : "");
}

/// A running maximum or minimum: the first element, then each better one; a NaN stays (once a
/// block has a best: its carry's, or its first element). The bit test: WGSL has no isnan, and a
/// compiler may fold v != v.
std::string extreme_body(CumulativeOp op, DType dtype, ScanPass pass) {
  const std::string type = type_of(dtype);
  const std::string compare = op == CumulativeOp::Max ? "v > best" : "v < best";
  std::string text = "fn better(v: " + type + ", best: " + type + ") -> bool { return " +
                     (dtype == DType::F32 ? "nan(v) || (!nan(best) && " + compare + ")" : compare) +
                     "; }\n";
  if (pass == ScanPass::CarryScan)
    return text + carry_loop("    var best = c[lane * blocks];\n",
                             "      let v = c[at];\n      c[at] = best;\n"
                             "      if (better(v, best)) { best = v; }\n");
  const bool carried = pass == ScanPass::FromCarries;
  const std::string write = pass == ScanPass::BlockTotals ? "" : "      y[at] = best;\n";
  return text +
         block_loop("    var best = " + (carried ? "c[item]" : type + "(0)") +
                        ";\n    var started = " + (carried ? "origin > 0u" : "false") + ";\n",
                    "      let v = x[at];\n"
                    "      if (!started || better(v, best)) { best = v; }\n"
                    "      started = true;\n" +
                        write,
                    pass == ScanPass::BlockTotals ? "    c[item] = best;\n" : "");
}

/// The buffers pass binds after the parameters: x, y and the carries as it reads or writes them
/// (the accumulator is the element's type: the kernel takes no float sums or products).
std::string buffers(DType dtype, ScanPass pass) {
  const std::string type = type_of(dtype);
  const auto buffer = [&](uint32_t binding, const std::string& name) {
    return "@group(0) @binding(" + std::to_string(binding) + ") var<storage, read_write> " + name +
           ": array<" + type + ">;\n";
  };
  switch (pass) {
    case ScanPass::Whole:
      return buffer(1, "x") + buffer(2, "y");
    case ScanPass::BlockTotals:
      return buffer(1, "x") + buffer(2, "c");
    case ScanPass::CarryScan:
      return buffer(1, "c");
    case ScanPass::FromCarries:
      return buffer(1, "x") + buffer(2, "y") + buffer(3, "c");
  }
  return {};
}

}  // namespace cumulative_text

std::string cumulative_source(ir::CumulativeOp op, DType dtype, shader::ScanPass pass) {
  std::string text = R"(// ember's wgpu cumulative ops (src/backends/wgpu/cumulative_sources.cpp)
@group(0) @binding(0) var<storage, read> p: array<u32>;
fn nan(v: f32) -> bool { return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u; }
)";
  text += cumulative_text::buffers(dtype, pass);
  const bool total = op == ir::CumulativeOp::Sum || op == ir::CumulativeOp::Prod;
  return text + (total ? cumulative_text::total_body(op, dtype, pass)
                       : cumulative_text::extreme_body(op, dtype, pass));
}

}  // namespace ember::wgpu
