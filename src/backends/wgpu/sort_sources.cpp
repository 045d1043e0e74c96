#include "backends/wgpu/sort_sources.h"

#include <cstdint>
#include <string>

#include "backends/shader/sort_passes.h"

namespace ember::wgpu {
// The kernels' text, named apart from the other kernels' helpers (unity builds join the files).
namespace sort_text {

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

/// The sources' head: the parameters, then the buffers (binding 1 on).
std::string head(const std::string& buffers) {
  return R"(// ember's wgpu sort (src/backends/wgpu/sort_sources.cpp)
@group(0) @binding(0) var<storage, read> p: array<u32>;
)" + buffers;
}

/// Whether the element (a, at) comes before (b, bt) in the sorted lane (position >= n: padding,
/// which sorts last).
std::string before_function(DType dtype) {
  return key_functions(dtype) +
         R"(fn before(a: u32, at: u32, b: u32, bt: u32, n: u32, descending: bool) -> bool {
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
)";
}

/// A workgroup's sort of each block (a whole lane: one block) of p[3] elements (padded), p[7]
/// blocks a lane, then write, the loop writing the sorted block's element t (t < padded, below n
/// in the lane: origin + t). The parameters come from a read-only buffer, so the loops around the
/// barriers are uniform.
std::string network(DType dtype, const std::string& write) {
  return before_function(dtype) + R"(var<workgroup> words: array<u32, 2048>;
var<workgroup> where_: array<u32, 2048>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_id) local: vec3<u32>) {
  let lanes = p[0];
  let n = p[1];
  let inner = p[2];
  let padded = p[3];
  let descending = p[4] != 0u;
  let wide = p[5] != 0u;
  let blocks = p[7];
  for (var item = group.x; item < lanes * blocks; item += groups.x) {
    let lane = item / blocks;
    let origin = (item - lane * blocks) * padded;
    let row = lane / inner;
    let base = row * n * inner + (lane - row * inner);
    for (var t = local.x; t < padded; t += 256u) {
      where_[t] = origin + t;
      var word = 0u;
      if (origin + t < n) { word = x[base + (origin + t) * inner]; }
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
    for (var t = local.x; t < padded && origin + t < n; t += 256u) {
)" + write +
         R"(    }
    workgroupBarrier();
  }
}
)";
}

/// A lane of at most 2048 elements, sorted by one workgroup into values (read from x again:
/// every bit) and positions.
std::string whole_source(DType dtype) {
  return head(R"(@group(0) @binding(1) var<storage, read_write> x: array<u32>;
@group(0) @binding(2) var<storage, read_write> values: array<u32>;
@group(0) @binding(3) var<storage, read_write> positions: array<u32>;
)") + network(dtype, std::string(R"(      let dest = base + t * inner;
      let at = where_[t];
      values[dest] = x[base + at * inner];
)") + shader::kWriteSortPosition);
}

/// Each block of a long lane sorted by one workgroup into (key, position) pairs, the lane's
/// pairs contiguous.
std::string blocks_source(DType dtype) {
  return head(R"(@group(0) @binding(1) var<storage, read_write> x: array<u32>;
@group(0) @binding(2) var<storage, read_write> pairs: array<u32>;
)") + network(dtype, R"(      let to = 2u * (lane * n + origin + t);
      pairs[to] = words[t];
      pairs[to + 1u] = where_[t];
)");
}

/// Neighbouring sorted runs of p[6] pairs merged: each pair goes to its index in its run plus
/// the count of the other run's pairs before it (a binary search).
std::string merge_source(DType dtype) {
  return head(R"(@group(0) @binding(1) var<storage, read_write> from_: array<u32>;
@group(0) @binding(2) var<storage, read_write> to_: array<u32>;
)") + before_function(dtype) +
         R"(@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let n = p[1];
  let descending = p[4] != 0u;
  let width = p[6];
  let total = p[0] * n;
  for (var g = gid.x; g < total; g += groups.x * 256u) {
    let lane_first = g - g % n;
    let i = g - lane_first;
    let start = i - i % (2u * width);
    let mid = start + min(width, n - start);
    let stop = start + min(2u * width, n - start);
    let in_first = i < mid;
    let word = from_[2u * g];
    let at = from_[2u * g + 1u];
    var low = select(start, mid, in_first);
    let other = low;
    var high = select(mid, stop, in_first);
    while (low < high) {
      let middle = low + (high - low) / 2u;
      let m = 2u * (lane_first + middle);
      if (before(from_[m], from_[m + 1u], word, at, n, descending)) {
        low = middle + 1u;
      } else {
        high = middle;
      }
    }
    let dest = 2u * (lane_first + start + (i - select(mid, start, in_first)) + (low - other));
    to_[dest] = word;
    to_[dest + 1u] = at;
  }
}
)";
}

/// The sorted pairs of long lanes into values (the keys: x's words) and positions.
std::string gather_source() {
  return head(R"(@group(0) @binding(1) var<storage, read_write> pairs: array<u32>;
@group(0) @binding(2) var<storage, read_write> values: array<u32>;
@group(0) @binding(3) var<storage, read_write> positions: array<u32>;
)") + R"(@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let n = p[1];
  let inner = p[2];
  let wide = p[5] != 0u;
  let total = p[0] * n;
  for (var g = gid.x; g < total; g += groups.x * 256u) {
    let lane = g / n;
    let row = lane / inner;
    let dest = row * n * inner + (lane - row * inner) + (g - lane * n) * inner;
    let at = pairs[2u * g + 1u];
    values[dest] = pairs[2u * g];
)" + shader::kWriteSortPosition +
         "  }\n}\n";
}

}  // namespace sort_text

shader::SortSources sort_sources(DType dtype) {
  return {sort_text::whole_source(dtype), sort_text::blocks_source(dtype),
          sort_text::merge_source(dtype), sort_text::gather_source()};
}

}  // namespace ember::wgpu
