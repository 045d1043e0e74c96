#include "backends/vulkan/reduce_kernel.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "backends/shader/reduce_passes.h"

namespace ember::vulkan {
namespace {

constexpr const char* kHeader = R"(#version 450
// ember's vulkan sum and mean (src/backends/vulkan/reduce_kernel.cpp)
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };
)";

/// The first pass: each chunk of 4096 elements of each lane added in order in double.
std::string partial_source(const std::string& type) {
  std::string text = kHeader;
  text += "layout(std430, set = 0, binding = 1) readonly buffer X { " + type + " x[]; };\n";
  text += R"(layout(std430, set = 0, binding = 2) writeonly buffer Partial { double partial[]; };
void main() {
  const uint outputs = p[0];
  const uint n = p[1];
  const uint inner = p[2];
  const uint chunks = p[3];
  for (uint w = gl_GlobalInvocationID.x; w < outputs * chunks; w += gl_NumWorkGroups.x * 256u) {
    const uint o = w / chunks;
    const uint begin = (w - o * chunks) * 4096u;
    const uint row = o / inner;
    uint at = row * n * inner + (o - row * inner) + begin * inner;
    precise double sum = 0.0lf;
    for (uint t = begin; t < min(n, begin + 4096u); ++t) {
      sum += double(x[at]);
      at += inner;
    }
    partial[w] = sum;
  }
}
)";
  return text;
}

/// The second pass: each lane's chunks added in order (a lane of one chunk: its sum exactly),
/// divided by the lane's length for a mean.
std::string finish_source(const std::string& type, bool mean) {
  std::string text = kHeader;
  text += "layout(std430, set = 0, binding = 1) readonly buffer Partial { double partial[]; };\n";
  text += "layout(std430, set = 0, binding = 2) writeonly buffer Out { " + type + " y[]; };\n";
  text += R"(void main() {
  const uint outputs = p[0];
  const uint n = p[1];
  const uint chunks = p[3];
  for (uint o = gl_GlobalInvocationID.x; o < outputs; o += gl_NumWorkGroups.x * 256u) {
    precise double sum = 0.0lf;
    for (uint c = 0u; c < chunks; ++c) sum += partial[o * chunks + c];
)";
  text += mean ? "    y[o] = " + type + "(sum / double(n));\n" : "    y[o] = " + type + "(sum);\n";
  text += "  }\n}\n";
  return text;
}

}  // namespace

ReduceKernel::ReduceKernel(
    const Features& features, KernelCache& kernels, CommandStream& stream,
    std::function<std::shared_ptr<const void>(uint64_t, BufferRange*)> scratch)
    : float64_(features.float64),
      max_range_(features.max_storage_range),
      max_groups_(features.max_groups_x),
      kernels_(kernels),
      stream_(stream),
      scratch_(std::move(scratch)) {}

bool ReduceKernel::takes(const ir::Reduce& reduce, const ir::TensorMeta& x) const {
  const bool dtype = x.dtype == DType::F32 || x.dtype == DType::F64;
  return dtype && float64_ && shader::reduce_passes_take(reduce, x, max_range_, uint64_t{1} << 31);
}

void ReduceKernel::run(const ir::Reduce& reduce, const BufferRange& x, const ir::TensorMeta& x_meta,
                       const BufferRange& out) {
  const std::string type = x_meta.dtype == DType::F64 ? "double" : "float";
  shader::record_reduce_passes(
      reduce, x_meta, x, out, partial_source(type),
      finish_source(type, reduce.op == ir::ReduceOp::Mean), max_groups_, scratch_,
      [&](const std::string& source, std::span<const std::byte> words,
          std::span<const BufferRange> tensors, uint32_t groups) {
        stream_.dispatch(kernels_.kernel(source, 2), words, tensors, groups);
      });
}

}  // namespace ember::vulkan
