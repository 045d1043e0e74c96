#include "backends/vulkan/matmul_kernel.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ember::vulkan {
namespace {

constexpr uint32_t kTile = 16;
constexpr uint64_t kMaxGroups = 65535;  // the least maxComputeWorkGroupCount Vulkan allows

// Padding is zero on both sides of a product only where k runs out (t + j >= k), so an infinite
// or NaN element never meets a padding zero in an output that is stored.
constexpr const char* kSource = R"(#version 450
// ember's vulkan matmul (src/backends/vulkan/matmul_kernel.cpp)
layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };
layout(std430, set = 0, binding = 1) readonly buffer Lhs { float a[]; };
layout(std430, set = 0, binding = 2) readonly buffer Rhs { float b[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Out { float c[]; };
shared float lhs_tile[16][16];
shared float rhs_tile[16][16];
void main() {
  const uint m = p[0];
  const uint n = p[1];
  const uint k = p[2];
  const uint entry = gl_WorkGroupID.z;
  const uint a0 = entry * p[3];
  const uint b0 = entry * p[4];
  const uint x = gl_LocalInvocationID.x;
  const uint y = gl_LocalInvocationID.y;
  const uint row = gl_WorkGroupID.y * 16u + y;
  const uint col = gl_WorkGroupID.x * 16u + x;
  precise float sum = 0.0;
  for (uint t = 0u; t < k; t += 16u) {
    lhs_tile[y][x] = row < m && t + x < k ? a[a0 + row * k + t + x] : 0.0;
    rhs_tile[y][x] = t + y < k && col < n ? b[b0 + (t + y) * n + col] : 0.0;
    barrier();
    const uint steps = min(16u, k - t);
    for (uint j = 0u; j < steps; ++j) sum = fma(lhs_tile[y][j], rhs_tile[j][x], sum);
    barrier();
  }
  if (row < m && col < n) c[entry * m * n + row * n + col] = sum;
}
)";

struct Dims {
  uint64_t batch = 1;
  uint64_t m = 0;
  uint64_t k = 0;
  uint64_t n = 0;
};

Dims dims_of(const ir::TensorMeta& lhs, const ir::TensorMeta& rhs, const ir::TensorMeta& out) {
  const std::size_t rank = out.shape.rank();
  Dims d;
  d.m = static_cast<uint64_t>(lhs.shape[rank - 2]);
  d.k = static_cast<uint64_t>(lhs.shape[rank - 1]);
  d.n = static_cast<uint64_t>(rhs.shape[rank - 1]);
  for (std::size_t i = 0; i + 2 < rank; ++i)
    d.batch *= static_cast<uint64_t>(out.shape[i]);
  return d;
}

/// The batch entries of an operand: the product of its dims before the matrix's.
uint64_t entries(const ir::TensorMeta& meta) {
  uint64_t product = 1;
  for (std::size_t i = 0; i + 2 < meta.shape.rank(); ++i)
    product *= static_cast<uint64_t>(meta.shape[i]);
  return product;
}

}  // namespace

MatmulKernel::MatmulKernel(const Features& features, KernelCache& kernels, CommandStream& stream)
    : max_range_(features.max_storage_range), kernels_(kernels), stream_(stream) {}

bool MatmulKernel::takes(const ir::TensorMeta& lhs, const ir::TensorMeta& rhs,
                         const ir::TensorMeta& out) const {
  if (lhs.dtype != DType::F32 || rhs.dtype != DType::F32 || out.shape.rank() < 2 ||
      lhs.shape.rank() != out.shape.rank() || rhs.shape.rank() != out.shape.rank())
    return false;
  const Dims d = dims_of(lhs, rhs, out);
  const auto whole_or_one = [&](const ir::TensorMeta& meta) {
    const uint64_t e = entries(meta);
    return e == 1 || e == d.batch;
  };
  const auto fits = [&](const ir::TensorMeta& meta) {
    return static_cast<uint64_t>(meta.shape.num_elements()) * 4 <= max_range_;
  };
  // Its loops along k take k + k / 16 turns, and lavapipe (llvmpipe) ends an invocation's loops
  // after 65535 turns in all.
  return whole_or_one(lhs) && whole_or_one(rhs) && fits(lhs) && fits(rhs) && fits(out) &&
         d.k <= 60000 && d.batch <= kMaxGroups && (d.m + kTile - 1) / kTile <= kMaxGroups &&
         (d.n + kTile - 1) / kTile <= kMaxGroups;
}

void MatmulKernel::run(const BufferRange& a, const BufferRange& b, const BufferRange& c,
                       const ir::TensorMeta& lhs, const ir::TensorMeta& rhs,
                       const ir::TensorMeta& out) {
  const Dims d = dims_of(lhs, rhs, out);
  if (d.batch * d.m * d.n == 0) return;
  if (d.k == 0) {
    stream_.fill_zero(c);  // an empty sum
    return;
  }
  const Kernel& kernel = kernels_.kernel(kSource, 3);
  const auto stride = [&](const ir::TensorMeta& meta, uint64_t matrix) {
    return static_cast<uint32_t>(entries(meta) == 1 ? 0 : matrix);
  };
  const std::vector<uint32_t> words = {static_cast<uint32_t>(d.m), static_cast<uint32_t>(d.n),
                                       static_cast<uint32_t>(d.k), stride(lhs, d.m * d.k),
                                       stride(rhs, d.k * d.n)};
  const BufferRange tensors[] = {a, b, c};
  stream_.dispatch(kernel, std::as_bytes(std::span(words)), tensors,
                   static_cast<uint32_t>((d.n + kTile - 1) / kTile),
                   static_cast<uint32_t>((d.m + kTile - 1) / kTile),
                   static_cast<uint32_t>(d.batch));
}

}  // namespace ember::vulkan
