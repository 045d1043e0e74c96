#include "backends/vulkan/reduce_kernel.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ember::vulkan {
namespace {

constexpr uint32_t kWorkgroup = 256;

/// The source of the sum (mean: divided by the lane's length) of T's lanes.
std::string source_of(bool mean, DType dtype) {
  const std::string type = dtype == DType::F64 ? "double" : "float";
  std::string text = R"(#version 450
// ember's vulkan sum and mean (src/backends/vulkan/reduce_kernel.cpp)
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };
)";
  text += "layout(std430, set = 0, binding = 1) readonly buffer X { " + type + " x[]; };\n";
  text += "layout(std430, set = 0, binding = 2) writeonly buffer Out { " + type + " y[]; };\n";
  text += R"(void main() {
  const uint outputs = p[0];
  const uint n = p[1];
  const uint inner = p[2];
  for (uint o = gl_GlobalInvocationID.x; o < outputs; o += gl_NumWorkGroups.x * 256u) {
    const uint row = o / inner;
    uint at = row * n * inner + (o - row * inner);
    precise double sum = 0.0lf;
    for (uint t = 0u; t < n; ++t) {
      sum += double(x[at]);
      at += inner;
    }
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

}  // namespace

ReduceKernel::ReduceKernel(const Features& features, KernelCache& kernels, CommandStream& stream)
    : float64_(features.float64),
      max_range_(features.max_storage_range),
      max_groups_(features.max_groups_x),
      kernels_(kernels),
      stream_(stream) {}

bool ReduceKernel::takes(const ir::Reduce& reduce, const ir::TensorMeta& x) const {
  const bool op = reduce.op == ir::ReduceOp::Sum || reduce.op == ir::ReduceOp::Mean;
  const bool dtype = x.dtype == DType::F32 || x.dtype == DType::F64;
  const uint64_t bytes = static_cast<uint64_t>(x.shape.num_elements()) * dtype_size(x.dtype);
  // A mean of an empty lane is NaN by ndarray's division: left to it.
  const bool empty_mean = reduce.op == ir::ReduceOp::Mean && lanes_of(reduce, x.shape).n == 0;
  return op && dtype && float64_ && !empty_mean && bytes <= max_range_ &&
         x.shape.num_elements() < (int64_t{1} << 31);
}

void ReduceKernel::run(const ir::Reduce& reduce, const BufferRange& x, const ir::TensorMeta& x_meta,
                       const BufferRange& out) {
  const Lanes lanes = lanes_of(reduce, x_meta.shape);
  const uint64_t outputs = lanes.rows * lanes.inner;
  if (outputs == 0) return;
  const Kernel& kernel =
      kernels_.kernel(source_of(reduce.op == ir::ReduceOp::Mean, x_meta.dtype), 2);
  const std::vector<uint32_t> words = {static_cast<uint32_t>(outputs),
                                       static_cast<uint32_t>(lanes.n),
                                       static_cast<uint32_t>(lanes.inner)};
  const BufferRange tensors[] = {x, out};
  const uint64_t groups = (outputs + kWorkgroup - 1) / kWorkgroup;
  stream_.dispatch(kernel, std::as_bytes(std::span(words)), tensors,
                   static_cast<uint32_t>(std::min<uint64_t>(groups, max_groups_)));
}

}  // namespace ember::vulkan
