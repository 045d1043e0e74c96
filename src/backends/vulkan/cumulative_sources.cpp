#include "backends/vulkan/cumulative_sources.h"

#include <string>

namespace ember::vulkan {
// The kernel's text, named apart from the other kernels' helpers (unity builds join the files).
namespace cumulative_text {

using ir::CumulativeOp;
using shader::ScanPass;

/// The GLSL type of dtype's elements (f32, f64, i32, u32).
std::string type_of(DType dtype) {
  return dtype == DType::F64   ? "double"
         : dtype == DType::F32 ? "float"
         : dtype == DType::I32 ? "int"
                               : "uint";
}

/// The accumulator's GLSL type: double for float sums and products (ndarray's), else dtype's.
std::string carry_type(CumulativeOp op, DType dtype) {
  return shader::scan_carry_bytes(op, dtype) == 8 ? "double" : type_of(dtype);
}

/// The loop over each block's elements (a whole lane: one block): item, the block's index among
/// all (its carry's); at, the element's index; before, after and body, what each block does
/// first and last and each element in between.
std::string block_loop(const std::string& before, const std::string& body,
                       const std::string& after) {
  return R"(void main() {
  const uint lanes = p[0];
  const uint n = p[1];
  const uint inner = p[2];
  const uint block_len = p[3];
  const uint blocks = p[4];
  for (uint item = gl_GlobalInvocationID.x; item < lanes * blocks; item += gl_NumWorkGroups.x * 256u) {
    const uint lane = item / blocks;
    const uint origin = (item - lane * blocks) * block_len;
    const uint row = lane / inner;
    uint at = row * n * inner + (lane - row * inner) + origin * inner;
    const uint count = min(block_len, n - origin);
)" + before +
         "    for (uint k = 0u; k < count; ++k) {\n" + body + "      at += inner;\n    }\n" +
         after + "  }\n}\n";
}

/// The loop over each lane's carries (CarryScan): before, then body on each carry c[at] in order.
std::string carry_loop(const std::string& before, const std::string& body) {
  return R"(void main() {
  const uint lanes = p[0];
  const uint blocks = p[4];
  for (uint lane = gl_GlobalInvocationID.x; lane < lanes; lane += gl_NumWorkGroups.x * 256u) {
)" + before +
         R"(    for (uint at = lane * blocks; at < (lane + 1u) * blocks; ++at) {
)" + body +
         "    }\n  }\n}\n";
}

/// A running sum or product in the accumulator type (double for floats), each prefix converted.
std::string total_body(CumulativeOp op, DType dtype, ScanPass pass) {
  const std::string type = type_of(dtype);
  const std::string acc = carry_type(op, dtype);
  const std::string identity = acc + "(" + (op == CumulativeOp::Sum ? "0" : "1") + ")";
  const std::string combine = op == CumulativeOp::Sum ? " + " : " * ";
  if (pass == ScanPass::CarryScan)
    return carry_loop("    precise " + acc + " running = " + identity + ";\n",
                      "      const " + acc +
                          " total = c[at];\n      c[at] = running;\n"
                          "      running = running" +
                          combine + "total;\n");
  const std::string start = pass == ScanPass::FromCarries ? "c[item]" : identity;
  const std::string write =
      pass == ScanPass::BlockTotals ? "" : "      y[at] = " + type + "(total);\n";
  return block_loop("    precise " + acc + " total = " + start + ";\n",
                    "      total = total" + combine + acc + "(x[at]);\n" + write,
                    pass == ScanPass::BlockTotals ? "    c[item] = total;\n" : "");
}

/// A running maximum or minimum: the first element, then each better one; a NaN stays (once a
/// block has a best: its carry's, or its first element).
std::string extreme_body(CumulativeOp op, DType dtype, ScanPass pass) {
  const std::string type = type_of(dtype);
  const std::string compare = op == CumulativeOp::Max ? "v > best" : "v < best";
  std::string text = "bool better(" + type + " v, " + type + " best) { return " +
                     (is_float(dtype) ? "isnan(v) || (!isnan(best) && " + compare + ")" : compare) +
                     "; }\n";
  if (pass == ScanPass::CarryScan)
    return text + carry_loop("    " + type + " best = c[lane * blocks];\n",
                             "      const " + type +
                                 " v = c[at];\n      c[at] = best;\n"
                                 "      if (better(v, best)) best = v;\n");
  const bool carried = pass == ScanPass::FromCarries;
  const std::string write = pass == ScanPass::BlockTotals ? "" : "      y[at] = best;\n";
  return text +
         block_loop("    " + type + " best = " + (carried ? "c[item]" : type + "(0)") +
                        ";\n    bool started = " + (carried ? "origin > 0u" : "false") + ";\n",
                    "      const " + type +
                        " v = x[at];\n"
                        "      if (!started || better(v, best)) best = v;\n"
                        "      started = true;\n" +
                        write,
                    pass == ScanPass::BlockTotals ? "    c[item] = best;\n" : "");
}

/// The buffers pass binds after the parameters: x, y and the carries as it reads or writes them.
std::string buffers(CumulativeOp op, DType dtype, ScanPass pass) {
  const auto buffer = [](uint32_t binding, const std::string& access, const std::string& name,
                         const std::string& type) {
    return "layout(std430, set = 0, binding = " + std::to_string(binding) + ") " + access +
           "buffer B" + std::to_string(binding) + " { " + type + " " + name + "[]; };\n";
  };
  const std::string type = type_of(dtype);
  const std::string carries = carry_type(op, dtype);
  switch (pass) {
    case ScanPass::Whole:
      return buffer(1, "readonly ", "x", type) + buffer(2, "writeonly ", "y", type);
    case ScanPass::BlockTotals:
      return buffer(1, "readonly ", "x", type) + buffer(2, "writeonly ", "c", carries);
    case ScanPass::CarryScan:
      return buffer(1, "", "c", carries);
    case ScanPass::FromCarries:
      return buffer(1, "readonly ", "x", type) + buffer(2, "writeonly ", "y", type) +
             buffer(3, "readonly ", "c", carries);
  }
  return {};
}

}  // namespace cumulative_text

std::string cumulative_source(ir::CumulativeOp op, DType dtype, shader::ScanPass pass) {
  std::string text = R"(#version 450
// ember's vulkan cumulative ops (src/backends/vulkan/cumulative_sources.cpp)
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };
)";
  text += cumulative_text::buffers(op, dtype, pass);
  const bool total = op == ir::CumulativeOp::Sum || op == ir::CumulativeOp::Prod;
  return text + (total ? cumulative_text::total_body(op, dtype, pass)
                       : cumulative_text::extreme_body(op, dtype, pass));
}

}  // namespace ember::vulkan
