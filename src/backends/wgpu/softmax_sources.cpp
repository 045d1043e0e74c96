#include "backends/wgpu/softmax_sources.h"

#include <string>

namespace ember::wgpu {
namespace {

/// The bindings and a lane's share (elements start, start + step, ... of its n) of its maximum
/// (a NaN wins, as in ndarray's lane_max; a bit test, as the compiler may assume no NaN of a
/// comparison), of its sum of exp(x - m), and of its writes.
constexpr const char* kSoftmaxCommon =
    R"(// ember's wgpu softmax (src/backends/wgpu/softmax_sources.cpp)
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read_write> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
fn is_nan(v: f32) -> bool { return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u; }
fn larger(a: f32, b: f32) -> f32 { return select(b, a, is_nan(a) || (!is_nan(b) && a >= b)); }
fn lane_max(first: u32, inner: u32, n: u32, start: u32, step: u32) -> f32 {
  var m = bitcast<f32>(0xff800000u);
  for (var k = start; k < n; k += step) { m = larger(m, x[first + k * inner]); }
  return m;
}
fn lane_sum(first: u32, inner: u32, n: u32, start: u32, step: u32, m: f32) -> f32 {
  var s = 0.0f;
  for (var k = start; k < n; k += step) { s += exp(x[first + k * inner] - m); }
  return s;
}
fn lane_write(first: u32, inner: u32, n: u32, start: u32, step: u32, m: f32, sum: f32) {
  let log_sum = log(sum);
  for (var k = start; k < n; k += step) {
    let shifted = x[first + k * inner] - m;
    y[first + k * inner] = select(exp(shifted) / sum, shifted - log_sum, p[3] != 0u);
  }
}
fn first_of(lane: u32, n: u32, inner: u32) -> u32 {
  let row = lane / inner;
  return row * n * inner + (lane - row * inner);
}
)";

/// Short lanes: one invocation a lane, in order. (Apart from the workgroup kernel: lavapipe runs
/// a kernel with barriers far slower, even where none is reached.)
constexpr const char* kSoftmaxShortMain = R"(@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) global: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
  let lanes = p[0];
  let n = p[1];
  let inner = p[2];
  for (var lane = global.x; lane < lanes; lane += groups.x * 256u) {
    let first = first_of(lane, n, inner);
    let m = lane_max(first, inner, n, 0u, 1u);
    lane_write(first, inner, n, 0u, 1u, m, lane_sum(first, inner, n, 0u, 1u, m));
  }
}
)";

/// One workgroup a lane (looping over lanes past the dispatch): each invocation's share of the
/// maximum and the sum, then trees over part.
constexpr const char* kSoftmaxWorkgroupMain = R"(var<workgroup> part: array<f32, 256>;
// The tree over part: its combination by larger (max) or addition (sum), in every invocation.
fn tree(id: u32, max_op: bool) -> f32 {
  workgroupBarrier();
  for (var half_size = 128u; half_size > 0u; half_size = half_size >> 1u) {
    if (id < half_size) {
      let a = part[id];
      let b = part[id + half_size];
      part[id] = select(a + b, larger(a, b), max_op);
    }
    workgroupBarrier();
  }
  let result = part[0];
  workgroupBarrier();
  return result;
}
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_id) local: vec3<u32>, @builtin(workgroup_id) group: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
  let lanes = p[0];
  let n = p[1];
  let inner = p[2];
  let id = local.x;
  for (var lane = group.x; lane < lanes; lane += groups.x) {
    let first = first_of(lane, n, inner);
    part[id] = lane_max(first, inner, n, id, 256u);
    let m = tree(id, true);
    part[id] = lane_sum(first, inner, n, id, 256u, m);
    lane_write(first, inner, n, id, 256u, m, tree(id, false));
  }
}
)";

}  // namespace

shader::SoftmaxSources softmax_sources() {
  return {std::string(kSoftmaxCommon) + kSoftmaxShortMain,
          std::string(kSoftmaxCommon) + kSoftmaxWorkgroupMain};
}

}  // namespace ember::wgpu
