#include "backends/wgpu/reduce_kernel.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "backends/shader/reduce_passes.h"

namespace ember::wgpu {
namespace {

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
  // Each chunk's sum and error are two f32 indexed in 32 bits: fewer than 2^30 chunks.
  return x.dtype == DType::F32 &&
         shader::reduce_passes_take(reduce, x, max_binding_, uint64_t{1} << 30);
}

void ReduceKernel::run(const ir::Reduce& reduce, const BufferRange& x, const ir::TensorMeta& x_meta,
                       const BufferRange& out) {
  shader::record_reduce_passes(reduce, x_meta, x, out, std::string(kCommon) + kPartial,
                               finish_source(reduce.op == ir::ReduceOp::Mean), max_groups_,
                               scratch_,
                               [&](const std::string& source, std::span<const std::byte> words,
                                   std::span<const BufferRange> tensors, uint32_t groups) {
                                 stream_.dispatch(kernels_.kernel(source), words, tensors, groups);
                               });
}

}  // namespace ember::wgpu
