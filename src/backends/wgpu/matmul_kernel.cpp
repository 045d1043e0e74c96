#include "backends/wgpu/matmul_kernel.h"

#include <cstdint>
#include <span>
#include <vector>

namespace ember::wgpu {
namespace {

constexpr uint64_t kTile = 16;

// Padding is zero on both sides of a product only where k runs out, so an infinite or NaN
// element never meets a padding zero in an output that is stored. The parameters come from a
// read-only buffer, so the loop around the barriers is uniform.
constexpr const char* kSource = R"(// ember's wgpu matmul (src/backends/wgpu/matmul_kernel.cpp)
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read_write> a: array<f32>;
@group(0) @binding(2) var<storage, read_write> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;
var<workgroup> lhs_tile: array<array<f32, 16>, 16>;
var<workgroup> rhs_tile: array<array<f32, 16>, 16>;
@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {
  let m = p[0];
  let n = p[1];
  let k = p[2];
  let a0 = group.z * p[3];
  let b0 = group.z * p[4];
  let x = local.x;
  let y = local.y;
  let row = group.y * 16u + y;
  let col = group.x * 16u + x;
  var sum = 0.0f;
  for (var t = 0u; t < k; t += 16u) {
    var lhs = 0.0f;
    if (row < m && t + x < k) { lhs = a[a0 + row * k + t + x]; }
    lhs_tile[y][x] = lhs;
    var rhs = 0.0f;
    if (t + y < k && col < n) { rhs = b[b0 + (t + y) * n + col]; }
    rhs_tile[y][x] = rhs;
    workgroupBarrier();
    let steps = min(16u, k - t);
    for (var j = 0u; j < steps; j++) { sum = fma(lhs_tile[y][j], rhs_tile[j][x], sum); }
    workgroupBarrier();
  }
  if (row < m && col < n) { c[group.z * m * n + row * n + col] = sum; }
}
)";

/// The product of meta's dims before its last two (1 for a matrix).
uint64_t batch_of(const ir::TensorMeta& meta) {
  const std::vector<int64_t>& dims = meta.shape.dims();
  uint64_t product = 1;
  for (std::size_t i = 0; i + 2 < dims.size(); ++i)
    product *= static_cast<uint64_t>(dims[i]);
  return product;
}

/// The dim of meta counted from its end (1: the last).
uint64_t dim_from_end(const ir::TensorMeta& meta, std::size_t from_end) {
  return static_cast<uint64_t>(meta.shape[meta.shape.rank() - from_end]);
}

}  // namespace

MatmulKernel::MatmulKernel(const Adapter& adapter, KernelCache& kernels, CommandStream& stream)
    : max_binding_(adapter.limits.maxStorageBufferBindingSize),
      max_groups_(adapter.limits.maxComputeWorkgroupsPerDimension),
      kernels_(kernels),
      stream_(stream) {}

bool MatmulKernel::takes(const ir::TensorMeta& lhs, const ir::TensorMeta& rhs,
                         const ir::TensorMeta& out) const {
  const std::size_t rank = out.shape.rank();
  if (lhs.dtype != DType::F32 || rhs.dtype != DType::F32 || rank < 2 || lhs.shape.rank() != rank ||
      rhs.shape.rank() != rank)
    return false;
  const uint64_t batch = batch_of(out);
  const auto fits = [&](const ir::TensorMeta& meta) {
    const uint64_t entries = batch_of(meta);
    return (entries == 1 || entries == batch) &&
           padded(static_cast<uint64_t>(meta.shape.num_elements()) * 4) <= max_binding_;
  };
  // lavapipe (llvmpipe) ends an invocation's loops after 65535 turns in all: k + k / 16 here.
  return fits(lhs) && fits(rhs) && fits(out) && dim_from_end(lhs, 1) <= 60000 &&
         batch <= max_groups_ && (dim_from_end(out, 2) + kTile - 1) / kTile <= max_groups_ &&
         (dim_from_end(out, 1) + kTile - 1) / kTile <= max_groups_;
}

void MatmulKernel::run(const BufferRange& a, const BufferRange& b, const BufferRange& c,
                       const ir::TensorMeta& lhs, const ir::TensorMeta& rhs,
                       const ir::TensorMeta& out) {
  const uint64_t m = dim_from_end(out, 2);
  const uint64_t n = dim_from_end(out, 1);
  const uint64_t k = dim_from_end(lhs, 1);
  const uint64_t batch = batch_of(out);
  if (batch * m * n == 0) return;
  if (k == 0) {
    stream_.fill_zero(c);  // an empty sum
    return;
  }
  const auto stride = [](const ir::TensorMeta& meta, uint64_t matrix) {
    return static_cast<uint32_t>(batch_of(meta) == 1 ? 0 : matrix);
  };
  const std::vector<uint32_t> words = {static_cast<uint32_t>(m), static_cast<uint32_t>(n),
                                       static_cast<uint32_t>(k), stride(lhs, m * k),
                                       stride(rhs, k * n)};
  const BufferRange tensors[] = {a, b, c};
  stream_.dispatch(kernels_.kernel(kSource), std::as_bytes(std::span(words)), tensors,
                   static_cast<uint32_t>((n + kTile - 1) / kTile),
                   static_cast<uint32_t>((m + kTile - 1) / kTile), static_cast<uint32_t>(batch));
}

}  // namespace ember::wgpu
