#include "backends/wgpu/reduce_kernel.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ember::wgpu {
namespace {

constexpr uint64_t kWorkgroup = 256;
/// The elements of a lane one invocation adds in the first pass (lavapipe's loop limit).
constexpr uint64_t kChunk = 4096;
/// The most chunks of a lane the second pass adds.
constexpr uint64_t kMaxChunks = 16384;

// add() is one step of Neumaier's sum: sum and the error of its additions so far (c); an
// infinite or NaN sum is the sum itself (its error is meaningless).
constexpr const char* kCommon =
    R"(// ember's wgpu sum and mean (src/backends/wgpu/reduce_kernel.cpp)
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read_write> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
struct Sum { sum: f32, c: f32 }
fn add(total: Sum, v: f32) -> Sum {
  let s = total.sum + v;
  let c = select((v - s) + total.sum, (total.sum - s) + v, abs(total.sum) >= abs(v));
  return Sum(s, total.c + c);
}
fn value(total: Sum) -> f32 {
  let finite = (bitcast<u32>(total.sum) & 0x7f800000u) != 0x7f800000u;
  return select(total.sum, total.sum + total.c, finite);
}
)";

/// The first pass: each chunk of a lane into y[2w] (its sum) and y[2w + 1] (its error).
constexpr const char* kPartial = R"(@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let outputs = p[0];
  let n = p[1];
  let inner = p[2];
  let chunks = p[3];
  for (var w = gid.x; w < outputs * chunks; w += groups.x * 256u) {
    let o = w / chunks;
    let begin = (w - o * chunks) * 4096u;
    let row = o / inner;
    var at = row * n * inner + (o - row * inner) + begin * inner;
    var total = Sum(0.0f, 0.0f);
    let end = min(n, begin + 4096u);
    for (var t = begin; t < end; t++) {
      total = add(total, x[at]);
      at += inner;
    }
    y[2u * w] = total.sum;
    y[2u * w + 1u] = total.c;
  }
}
)";

/// The second pass: each lane's chunks (sums and errors) in order, divided by the lane's length
/// for a mean.
std::string finish_source(bool mean) {
  std::string text = kCommon;
  text += R"(@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let outputs = p[0];
  let n = p[1];
  let chunks = p[3];
  for (var o = gid.x; o < outputs; o += groups.x * 256u) {
    var total = Sum(0.0f, 0.0f);
    for (var k = o * chunks; k < (o + 1u) * chunks; k++) {
      total = add(total, x[2u * k]);
      total = add(total, x[2u * k + 1u]);
    }
)";
  text += mean ? "    y[o] = value(total) / f32(n);\n" : "    y[o] = value(total);\n";
  return text + "  }\n}\n";
}

/// x as [rows, n, inner] around the reduced dim (the whole tensor, one lane, when there is none).
struct Lanes {
  uint64_t rows = 1;
  uint64_t n = 1;
  uint64_t inner = 1;
};

Lanes lanes_of(const ir::Reduce& reduce, const Shape& shape) {
  const std::vector<int64_t>& dims = shape.dims();
  const auto product = [&](std::size_t from, std::size_t to) {
    uint64_t p = 1;
    for (std::size_t d = from; d < to; ++d)
      p *= static_cast<uint64_t>(dims[d]);
    return p;
  };
  if (!reduce.dim) return {1, product(0, dims.size()), 1};
  const auto axis = static_cast<std::size_t>(*reduce.dim);
  return {product(0, axis), product(axis, axis + 1), product(axis + 1, dims.size())};
}

uint64_t chunks_of(const Lanes& lanes) {
  return std::max<uint64_t>(1, (lanes.n + kChunk - 1) / kChunk);
}

}  // namespace

ReduceKernel::ReduceKernel(
    const Adapter& adapter, KernelCache& kernels, CommandStream& stream,
    std::function<std::shared_ptr<const void>(uint64_t, BufferRange*)> scratch)
    : max_binding_(adapter.limits.maxStorageBufferBindingSize),
      max_groups_(adapter.limits.maxComputeWorkgroupsPerDimension),
      kernels_(kernels),
      stream_(stream),
      scratch_(std::move(scratch)) {}

bool ReduceKernel::takes(const ir::Reduce& reduce, const ir::TensorMeta& x) const {
  if ((reduce.op != ir::ReduceOp::Sum && reduce.op != ir::ReduceOp::Mean) || x.dtype != DType::F32)
    return false;
  const Lanes lanes = lanes_of(reduce, x.shape);
  // A mean of an empty lane is NaN by ndarray's division: left to it.
  if (reduce.op == ir::ReduceOp::Mean && lanes.n == 0) return false;
  const uint64_t partials = lanes.rows * lanes.inner * chunks_of(lanes);
  return static_cast<uint64_t>(x.shape.num_elements()) * 4 <= max_binding_ &&
         x.shape.num_elements() < (int64_t{1} << 31) && chunks_of(lanes) <= kMaxChunks &&
         partials * 8 <= max_binding_ && partials < (uint64_t{1} << 30);
}

void ReduceKernel::run(const ir::Reduce& reduce, const BufferRange& x, const ir::TensorMeta& x_meta,
                       const BufferRange& out) {
  const Lanes lanes = lanes_of(reduce, x_meta.shape);
  const uint64_t outputs = lanes.rows * lanes.inner;
  if (outputs == 0) return;
  const uint64_t chunks = chunks_of(lanes);
  const std::vector<uint32_t> words = {
      static_cast<uint32_t>(outputs), static_cast<uint32_t>(lanes.n),
      static_cast<uint32_t>(lanes.inner), static_cast<uint32_t>(chunks)};
  BufferRange partial;
  // Freed once recorded: whatever reuses its slice is recorded after (an upload flushes first),
  // so runs after.
  const std::shared_ptr<const void> held = scratch_(outputs * chunks * 8, &partial);
  const auto dispatch = [&](const std::string& source, const BufferRange& from,
                            const BufferRange& to, uint64_t invocations) {
    const BufferRange tensors[] = {from, to};
    const uint64_t groups = (invocations + kWorkgroup - 1) / kWorkgroup;
    stream_.dispatch(kernels_.kernel(source), std::as_bytes(std::span(words)), tensors,
                     static_cast<uint32_t>(std::min<uint64_t>(groups, max_groups_)));
  };
  dispatch(std::string(kCommon) + kPartial, x, partial, outputs * chunks);
  dispatch(finish_source(reduce.op == ir::ReduceOp::Mean), partial, out, outputs);
}

}  // namespace ember::wgpu
