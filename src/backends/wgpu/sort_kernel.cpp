#include "backends/wgpu/sort_kernel.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "backends/shader/sort_passes.h"

namespace ember::wgpu {
namespace {

/// key(bits): the 32-bit word as the key's type; is_nan(bits) tests the word itself (WGSL has no
/// isNan, and may assume no NaN in float comparisons).
std::string key_functions(DType dtype) {
  if (dtype == DType::F32)
    return "fn key(bits: u32) -> f32 { return bitcast<f32>(bits); }\n"
           "fn is_nan(bits: u32) -> bool { return (bits & 0x7fffffffu) > 0x7f800000u; }\n";
  return std::string(dtype == DType::I32
                         ? "fn key(bits: u32) -> i32 { return bitcast<i32>(bits); }\n"
                         : "fn key(bits: u32) -> u32 { return bits; }\n") +
         "fn is_nan(bits: u32) -> bool { return false; }\n";
}

/// The kernel for keys of dtype: each lane loaded padded to p[3] elements (position >= n marks
/// padding, which sorts last), the bitonic network's stages, then the sorted elements (read from
/// x again: every bit) and their positions. The parameters come from a read-only buffer, so the
/// loops around the barriers are uniform.
std::string source(DType dtype) {
  std::string text = R"(// ember's wgpu sort (src/backends/wgpu/sort_kernel.cpp)
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read_write> x: array<u32>;
@group(0) @binding(2) var<storage, read_write> values: array<u32>;
@group(0) @binding(3) var<storage, read_write> positions: array<u32>;
var<workgroup> words: array<u32, 2048>;
var<workgroup> where_: array<u32, 2048>;
)";
  text += key_functions(dtype);
  text += R"(// Whether the element (a, at) comes before (b, bt) in the sorted lane.
fn before(a: u32, at: u32, b: u32, bt: u32, n: u32, descending: bool) -> bool {
  if (at >= n) { return false; }
  if (bt >= n) { return true; }
  let a_nan = is_nan(a);
  let b_nan = is_nan(b);
  let less = !a_nan && (b_nan || key(a) < key(b));
  let greater = !b_nan && (a_nan || key(a) > key(b));
  if (select(less, greater, descending)) { return true; }
  if (select(greater, less, descending)) { return false; }
  return at < bt;
}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_id) local: vec3<u32>) {
  let lanes = p[0];
  let n = p[1];
  let inner = p[2];
  let padded = p[3];
  let descending = p[4] != 0u;
  let wide = p[5] != 0u;
  for (var lane = group.x; lane < lanes; lane += groups.x) {
    let row = lane / inner;
    let base = row * n * inner + (lane - row * inner);
    for (var t = local.x; t < padded; t += 256u) {
      where_[t] = t;
      var word = 0u;
      if (t < n) { word = x[base + t * inner]; }
      words[t] = word;
    }
    workgroupBarrier();
    for (var k = 2u; k <= padded; k *= 2u) {
      for (var j = k / 2u; j > 0u; j /= 2u) {
        for (var t = local.x; t < padded; t += 256u) {
          let u = t ^ j;
          if (u > t) {
            var swap: bool;
            if ((t & k) == 0u) {
              swap = before(words[u], where_[u], words[t], where_[t], n, descending);
            } else {
              swap = before(words[t], where_[t], words[u], where_[u], n, descending);
            }
            if (swap) {
              let word = words[t];
              words[t] = words[u];
              words[u] = word;
              let at = where_[t];
              where_[t] = where_[u];
              where_[u] = at;
            }
          }
        }
        workgroupBarrier();
      }
    }
    for (var t = local.x; t < n; t += 256u) {
      let dest = base + t * inner;
      values[dest] = x[base + where_[t] * inner];
      if (wide) {
        positions[2u * dest] = where_[t];
        positions[2u * dest + 1u] = 0u;
      } else {
        positions[dest] = where_[t];
      }
    }
    workgroupBarrier();
  }
}
)";
  return text;
}

}  // namespace

SortKernel::SortKernel(const Adapter& adapter, KernelCache& kernels, CommandStream& stream)
    : max_binding_(adapter.limits.maxStorageBufferBindingSize),
      max_groups_(adapter.limits.maxComputeWorkgroupsPerDimension),
      kernels_(kernels),
      stream_(stream) {}

bool SortKernel::takes(const ir::Sort& sort, const ir::TensorMeta& x) const {
  return shader::sort_kernels_take(sort, x, max_binding_, max_groups_);
}

void SortKernel::run(const ir::Sort& sort, const BufferRange& x, const ir::TensorMeta& x_meta,
                     const BufferRange& values, const BufferRange& positions) {
  shader::record_sort(sort, x_meta, x, values, positions, source(x_meta.dtype), max_groups_,
                      [&](const std::string& text, std::span<const std::byte> words,
                          std::span<const BufferRange> tensors, uint32_t groups) {
                        stream_.dispatch(kernels_.kernel(text), words, tensors, groups);
                      });
}

}  // namespace ember::wgpu
