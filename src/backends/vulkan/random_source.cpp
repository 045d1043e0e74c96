#include "backends/vulkan/random_source.h"

#include <string>

namespace ember::vulkan {
namespace {

/// ir/philox.h's rounds (umulExtended: the high and low words of each product), then each
/// element: u from word 0's top 24 bits, or Bernoulli's 1 or 0 by those bits against p[3].
constexpr const char* kSource = R"(#version 450
// ember's vulkan random tensors (src/backends/vulkan/random_source.cpp)
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Parameters { uint p[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { float y[]; };
uvec4 philox(uvec4 c, uint k0, uint k1) {
  for (int turn = 0; turn < 10; ++turn) {
    if (turn > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    uint hi0, lo0, hi1, lo1;
    umulExtended(0xD2511F53u, c.x, hi0, lo0);
    umulExtended(0xCD9E8D57u, c.z, hi1, lo1);
    c = uvec4(hi1 ^ c.y ^ k0, lo1, hi0 ^ c.w ^ k1, lo0);
  }
  return c;
}
void main() {
  const uint n = p[0];
  const uint threshold = p[3];
  for (uint i = gl_GlobalInvocationID.x; i < n; i += gl_NumWorkGroups.x * 256u) {
    const uint k = philox(uvec4(i, 0u, 0u, 0u), p[1], p[2]).x >> 8;
    y[i] = threshold > 0x1000000u ? float(k) * uintBitsToFloat(0x33800000u)
                                  : (k < threshold ? 1.0 : 0.0);
  }
}
)";

}  // namespace

std::string random_source() {
  return kSource;
}

}  // namespace ember::vulkan
