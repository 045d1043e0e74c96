#include "backends/vulkan/reduce_kernel.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ember::vulkan {
namespace {

constexpr uint32_t kWorkgroup = 256;
/// The elements of a lane one invocation adds in the first pass. Note: lavapipe (llvmpipe) ends
/// an invocation's loops after 65535 turns in all, silently, so no invocation may loop longer.
constexpr uint64_t kChunk = 4096;
/// The most chunks of a lane the second pass adds.
constexpr uint64_t kMaxChunks = 16384;

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

/// x as [rows, n, inner] around the reduced dim (the whole tensor when there is none).
struct Lanes {
  uint64_t rows = 1;
  uint64_t n = 1;
  uint64_t inner = 1;
};

Lanes lanes_of(const ir::Reduce& reduce, const Shape& shape) {
  if (!reduce.dim) return {1, static_cast<uint64_t>(shape.num_elements()), 1};
  Lanes lanes;
  for (std::size_t d = 0; d < shape.rank(); ++d) {
    const auto i = static_cast<int64_t>(d);
    (i < *reduce.dim    ? lanes.rows
     : i == *reduce.dim ? lanes.n
                        : lanes.inner) *= static_cast<uint64_t>(shape[d]);
  }
  return lanes;
}

uint64_t chunks_of(const Lanes& lanes) {
  return std::max<uint64_t>(1, (lanes.n + kChunk - 1) / kChunk);
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
  const bool op = reduce.op == ir::ReduceOp::Sum || reduce.op == ir::ReduceOp::Mean;
  const bool dtype = x.dtype == DType::F32 || x.dtype == DType::F64;
  const uint64_t bytes = static_cast<uint64_t>(x.shape.num_elements()) * dtype_size(x.dtype);
  const Lanes lanes = lanes_of(reduce, x.shape);
  // A mean of an empty lane is NaN by ndarray's division: left to it.
  const bool empty_mean = reduce.op == ir::ReduceOp::Mean && lanes.n == 0;
  const uint64_t partials = lanes.rows * lanes.inner * chunks_of(lanes);
  return op && dtype && float64_ && !empty_mean && bytes <= max_range_ &&
         x.shape.num_elements() < (int64_t{1} << 31) && chunks_of(lanes) <= kMaxChunks &&
         partials * 8 <= max_range_ && partials < (uint64_t{1} << 31);
}

void ReduceKernel::run(const ir::Reduce& reduce, const BufferRange& x, const ir::TensorMeta& x_meta,
                       const BufferRange& out) {
  const Lanes lanes = lanes_of(reduce, x_meta.shape);
  const uint64_t outputs = lanes.rows * lanes.inner;
  if (outputs == 0) return;
  const uint64_t chunks = chunks_of(lanes);
  const std::string type = x_meta.dtype == DType::F64 ? "double" : "float";
  const std::vector<uint32_t> words = {
      static_cast<uint32_t>(outputs), static_cast<uint32_t>(lanes.n),
      static_cast<uint32_t>(lanes.inner), static_cast<uint32_t>(chunks)};
  BufferRange partial;
  // Freed once recorded: whatever reuses its slice is recorded after, so runs after.
  const std::shared_ptr<const void> held = scratch_(outputs * chunks * 8, &partial);
  const auto dispatch = [&](const std::string& source, const BufferRange& from,
                            const BufferRange& to, uint64_t invocations) {
    const BufferRange tensors[] = {from, to};
    const uint64_t groups = (invocations + kWorkgroup - 1) / kWorkgroup;
    stream_.dispatch(kernels_.kernel(source, 2), std::as_bytes(std::span(words)), tensors,
                     static_cast<uint32_t>(std::min<uint64_t>(groups, max_groups_)));
  };
  dispatch(partial_source(type), x, partial, outputs * chunks);
  dispatch(finish_source(type, reduce.op == ir::ReduceOp::Mean), partial, out, outputs);
}

}  // namespace ember::vulkan
