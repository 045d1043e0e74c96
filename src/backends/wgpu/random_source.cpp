#include "backends/wgpu/random_source.h"

#include <string>

namespace ember::wgpu {
namespace {

/// ir/philox.h's rounds (WGSL has no 32 x 32 -> 64 bit product: wide() assembles the high word
/// from 16-bit halves), then each element: u from word 0's top 24 bits, or Bernoulli's 1 or 0 by
/// those bits against p[3].
constexpr const char* kSource =
    R"(// ember's wgpu random tensors (src/backends/wgpu/random_source.cpp)
@group(0) @binding(0) var<storage, read> p: array<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
// (high, low) words of a b.
fn wide(a: u32, b: u32) -> vec2<u32> {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let cross0 = a0 * b1;
  let cross1 = a1 * b0;
  let middle = ((a0 * b0) >> 16u) + (cross0 & 0xffffu) + (cross1 & 0xffffu);
  return vec2<u32>(a1 * b1 + (cross0 >> 16u) + (cross1 >> 16u) + (middle >> 16u), a * b);
}
fn philox(counter: vec4<u32>, key0: u32, key1: u32) -> vec4<u32> {
  var c = counter;
  var k0 = key0;
  var k1 = key1;
  for (var turn = 0; turn < 10; turn++) {
    if (turn > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    let p0 = wide(0xD2511F53u, c.x);
    let p1 = wide(0xCD9E8D57u, c.z);
    c = vec4<u32>(p1.x ^ c.y ^ k0, p1.y, p0.x ^ c.w ^ k1, p0.y);
  }
  return c;
}
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let n = p[0];
  let threshold = p[3];
  for (var i = gid.x; i < n; i += groups.x * 256u) {
    let k = philox(vec4<u32>(i, 0u, 0u, 0u), p[1], p[2]).x >> 8u;
    y[i] = select(select(0.0f, 1.0f, k < threshold), f32(k) * bitcast<f32>(0x33800000u),
                  threshold > 0x1000000u);
  }
}
)";

}  // namespace

std::string random_source() {
  return kSource;
}

}  // namespace ember::wgpu
